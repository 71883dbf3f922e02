// SPDX-License-Identifier: BSD-2-Clause
/*
 * The stack-trace view: the recorded chain of traced frames merged with the kernel stack
 * captured where the error originated, outermost first, one line per frame:
 *
 *   MM DUR RESULT  SYMBOL+OFF  (file:line:col)
 *
 * with inlined callees as ". name (file:line:col)" lines under their caller.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "render.h"
#include "result_fmt.h"

struct kframe {
	__u64 addr;
	const char *name;	/* NULL if no symbol covers addr */
	__u64 start;
};

struct line {
	char mark[3];
	char dur[24];
	char res[48];
	char sym[160];
	char src[320];
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

/* Frames of retsnoop's own machinery that say nothing about the traced code. */
static bool is_bpf_internal(const char *name)
{
	const char *p;
	bool digit = false;

	if (!name)
		return false;
	if (strncmp(name, "bpf_trampoline_", 15) == 0) {
		p = name + 15;
		if (!*p)
			return false;
		for (; *p; p++)
			if (*p < '0' || *p > '9')
				return false;
		return true;
	}
	if (strcmp(name, "bpf_get_stack_raw_tp") == 0)
		return true;
	/* bpf_prog_<tag>_<name>, the tag being hex with at least one decimal digit */
	if (strncmp(name, "bpf_prog_", 9) == 0) {
		for (p = name + 9; *p && *p != '_'; p++) {
			if (*p >= '0' && *p <= '9')
				digit = true;
			else if (!(*p >= 'a' && *p <= 'f'))
				return false;
		}
		return *p == '_' && p > name + 9 && digit;
	}
	return false;
}

/* Kernel stack outermost first, resolved, with retsnoop's own frames dropped. */
static int collect_kframes(const struct sample *s, const struct render_opts *o,
			   struct kframe *kf)
{
	const struct call_stack *cs = &s->end->stack;
	int n = 0, i, cnt = cs->kstack_sz > 0 ? cs->kstack_sz / 8 : 0;

	if (cnt > MAX_KSTACK_DEPTH)
		cnt = MAX_KSTACK_DEPTH;
	for (i = cnt - 1; i >= 0; i--) {
		struct kframe *k = &kf[n];

		k->addr = cs->kstack[i];
		struct ksym_hit hit;

		render__ksym(o, k->addr, &hit);
		k->name = hit.name;
		k->start = hit.start;
		n++;
	}
	if (o->unfiltered)
		return n;

	/*
	 * fexit leaves "F+0x5, bpf_trampoline_N, F+X" (F+0x9 behind an IBT endbr64): only
	 * F+X is real.
	 */
	for (i = 0; i + 2 < n; i++) {
		__u64 off = kf[i].addr - kf[i].start;

		if (kf[i].name && kf[i + 2].name && (off == 5 || off == 9) &&
		    strcmp(kf[i].name, kf[i + 2].name) == 0 && is_bpf_internal(kf[i + 1].name))
			kf[i].name = "";	/* marked for removal below */
	}
	for (i = 0, cnt = 0; i < n; i++) {
		if ((kf[i].name && !kf[i].name[0]) || is_bpf_internal(kf[i].name))
			continue;
		kf[cnt++] = kf[i];
	}
	return cnt;
}

/* Source location of a kernel frame plus one line per inlined callee. */
static int add_src_lines(struct lines *ls, struct line *l, const struct kframe *k,
			 const struct render_opts *o)
{
	struct src_frame fr[MAX_SRC_FRAMES];
	int i, n;

	if (!k->name)
		return 0;
	/* Stack entries are return addresses: look up the call instruction before them. */
	n = render__src(o, k->addr - 1, fr, MAX_SRC_FRAMES);
	if (n <= 0)
		return 0;
	render__fmt_loc(l->src, sizeof(l->src), &fr[0], k->name);
	for (i = 1; i < n; i++) {
		l = line_add(ls);
		if (!l)
			return -ENOMEM;
		snprintf(l->sym, sizeof(l->sym), "%s. %s", o->emit_addrs ? "                  " : "",
			 fr[i].func ? fr[i].func : "??");
		render__fmt_loc(l->src, sizeof(l->src), &fr[i], NULL);
	}
	return 0;
}

static int add_kernel_line(struct lines *ls, const struct kframe *k, const struct render_opts *o)
{
	struct line *l = line_add(ls);

	if (!l)
		return -ENOMEM;
	render__fmt_sym(l->sym, sizeof(l->sym), k->addr, &(struct ksym_hit){ k->name, k->start, 0 }, o);
	return add_src_lines(ls, l, k, o);
}

static int add_func_line(struct lines *ls, const struct sample *s, int i, const struct kframe *k,
			 const struct render_opts *o)
{
	const struct call_stack *cs = &s->end->stack;
	const struct func_desc *fd = render__func(o, cs->func_ids[i]);
	struct line *l = line_add(ls);
	bool running = (__u32)i < cs->depth;	/* not returned yet (interim samples) */

	if (!l)
		return -ENOMEM;
	l->mark[0] = k ? ' ' : '!';
	l->mark[1] = cs->stitch_pos && (__u32)i >= cs->stitch_pos ? '*' : ' ';
	if (running) {
		strcpy(l->dur, "...");
		strcpy(l->res, "[...]");
	} else {
		snprintf(l->dur, sizeof(l->dur), "%lluus",
			 (unsigned long long)(cs->func_lat[i] / 1000));
		result__format(l->res, sizeof(l->res), cs->func_res[i], fd->flags);
	}
	if (!k) {
		snprintf(l->sym, sizeof(l->sym), "%s%s", o->emit_addrs ? "                  " : "",
			 fd->name);
		return 0;
	}
	render__fmt_sym(l->sym, sizeof(l->sym), k->addr, &(struct ksym_hit){ k->name, k->start, 0 }, o);
	return add_src_lines(ls, l, k, o);
}

static void print_lines(FILE *out, const struct lines *ls)
{
	int dw = 5, rw = 0, sw = 0, i, len;
	char buf[1024];

	for (i = 0; i < ls->cnt; i++) {
		const struct line *l = &ls->v[i];

		if ((int)strlen(l->dur) > dw)
			dw = strlen(l->dur);
		if ((int)strlen(l->res) > rw)
			rw = strlen(l->res);
		if ((int)strlen(l->sym) > sw)
			sw = strlen(l->sym);
	}
	for (i = 0; i < ls->cnt; i++) {
		const struct line *l = &ls->v[i];

		len = snprintf(buf, sizeof(buf), "%s %*s %-*s  %-*s  %s", l->mark, dw, l->dur,
			       rw, l->res, sw, l->sym, l->src);
		if (len >= (int)sizeof(buf))
			len = sizeof(buf) - 1;
		while (len > 0 && buf[len - 1] == ' ')
			len--;
		fprintf(out, "%.*s\n", len, buf);
	}
}

int render_stack(FILE *out, const struct sample *s, const struct render_opts *o)
{
	const struct call_stack *cs = &s->end->stack;
	struct kframe kf[MAX_KSTACK_DEPTH];
	struct lines ls = {};
	int kcnt, kpos = 0, i, j, err = 0;
	__u32 depth = cs->max_depth < MAX_FSTACK_DEPTH ? cs->max_depth : MAX_FSTACK_DEPTH;

	kcnt = collect_kframes(s, o, kf);
	for (i = 0; i < (int)depth; i++) {
		const char *fname = render__func(o, cs->func_ids[i])->name;

		/*
		 * Kernel frames up to the traced function's own frame are its callers; when it
		 * has none (it had returned when the stack was captured) all the remaining ones
		 * are, and it goes last, marked '!'.
		 */
		for (j = kpos; j < kcnt; j++)
			if (kf[j].name && strcmp(kf[j].name, fname) == 0)
				break;
		for (; kpos < j && !err; kpos++)
			err = add_kernel_line(&ls, &kf[kpos], o);
		if (!err)
			err = add_func_line(&ls, s, i, j < kcnt ? &kf[kpos++] : NULL, o);
		if (err)
			goto out;
	}
	for (; kpos < kcnt && !err; kpos++)
		err = add_kernel_line(&ls, &kf[kpos], o);
	if (!err)
		print_lines(out, &ls);
out:
	free(ls.v);
	return err;
}
