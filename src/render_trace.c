// SPDX-License-Identifier: BSD-2-Clause
/*
 * The function call trace view (-T): the sample's call-trace rows, indented four columns
 * per call level: "→" entry, "←" exit, "↔" a leaf call folded into one row, "◎" an
 * injected probe's hit (-J), one level below the call it hit in. With -A the
 * entry and leaf rows carry the call's arguments: in a CONTEXT column (compact mode) or as
 * "› name = value" lines under the row, at the result column.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "arg_render.h"
#include "render.h"
#include "result_fmt.h"

#define MAX_TRACE_INDENT 20

struct trow {
	char func[192];		/* indent + marker + name; markers are 3 bytes, 1 column */
	int func_cols;		/* display width of func[] */
	char res[48];
	char dur[24];
	const struct sample_args *args;
};

static void fill_func(struct trow *r, __u32 depth, const char *marker, const char *name)
{
	/* clamp the level before scaling it: a wild depth must not wrap into a huge width */
	__u32 level = depth > 1 ? depth - 1 : 0;
	int indent = 4 * (level < MAX_TRACE_INDENT ? level : MAX_TRACE_INDENT);

	snprintf(r->func, sizeof(r->func), "%*s%s %s", indent, "", marker, name);
	r->func_cols = indent + 2 + strlen(name);
}

static void fill_row(struct trow *r, const struct sample *s, const struct trace_row *t)
{
	const struct func *fn;

	if (t->kind == TRACE_GAP) {
		/* lost records: say so instead of silently mis-nesting */
		snprintf(r->func, sizeof(r->func), "\u203c ... missing %u record(s) ...", t->missing);
		r->func_cols = strlen(r->func) - 2;
		strcpy(r->res, "...");
		strcpy(r->dur, "...");
		return;
	}
	if (t->kind == TRACE_PROBE) {
		/* no result or duration: the row only says where the probe fired */
		fill_func(r, t->depth, "\u25ce", sample__probe(s, t->probe_id));
		r->args = t->args;	/* -A: the probe's context */
		return;
	}
	fn = sample__func(s, t->func_id);
	fill_func(r, t->depth, t->kind == TRACE_LEAF ? "\u2194" :
		  t->kind == TRACE_ENTRY ? "\u2192" : "\u2190", fn->name);
	if (t->no_return) {
		strcpy(r->res, "[no return]");
		strcpy(r->dur, "-");
	} else if (t->kind != TRACE_ENTRY) {
		result__format_sys(r->res, sizeof(r->res), t->res, fn->flags, t->sys_err);
		snprintf(r->dur, sizeof(r->dur), "%.3fus", t->dur_ns / 1000.0);
	}
	r->args = t->args;
}

/* Compact: the row's arguments in the CONTEXT column. Else a "› " line (or more) each. */
static int print_args(FILE *out, const struct trow *r, int indent, const struct view_opts *v)
{
	struct arg_render_opts ro = {
		.sz = sizeof(ro), .mode = v->args_fmt, .max_width = v->args_max_width,
		.indent = indent,
	};
	char **strs, *line;
	int cnt, i;

	if (v->args_fmt == ARGS_FMT_COMPACT) {
		line = arg_render__compact(r->args, &ro);
		if (!line)
			return -ENOMEM;
		fprintf(out, "  %s\n", line);
		free(line);
		return 0;
	}
	if (arg_render__strs(r->args, &ro, &strs, &cnt))
		return -ENOMEM;
	for (i = 0; i < cnt; i++)
		fprintf(out, "%*s\u203a %s\n", indent, "", strs[i]);
	arg_render__free_strs(strs, cnt);
	return 0;
}

static void dashes(FILE *out, int n)
{
	while (n-- > 0)
		fputc('-', out);
}

int render_trace(FILE *out, const struct sample *s, const struct view_opts *v)
{
	int w = strlen("FUNCTION CALL TRACE"), rw = 6, dw = 8, err = 0;
	bool args = v->args && s->has_args, compact = v->args_fmt == ARGS_FMT_COMPACT;
	struct trow *rows;
	size_t i;

	rows = calloc(s->row_cnt ?: 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < s->row_cnt; i++) {
		fill_row(&rows[i], s, &s->rows[i]);
		if (!args)
			rows[i].args = NULL;
		if (rows[i].func_cols > w)
			w = rows[i].func_cols;
		if ((int)strlen(rows[i].res) > rw)
			rw = strlen(rows[i].res);
		if ((int)strlen(rows[i].dur) > dw)
			dw = strlen(rows[i].dur);
	}
	fprintf(out, "%-*s   %-*s  %*s%s\n", w, "FUNCTION CALL TRACE", rw, "RESULT", dw, "DURATION",
		args && compact ? "  CONTEXT" : "");
	dashes(out, w);
	fputs("   ", out);
	dashes(out, rw);
	fputs("  ", out);
	dashes(out, dw);
	if (args && compact) {
		fputs("  ", out);
		dashes(out, strlen("CONTEXT"));
	}
	fputc('\n', out);
	for (i = 0; i < s->row_cnt && !err; i++) {
		const struct trow *r = &rows[i];

		if (!r->res[0] && !r->dur[0] && !(r->args && compact)) {
			fprintf(out, "%s\n", r->func);
		} else {
			/* pad by display columns: the marker is one column but three bytes */
			fprintf(out, "%s%*s   %-*s  %*s", r->func, w - r->func_cols, "", rw, r->res,
				dw, r->dur);
			if (!(r->args && compact))
				fputc('\n', out);
		}
		if (r->args)
			err = print_args(out, r, w + 3, v);
	}
	free(rows);
	return err;
}
