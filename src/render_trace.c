// SPDX-License-Identifier: BSD-2-Clause
/*
 * The function call trace view (-T): every entry and exit recorded in the session, one row
 * each, a leaf call folded into one "↔" row, indented four columns per call level.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "render.h"
#include "result_fmt.h"

#define MAX_TRACE_INDENT 20

struct trow {
	char func[192];		/* indent + marker + name; markers are 3 bytes, 1 column */
	int func_cols;		/* display width of func[] */
	char res[48];
	char dur[24];
};

static int add_row(struct trow **rows, int *cnt, int *cap)
{
	if (*cnt == *cap) {
		int ncap = *cap ? *cap * 2 : 64;
		void *tmp = realloc(*rows, ncap * sizeof(**rows));

		if (!tmp)
			return -ENOMEM;
		*rows = tmp;
		*cap = ncap;
	}
	memset(&(*rows)[*cnt], 0, sizeof(**rows));
	return (*cnt)++;
}

static void fill_func(struct trow *r, __u32 depth, const char *marker, const char *name)
{
	/* clamp the level before scaling it: a wild depth must not wrap into a huge width */
	__u32 level = depth > 1 ? depth - 1 : 0;
	int indent = 4 * (level < MAX_TRACE_INDENT ? level : MAX_TRACE_INDENT);

	snprintf(r->func, sizeof(r->func), "%*s%s %s", indent, "", marker, name);
	r->func_cols = indent + 2 + strlen(name);
}

int render_trace(FILE *out, const struct sample *s, const struct render_opts *o)
{
	const struct rec_func_trace *t = s->trace;
	struct trow *rows = NULL;
	int cnt = 0, cap = 0, i, w = strlen("FUNCTION CALL TRACE"), rw = 6, dw = 8, idx;
	__u32 next_seq = t && s->trace_cnt ? t[0].seq_id : 0;
	size_t k;

	for (k = 0; k < s->trace_cnt; k++) {
		const struct rec_func_trace *r = &t[k];
		const struct func_desc *fd = render__func(o, r->func_id);
		bool leaf;

		if (r->seq_id != next_seq) {
			/* lost records: say so instead of silently mis-nesting */
			if ((idx = add_row(&rows, &cnt, &cap)) < 0)
				goto nomem;
			snprintf(rows[idx].func, sizeof(rows[idx].func),
				 "\u203c ... missing %u record(s) ...", r->seq_id - next_seq);
			rows[idx].func_cols = strlen(rows[idx].func) - 2;
			strcpy(rows[idx].res, "...");
			strcpy(rows[idx].dur, "...");
		}
		next_seq = r->seq_id + 1;

		leaf = r->type == REC_FUNC_TRACE_ENTRY && k + 1 < s->trace_cnt &&
		       t[k + 1].type == REC_FUNC_TRACE_EXIT && t[k + 1].func_id == r->func_id &&
		       t[k + 1].depth == r->depth && t[k + 1].seq_id == r->seq_id + 1;
		if ((idx = add_row(&rows, &cnt, &cap)) < 0)
			goto nomem;
		if (leaf) {
			r = &t[++k];
			next_seq = r->seq_id + 1;
		}
		fill_func(&rows[idx], r->depth,
			  leaf ? "\u2194" : r->type == REC_FUNC_TRACE_ENTRY ? "\u2192" : "\u2190",
			  fd->name);
		if (r->type == REC_FUNC_TRACE_EXIT) {
			result__format(rows[idx].res, sizeof(rows[idx].res), r->func_res, fd->flags);
			snprintf(rows[idx].dur, sizeof(rows[idx].dur), "%.3fus", r->func_lat / 1000.0);
		}
	}

	for (i = 0; i < cnt; i++) {
		if (rows[i].func_cols > w)
			w = rows[i].func_cols;
		if ((int)strlen(rows[i].res) > rw)
			rw = strlen(rows[i].res);
		if ((int)strlen(rows[i].dur) > dw)
			dw = strlen(rows[i].dur);
	}
	fprintf(out, "%-*s   %-*s  %*s\n", w, "FUNCTION CALL TRACE", rw, "RESULT", dw, "DURATION");
	for (i = 0; i < w; i++)
		fputc('-', out);
	fputs("   ", out);
	for (i = 0; i < rw; i++)
		fputc('-', out);
	fputs("  ", out);
	for (i = 0; i < dw; i++)
		fputc('-', out);
	fputc('\n', out);
	for (i = 0; i < cnt; i++) {
		const struct trow *r = &rows[i];

		if (!r->res[0] && !r->dur[0]) {
			fprintf(out, "%s\n", r->func);
			continue;
		}
		/* pad by display columns: the marker is one column but three bytes */
		fprintf(out, "%s%*s   %-*s  %*s\n", r->func, w - r->func_cols, "", rw, r->res,
			dw, r->dur);
	}
	free(rows);
	return 0;
nomem:
	free(rows);
	return -ENOMEM;
}
