/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Renderers turn a struct sample into output. Each view (stack, call trace, LBR) is its own
 * module over the same sample and the same symbol seam; a machine-readable renderer is a
 * sibling of render_text, not a mode of it.
 */
#ifndef RETSNOOP_RENDER_H
#define RETSNOOP_RENDER_H

#include <stdbool.h>
#include <stdio.h>
#include "session.h"

struct func_desc {
	const char *name;
	__u32 flags;		/* enum func_flags */
	__u64 addr;		/* kernel address, 0 if unknown */
};

/* The function symbol covering an address. */
struct ksym_hit {
	const char *name;
	__u64 start;
	__u64 size;		/* 0 if unknown */
};

/* One source location; for an address, the function itself first, then inlined callees. */
struct src_frame {
	const char *func;
	const char *file;
	int line;
	int col;
};

#define MAX_SRC_FRAMES 64

/* How renderers learn about kernel addresses; any callback may be NULL. */
struct sym_resolver {
	/* Function symbol containing @addr. */
	bool (*ksym)(void *ctx, __u64 addr, struct ksym_hit *hit);
	/* Source frames of @addr, outermost first; returns the count, 0 if unknown. */
	int (*src)(void *ctx, __u64 addr, struct src_frame *frames, int max);
	void *ctx;
};

struct render_opts {
	size_t sz;			/* sizeof(struct render_opts) */
	const struct func_desc *funcs;	/* indexed by function id */
	size_t func_cnt;
	struct sym_resolver syms;
	__s64 ts_offset_ns;		/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	bool stack_view;		/* the default view */
	bool func_trace;		/* -T: call trace table before the stack */
	bool lbr;			/* --lbr: branch records before the stack */
	int lbr_max_count;		/* show at most this many LBR records, 0 = all */
	bool full_lbr;			/* don't hide branches taken by the capture itself */
	bool unfiltered;		/* keep BPF trampoline/program frames */
	bool emit_addrs;		/* raw address before each symbol */
	bool dec_offs;			/* +123 instead of +0x7b */
};

static inline const struct func_desc *render__func(const struct render_opts *o, __u32 id)
{
	static const struct func_desc unknown = { "<unknown>", 0, 0 };

	return id < o->func_cnt ? &o->funcs[id] : &unknown;
}

/* Shared cells (render_sym.c): "name+0xoff" (or "0xaddr") and "(file:line:col)". */
bool render__ksym(const struct render_opts *o, __u64 addr, struct ksym_hit *hit);
void render__fmt_sym(char *buf, size_t sz, __u64 addr, const struct ksym_hit *hit,
		     const struct render_opts *o);
void render__fmt_loc(char *buf, size_t sz, const struct src_frame *f, const char *ksym);
int render__src(const struct render_opts *o, __u64 addr, struct src_frame *frames, int max);

/* Whole sample as text: header, views, drop warning, two blank lines. */
int render_text__sample(FILE *out, const struct sample *s, const struct render_opts *o);

/* The stack-trace view alone (render_stack.c). */
int render_stack(FILE *out, const struct sample *s, const struct render_opts *o);

/* The -T function call trace table (render_trace.c). */
int render_trace(FILE *out, const struct sample *s, const struct render_opts *o);

/* The --lbr branch records (render_lbr.c). */
int render_lbr(FILE *out, const struct sample *s, const struct render_opts *o);

#endif
