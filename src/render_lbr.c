// SPDX-License-Identifier: BSD-2-Clause
/*
 * The LBR view: the last branches the CPU took before the error surfaced, oldest first,
 *
 *   [#NN] from+0xoff (file:line:col)  ->  to+0xoff (file:line:col)
 *
 * with inlined callees of either side zipped underneath. Branches taken inside retsnoop's
 * own probe machinery (after the deepest traced function was left) are hidden.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "render.h"

struct lside {
	char sym[160];
	char src[320];
	int inl_cnt;
	char (*inl_sym)[160];
	char (*inl_src)[320];
};

struct lrow {
	int idx;
	struct lside from, to;
};

static int fill_side(struct lside *sd, __u64 addr, const struct render_opts *o)
{
	struct src_frame fr[MAX_SRC_FRAMES];
	struct ksym_hit hit;
	int n, i;

	render__ksym(o, addr, &hit);
	render__fmt_sym(sd->sym, sizeof(sd->sym), addr, &hit, o);
	n = hit.name ? render__src(o, addr, fr, MAX_SRC_FRAMES) : 0;
	if (n <= 0)
		return 0;
	render__fmt_loc(sd->src, sizeof(sd->src), &fr[0], hit.name);
	if (n == 1)
		return 0;
	sd->inl_sym = calloc(n - 1, sizeof(*sd->inl_sym));
	sd->inl_src = calloc(n - 1, sizeof(*sd->inl_src));
	if (!sd->inl_sym || !sd->inl_src)
		return -ENOMEM;
	for (i = 1; i < n; i++) {
		snprintf(sd->inl_sym[i - 1], sizeof(sd->inl_sym[0]), "%s. %s",
			 o->emit_addrs ? "                  " : "", fr[i].func ?: "??");
		render__fmt_loc(sd->inl_src[i - 1], sizeof(sd->inl_src[0]), &fr[i], NULL);
	}
	sd->inl_cnt = n - 1;
	return 0;
}

static void side_free(struct lside *sd)
{
	free(sd->inl_sym);
	free(sd->inl_src);
}

/* Lowest record index touching the deepest reported function, or -1. */
static int relevant_cutoff(const struct sample *s, const struct lbr_record *r, int n,
			   const struct render_opts *o)
{
	const struct call_stack *cs = &s->end->stack;
	__u32 depth = cs->max_depth < MAX_FSTACK_DEPTH ? cs->max_depth : MAX_FSTACK_DEPTH;
	const struct func_desc *fd;
	struct ksym_hit hit;
	int i;

	/* as in the stack view, frames past MAX_FSTACK_DEPTH don't exist */
	if (!depth)
		return -1;
	fd = render__func(o, cs->func_ids[depth - 1]);
	if (!fd->addr || !render__ksym(o, fd->addr, &hit) || !hit.size)
		return 0;	/* size unknown: hide nothing, quietly */
	for (i = 0; i < n; i++) {
		if ((r[i].from >= hit.start && r[i].from < hit.start + hit.size) ||
		    (r[i].to >= hit.start && r[i].to < hit.start + hit.size))
			return i;
	}
	return -1;
}

static void emit(FILE *out, const char *prefix, const char *fsym, int w1, const char *fsrc,
		 int w2, const char *mid, const char *tsym, int w3, const char *tsrc)
{
	char buf[1400];
	int len;

	len = snprintf(buf, sizeof(buf), "%s%-*s  %-*s  %s  %-*s  %s", prefix, w1, fsym, w2, fsrc,
		       mid, w3, tsym, tsrc);
	if (len >= (int)sizeof(buf))
		len = sizeof(buf) - 1;
	while (len > 0 && buf[len - 1] == ' ')
		len--;
	fprintf(out, "%.*s\n", len, buf);
}

int render_lbr(FILE *out, const struct sample *s, const struct render_opts *o)
{
	const struct rec_lbr_stack *lbr = s->lbr;
	struct lrow *rows = NULL;
	int n, cutoff, last, cnt = 0, i, j, w1 = 0, w2 = 0, w3 = 0, err = 0;
	bool relevant = true;

	if (!lbr) {
		fprintf(out, "LBR data was dropped and is missing in this sample!\n");
		return 0;
	}
	if (lbr->lbrs_sz < 0) {
		fprintf(out, "Failed to capture LBR entries: %d\n", lbr->lbrs_sz);
		return 0;
	}
	n = lbr->lbrs_sz / sizeof(struct lbr_record);
	if (n > MAX_LBR_ENTRIES)
		n = MAX_LBR_ENTRIES;
	cutoff = o->full_lbr || o->unfiltered ? 0 : relevant_cutoff(s, lbr->lbrs, n, o);
	if (cutoff < 0) {
		relevant = false;
		cutoff = 0;
	}
	last = n - 1;
	if (o->lbr_max_count > 0 && last - cutoff + 1 > o->lbr_max_count)
		last = cutoff + o->lbr_max_count - 1;	/* keep the most recent relevant ones */
	if (last < cutoff)
		goto tail;

	rows = calloc(last - cutoff + 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = last; i >= cutoff; i--, cnt++) {
		rows[cnt].idx = i;
		if ((err = fill_side(&rows[cnt].from, lbr->lbrs[i].from, o)) ||
		    (err = fill_side(&rows[cnt].to, lbr->lbrs[i].to, o))) {
			cnt++;
			goto out;
		}
	}
	for (i = 0; i < cnt; i++) {
		const struct lrow *r = &rows[i];

#define WIDEN(w, str) do { if ((int)strlen(str) > (w)) (w) = strlen(str); } while (0)
		WIDEN(w1, r->from.sym);
		WIDEN(w2, r->from.src);
		WIDEN(w3, r->to.sym);
		for (j = 0; j < r->from.inl_cnt; j++) {
			WIDEN(w1, r->from.inl_sym[j]);
			WIDEN(w2, r->from.inl_src[j]);
		}
		for (j = 0; j < r->to.inl_cnt; j++)
			WIDEN(w3, r->to.inl_sym[j]);
#undef WIDEN
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
	if (!relevant)
		fprintf(out, "[LBR] No relevant LBR data were captured, showing unfiltered LBR stack!\n");
out:
	for (i = 0; i < cnt; i++) {
		side_free(&rows[i].from);
		side_free(&rows[i].to);
	}
	free(rows);
	return err;
}
