// SPDX-License-Identifier: BSD-2-Clause
/*
 * The stack-trace view, one line per frame of the decoded sample, outermost first:
 *
 *   MM DUR RESULT  SYMBOL+OFF  (file:line:col)
 *
 * with inlined callees as ". name (file:line:col)" lines under their caller. MM: '!' on
 * the frame where the sample's error originated, '^' on deeper ones whose other error a
 * caller replaced, '*' for a frame of a stitched chain (struct sample_frame). A location
 * without the source lines it should have says why in the source column (its src_note:
 * the symbolizer failed, the lookup was cut short by a second Ctrl-C, ...).
 * With -A a traced frame's arguments follow its source column (compact) or come as
 * "› name = value" lines right under it, at the result column.
 *
 * With -U the user-space frames come first, in the same columns. A rule line marks where
 * user space ends and the kernel begins: above the first kernel frame, below the user stack
 * and any traced user-space functions (a session of user functions only has none). A user frame without source lines says why in its source column;
 * a user stack that could not be followed to its outermost frame starts with a line
 * saying why.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "arg_render.h"
#include "render.h"
#include "result_fmt.h"

struct line {
	char mark[3];
	char dur[24];
	char res[48];
	char sym[192];
	char src[320];
	const struct sample_args *args;	/* -A, traced frames */
	const char *rule;		/* a rule across the columns with this label */
	const char *note;		/* a whole line of its own */
};

struct lines {
	struct line *v;
	int cnt, cap;
};

static struct line *line_add(struct lines *ls)
{
	struct line *l;

	if (ls->cnt == ls->cap) {
		int cap = ls->cap ? ls->cap * 2 : 32;
		void *tmp = realloc(ls->v, cap * sizeof(*ls->v));

		if (!tmp)
			return NULL;
		ls->v = tmp;
		ls->cap = cap;
	}
	l = &ls->v[ls->cnt++];
	memset(l, 0, sizeof(*l));
	strcpy(l->mark, "  ");
	return l;
}

/* The location's source cell, plus one line per inlined callee. */
static int add_src_lines(struct lines *ls, int line_idx, const struct code_loc *loc,
			 const struct view_opts *v)
{
	struct line *l = &ls->v[line_idx];
	int i;

	/* lines were expected but could not be had: say why in their place */
	if (loc->src_cnt <= 0 && loc->src_note)
		snprintf(l->src, sizeof(l->src), "(%s)", loc->src_note);
	if (loc->src_cnt <= 0)
		return 0;
	render__fmt_loc(l->src, sizeof(l->src), &loc->src[0], loc->sym);
	for (i = 1; i < loc->src_cnt; i++) {
		l = line_add(ls);
		if (!l)
			return -ENOMEM;
		snprintf(l->sym, sizeof(l->sym), "%s. %s", render__inline_indent(v),
			 loc->src[i].func);
		render__fmt_loc(l->src, sizeof(l->src), &loc->src[i], NULL);
	}
	return 0;
}

/* A user function without source lines: which binary or library it is in. */
static void render_user_image(char *buf, size_t sz, const struct func *fn)
{
	const char *base = fn->image ? strrchr(fn->image, '/') : NULL;

	snprintf(buf, sz, "(%s)", base ? base + 1 : fn->image ?: "?");
}

static int add_frame(struct lines *ls, const struct sample *s, const struct sample_frame *f,
		     const struct view_opts *v)
{
	struct line *l = line_add(ls);
	int idx = ls->cnt - 1;

	if (!l)
		return -ENOMEM;
	if (f->func_id >= 0) {
		const struct func *fn = sample__func(s, f->func_id);

		l->mark[0] = f->origin ? '!' : f->replaced ? '^' : ' ';
		l->mark[1] = f->stitched ? '*' : ' ';
		if (f->running) {
			strcpy(l->dur, "...");
			strcpy(l->res, "[...]");
		} else if (f->no_return) {
			strcpy(l->dur, "-");
			strcpy(l->res, "[no return]");
		} else {
			snprintf(l->dur, sizeof(l->dur), "%lluus",
				 (unsigned long long)(f->dur_ns / 1000));
			result__format_sys(l->res, sizeof(l->res), f->res, fn->flags, f->sys_err);
		}
		if (v->args)
			l->args = f->args;
		if (!f->has_kframe) {
			snprintf(l->sym, sizeof(l->sym), "%s%s", render__inline_indent(v), fn->name);
			/* where the function is, for a frame that had already returned */
			if (f->loc.src_cnt > 0)
				render__fmt_loc(l->src, sizeof(l->src), &f->loc.src[0], NULL);
			else if (fn->flags & FUNC_USER)
				render_user_image(l->src, sizeof(l->src), fn);
			else if (f->loc.src_note)
				snprintf(l->src, sizeof(l->src), "(%s)", f->loc.src_note);
			return 0;
		}
	}
	render__fmt_sym(l->sym, sizeof(l->sym), &f->loc, f->filtered, v);
	return add_src_lines(ls, idx, &f->loc, v);
}

static const char *basename_of(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path ?: "?";
}

static int add_uframe(struct lines *ls, const struct code_loc *loc,
		      const struct view_opts *v)
{
	struct line *l = line_add(ls);

	if (!l)
		return -ENOMEM;
	/* a caller only the frame pointer vouches for */
	if (loc->fp_guess)
		l->mark[0] = '?';
	render__fmt_sym(l->sym, sizeof(l->sym), loc, false, v);
	if (loc->src_cnt > 0)
		return add_src_lines(ls, ls->cnt - 1, loc, v);
	/* no lines: which binary, and why */
	if (!loc->image.path)
		snprintf(l->src, sizeof(l->src), "(%s)", loc->src_note ?: "no mapped file");
	else
		snprintf(l->src, sizeof(l->src), "(%s: no lines: %s)", basename_of(loc->image.path),
			 loc->src_note ?: "not found");
	return 0;
}

static int add_note(struct lines *ls, const char *fmt, const char *arg)
{
	struct line *l = line_add(ls);
	char buf[320];

	if (!l)
		return -ENOMEM;
	snprintf(buf, sizeof(buf), fmt, arg);
	l->note = strdup(buf);
	return l->note ? 0 : -ENOMEM;
}

/* -U: the user frames, outermost first, and what is known about what is missing. */
static int add_ustack(struct lines *ls, const struct sample *s, const struct view_opts *v)
{
	size_t i;
	int err = 0;

	if (s->ustack_missing)
		return add_note(ls, "%s", "   [user stack: its record was dropped]");
	if (s->ustack_late)
		err = add_note(ls, "%s", "   [user stack taken after the call: its syscall returned unseen, the thread's stack when the session ended]");
	if (s->ustack_note && !err)
		err = add_note(ls, s->uframe_cnt ? "   [user stack incomplete: %s]" :
						    "   [no user stack: %s]", s->ustack_note);
	for (i = 0; i < s->uframe_cnt && !err; i++)
		err = add_uframe(ls, &s->uframes[i], v);
	return err;
}

/* Multiline and verbose modes: one "› " line (or more, verbose) per argument. */
static int print_arg_lines(FILE *out, const struct sample_args *a, int indent,
			   const struct view_opts *v)
{
	struct arg_render_opts ro = {
		.sz = sizeof(ro), .mode = v->args_fmt, .max_width = v->args_max_width,
		.indent = indent,
	};
	char **strs;
	int cnt, i, err;

	err = arg_render__strs(a, &ro, &strs, &cnt);
	if (err)
		return err;
	for (i = 0; i < cnt; i++)
		fprintf(out, "%*s\u203a %s\n", indent, "", strs[i]);
	arg_render__free_strs(strs, cnt);
	return 0;
}

static const char *dashes(int n)
{
	static const char d[] = "----------------------------------------------------------------";

	if (n < 3)
		n = 3;
	return n >= (int)sizeof(d) - 1 ? d : d + sizeof(d) - 1 - n;
}

static void free_lines(struct lines *ls)
{
	int i;

	for (i = 0; i < ls->cnt; i++)
		free((char *)ls->v[i].note);
	free(ls->v);
}

static int print_lines(FILE *out, const struct lines *ls, const struct view_opts *v)
{
	int dw = 5, rw = 0, sw = 0, srcw = 0, i, len;
	bool compact = v->args_fmt == ARGS_FMT_COMPACT;
	char buf[1024];

	for (i = 0; i < ls->cnt; i++) {
		const struct line *l = &ls->v[i];

		if ((int)strlen(l->dur) > dw)
			dw = strlen(l->dur);
		if ((int)strlen(l->res) > rw)
			rw = strlen(l->res);
		if ((int)strlen(l->sym) > sw)
			sw = strlen(l->sym);
		if ((int)strlen(l->src) > srcw)
			srcw = strlen(l->src);
	}
	for (i = 0; i < ls->cnt; i++) {
		const struct line *l = &ls->v[i];
		struct arg_render_opts ro = {
			.sz = sizeof(ro), .mode = v->args_fmt, .max_width = v->args_max_width,
		};
		char *args;

		if (l->note) {
			fprintf(out, "%s\n", l->note);
			continue;
		}
		if (l->rule) {
			/* from the duration column to the end of the symbol column */
			int w = dw + 1 + rw + 2 + sw, side = (w - (int)strlen(l->rule) - 2) / 2;

			if (side < 3)
				side = 3;
			fprintf(out, "   %s %s %s\n", dashes(side), l->rule,
				dashes(w - side - (int)strlen(l->rule) - 2));
			continue;
		}

		len = snprintf(buf, sizeof(buf), "%s %*s %-*s  %-*s  %s", l->mark, dw, l->dur,
			       rw, l->res, sw, l->sym, l->src);
		if (len >= (int)sizeof(buf))
			len = sizeof(buf) - 1;
		if (l->args && compact) {
			/* the arguments column starts after the widest source */
			args = arg_render__compact(l->args, &ro);
			if (!args)
				return -ENOMEM;
			fprintf(out, "%.*s%*s  %s\n", len, buf, srcw - (int)strlen(l->src), "", args);
			free(args);
			continue;
		}
		while (len > 0 && buf[len - 1] == ' ')
			len--;
		fprintf(out, "%.*s\n", len, buf);
		/* under the frame, at the result column */
		if (l->args && print_arg_lines(out, l->args, 3 + dw + 1, v))
			return -ENOMEM;
	}
	return 0;
}

static bool is_user_frame(const struct sample *s, const struct sample_frame *f)
{
	return f->func_id >= 0 && (sample__func(s, f->func_id)->flags & FUNC_USER);
}

/* A rule line with @label across the columns; NULL when out of memory */
static struct line *add_rule(struct lines *ls, const char *label)
{
	struct line *l = line_add(ls);

	if (l)
		l->rule = label;
	return l;
}

int render_stack(FILE *out, const struct sample *s, const struct view_opts *v)
{
	bool user_above = s->has_ustack, knote = s->kstack_note;
	struct lines ls = {};
	size_t i;
	int err = 0;

	if (s->has_ustack)
		err = add_ustack(&ls, s, v);
	for (i = 0; i < s->frame_cnt && !err; i++) {
		const struct sample_frame *f = &s->frames[i];

		/* above the first kernel frame: the traced ones are all there is */
		if (knote && !is_user_frame(s, f) && !user_above) {
			knote = false;
			err = add_note(&ls, "   [no kernel stack: %s]", s->kstack_note);
			if (err)
				break;
		}

		/* where the chain broke: a rule above the frames that never returned */
		if (f->no_return && (i == 0 || !s->frames[i - 1].no_return ||
				     s->frames[i - 1].exit_cut != f->exit_cut) &&
		    !add_rule(&ls, no_return_why(s, sample__func(s, f->func_id)->flags,
						 f->exit_cut))) {
			err = -ENOMEM;
			break;
		}
		if (is_user_frame(s, f)) {
			user_above = true;
		} else if (user_above) {
			user_above = false;
			if (!add_rule(&ls, "kernel")) {
				err = -ENOMEM;
				break;
			}
			if (knote) {
				knote = false;
				err = add_note(&ls, "   [no kernel stack: %s]", s->kstack_note);
				if (err)
					break;
			}
		}
		err = add_frame(&ls, s, f, v);
	}
	if (!err)
		err = print_lines(out, &ls, v);
	free_lines(&ls);
	return err;
}

int render_ustack(FILE *out, const struct sample *s, const struct view_opts *v)
{
	struct lines ls = {};
	int err;

	if (!s->has_ustack)
		return 0;
	err = add_ustack(&ls, s, v);
	if (!err)
		err = print_lines(out, &ls, v);
	free_lines(&ls);
	return err;
}
