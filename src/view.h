/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What a run shows: which views it decodes and renders, and how. One value, set once from
 * the command line, that every stage reads: the tracer (what BPF records for -T and
 * --lbr), the sample builder (what it decodes), the text sink (what it prints) and the
 * capture (what a replay shows again). It is no opts struct of its own: each of those
 * embeds it in its opts, whose sz covers it. Zero is "off" for every field but @stack,
 * which a caller sets for the default view.
 */
#ifndef RETSNOOP_VIEW_H
#define RETSNOOP_VIEW_H

#include <stdbool.h>
#include "arg_fmt.h"

struct view_opts {
	bool stack;			/* the stack view (the default) */
	bool func_trace;		/* -T: every call, as a table before the stack */
	bool lbr;			/* --lbr: branch records before the stack */
	bool full_lbr;			/* keep every LBR record, not only the relevant ones */
	bool unfiltered;		/* keep BPF machinery frames and every LBR record */
	int lbr_max_count;		/* fmt.lbr-max-count: show at most this many, 0 = all */
	bool emit_addrs;		/* stacks.emit-addrs: raw address before each symbol */
	bool dec_offs;			/* stacks.dec-offs: +123 instead of +0x7b */
	bool args;			/* -A: show captured arguments */
	enum args_fmt_mode args_fmt;	/* args.fmt-mode */
	int args_max_width;		/* args.fmt-max-arg-width, 0: no limit */
};

#endif
