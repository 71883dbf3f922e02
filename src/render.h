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
	/* Function symbol containing @addr: its name and start address. */
	bool (*ksym)(void *ctx, __u64 addr, const char **name, __u64 *start);
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
	bool unfiltered;		/* keep BPF trampoline/program frames */
	bool emit_addrs;		/* raw address before each symbol */
	bool dec_offs;			/* +123 instead of +0x7b */
};

static inline const struct func_desc *render__func(const struct render_opts *o, __u32 id)
{
	static const struct func_desc unknown = { "<unknown>", 0 };

	return id < o->func_cnt ? &o->funcs[id] : &unknown;
}

/* Whole sample as text: header, views, drop warning, two blank lines. */
int render_text__sample(FILE *out, const struct sample *s, const struct render_opts *o);

/* The stack-trace view alone (render_stack.c). */
int render_stack(FILE *out, const struct sample *s, const struct render_opts *o);

/* The -T function call trace table (render_trace.c). */
int render_trace(FILE *out, const struct sample *s, const struct render_opts *o);

#endif
