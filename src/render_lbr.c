// SPDX-License-Identifier: BSD-2-Clause
/*
 * The LBR view: the last branches the CPU took before the error surfaced, oldest first,
 *
 *   [#NN] from+0xoff (file:line:col)  ->  to+0xoff (file:line:col)
 *
 * with inlined callees of either side zipped underneath. Only the records the sample
 * calls relevant are shown (the ones after belong to retsnoop's own probe machinery).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "render.h"

struct lside {
	char sym[192];
	char src[320];
	int inl_cnt;
	char (*inl_sym)[192];
	char (*inl_src)[320];
};

struct lrow {
	int idx;
	struct lside from, to;
};

static int fill_side(struct lside *sd, const struct code_loc *loc,
		     const struct view_opts *v)
{
	int i, n = loc->src_cnt;

	render__fmt_sym(sd->sym, sizeof(sd->sym), loc, false, v);
	if (n <= 0 && loc->src_note)
		snprintf(sd->src, sizeof(sd->src), "(%s)", loc->src_note);
	if (n <= 0)
		return 0;
	render__fmt_loc(sd->src, sizeof(sd->src), &loc->src[0], loc->sym);
	if (n == 1)
		return 0;
	sd->inl_sym = calloc(n - 1, sizeof(*sd->inl_sym));
	sd->inl_src = calloc(n - 1, sizeof(*sd->inl_src));
	if (!sd->inl_sym || !sd->inl_src)
		return -ENOMEM;
	for (i = 1; i < n; i++) {
		snprintf(sd->inl_sym[i - 1], sizeof(sd->inl_sym[0]), "%s. %s",
			 render__inline_indent(v), loc->src[i].func);
		render__fmt_loc(sd->inl_src[i - 1], sizeof(sd->inl_src[0]), &loc->src[i], NULL);
	}
	sd->inl_cnt = n - 1;
	return 0;
}

static void side_free(struct lside *sd)
{
	free(sd->inl_sym);
	free(sd->inl_src);
}

static void emit(FILE *out, const char *prefix, const char *fsym, int w1, const char *fsrc,
		 int w2, const char *mid, const char *tsym, int w3, const char *tsrc)
{
	char buf[1600];
	int len;

	len = snprintf(buf, sizeof(buf), "%s%-*s  %-*s  %s  %-*s  %s", prefix, w1, fsym, w2, fsrc,
		       mid, w3, tsym, tsrc);
	if (len >= (int)sizeof(buf))
		len = sizeof(buf) - 1;
	while (len > 0 && buf[len - 1] == ' ')
		len--;
	fprintf(out, "%.*s\n", len, buf);
}

#define WIDEN(w, str) do { if ((int)strlen(str) > (w)) (w) = strlen(str); } while (0)

int render_lbr(FILE *out, const struct sample *s, const struct view_opts *v)
{
	struct lrow *rows = NULL;
	int first, last, cnt = 0, i, j, w1 = 0, w2 = 0, w3 = 0, err = 0;

	if (s->lbr_missing) {
		fprintf(out, "LBR data was dropped and is missing in this sample!\n");
		return 0;
	}
	if (s->lbr_err) {
		fprintf(out, "Failed to capture LBR entries: %d\n", s->lbr_err);
		return 0;
	}
	first = s->lbr_relevant ? (int)s->lbr_first : 0;
	last = (int)s->lbr_cnt - 1;
	if (v->lbr_max_count > 0 && last - first + 1 > v->lbr_max_count)
		last = first + v->lbr_max_count - 1;	/* keep the most recent relevant ones */
	if (last < first)
		goto tail;

	rows = calloc(last - first + 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = last; i >= first; i--, cnt++) {
		rows[cnt].idx = i;
		if ((err = fill_side(&rows[cnt].from, &s->lbrs[i].from, v)) ||
		    (err = fill_side(&rows[cnt].to, &s->lbrs[i].to, v))) {
			cnt++;
			goto out;
		}
	}
	for (i = 0; i < cnt; i++) {
		const struct lrow *r = &rows[i];

		WIDEN(w1, r->from.sym);
		WIDEN(w2, r->from.src);
		WIDEN(w3, r->to.sym);
		for (j = 0; j < r->from.inl_cnt; j++) {
			WIDEN(w1, r->from.inl_sym[j]);
			WIDEN(w2, r->from.inl_src[j]);
		}
		for (j = 0; j < r->to.inl_cnt; j++)
			WIDEN(w3, r->to.inl_sym[j]);
	}
	for (i = 0; i < cnt; i++) {
		const struct lrow *r = &rows[i];
		char prefix[16];
		int k = r->from.inl_cnt > r->to.inl_cnt ? r->from.inl_cnt : r->to.inl_cnt;

		snprintf(prefix, sizeof(prefix), "[#%02d] ", r->idx);
		emit(out, prefix, r->from.sym, w1, r->from.src, w2, "->", r->to.sym, w3, r->to.src);
		for (j = 0; j < k; j++) {
			bool fl = j < r->from.inl_cnt, tl = j < r->to.inl_cnt;

			emit(out, "      ", fl ? r->from.inl_sym[j] : "", w1,
			     fl ? r->from.inl_src[j] : "", w2, "  ", tl ? r->to.inl_sym[j] : "", w3,
			     tl ? r->to.inl_src[j] : "");
		}
	}
tail:
	if (!s->lbr_relevant)
		fprintf(out, "[LBR] No relevant LBR data were captured, showing unfiltered LBR stack!\n");
out:
	for (i = 0; i < cnt; i++) {
		side_free(&rows[i].from);
		side_free(&rows[i].to);
	}
	free(rows);
	return err;
}
