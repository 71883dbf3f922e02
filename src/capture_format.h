/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The capture file's layout, shared by its writer (capture.c) and reader (replay.c); see
 * capture.h for the format's outline.
 */
#ifndef RETSNOOP_CAPTURE_FORMAT_H
#define RETSNOOP_CAPTURE_FORMAT_H

#include <stdbool.h>
#include <linux/types.h>
#include "view.h"

/*
 * Version 2 changed struct call_stack (a stitched-frames mask instead of a stitch
 * position); version 1 files are converted on load so old captures keep replaying.
 */
#define CAP_MAGIC "RSNPCAP2"
#define CAP_MAGIC_V1 "RSNPCAP1"

enum cap_kind {
	CAP_RECORD = 1,		/* raw ring-buffer record */
	CAP_FUNC,		/* __u32 id, __u32 flags, __u64 addr, name */
	CAP_KSYM,		/* __u64 addr, start, size, __u32 found, name */
	CAP_SRC,		/* __u64 addr, __u32 n, n x {__s32 line, __s32 col, func, file} */
	CAP_TS_OFFSET,		/* __s64 realtime - monotonic */
	CAP_VIEWS,		/* __u32 enum cap_view bits, __s32 lbr_max_count */
	CAP_ARGS_VIEW,		/* -A: __u32 enum args_fmt_mode, __s32 max width */
	CAP_ARGS_PLAN,		/* __u32 func id, __u32 0, arg_plan__serialize() bytes */
	CAP_PROBE,		/* -J: __u32 probe id, __u32 0, the spec as given */
	CAP_PROBE_PLAN,		/* -J -A: __u32 probe id, __u32 0, arg_plan__serialize() bytes */
	/*
	 * Answers about addresses outside the kernel, or with more to say than CAP_KSYM and
	 * CAP_SRC carry: struct cap_space first, then the payload of the record named.
	 */
	CAP_SYM_IN,		/* cap_space, CAP_KSYM's payload */
	CAP_SRC_IN,		/* cap_space, CAP_SRC's payload, then the source note (or "") */
	CAP_IMAGE,		/* cap_space, __u64 addr, file_off, path, build ID (or "") */
	/*
	 * A traced user function's lines, by image (sym_resolver.image_src): the image's
	 * path, then CAP_SRC_IN's payload with the file offset for the address (its
	 * cap_space zero).
	 */
	CAP_IMAGE_SRC,
};

/* The address space of a CAP_*_IN or CAP_IMAGE record (struct addr_space). */
struct cap_space {
	__u32 kind;		/* enum addr_space_kind */
	__u32 pid;
};

/* CAP_SRC's n for a lookup cut short (a second Ctrl-C): no frames follow */
#define CAP_SRC_CUT 0xffffffffU

enum cap_view {
	VIEW_STACK = 0x1,
	VIEW_TRACE = 0x2,
	VIEW_LBR = 0x4,
	VIEW_FULL_LBR = 0x8,
	VIEW_UNFILTERED = 0x10,
	VIEW_EMIT_ADDRS = 0x20,
	VIEW_DEC_OFFS = 0x40,
	VIEW_PROBE_CTX = 0x80,	/* -J -T -A: probe rows show their context */
};

/*
 * struct view_opts in CAP_VIEWS and CAP_ARGS_VIEW, the one place that knows their bits.
 * The live run writes CAP_ARGS_VIEW only when it showed arguments and had plans for them.
 */
static inline void cap_views_encode(const struct view_opts *v, bool probe_ctx, __u32 views[2],
				    __u32 args_view[2])
{
	views[0] = (v->stack ? VIEW_STACK : 0) | (v->func_trace ? VIEW_TRACE : 0) |
		   (v->lbr ? VIEW_LBR : 0) | (v->full_lbr ? VIEW_FULL_LBR : 0) |
		   (v->unfiltered ? VIEW_UNFILTERED : 0) | (v->emit_addrs ? VIEW_EMIT_ADDRS : 0) |
		   (v->dec_offs ? VIEW_DEC_OFFS : 0) | (v->args && probe_ctx ? VIEW_PROBE_CTX : 0);
	views[1] = (__u32)v->lbr_max_count;
	args_view[0] = v->args_fmt;
	args_view[1] = (__u32)v->args_max_width;
}

/* CAP_VIEWS' payload into @v; returns whether probe rows show their context. */
static inline bool cap_views_decode(const __u32 views[2], struct view_opts *v)
{
	v->stack = views[0] & VIEW_STACK;
	v->func_trace = views[0] & VIEW_TRACE;
	v->lbr = views[0] & VIEW_LBR;
	v->full_lbr = views[0] & VIEW_FULL_LBR;
	v->unfiltered = views[0] & VIEW_UNFILTERED;
	v->emit_addrs = views[0] & VIEW_EMIT_ADDRS;
	v->dec_offs = views[0] & VIEW_DEC_OFFS;
	v->lbr_max_count = (int)views[1];
	return views[0] & VIEW_PROBE_CTX;
}

/* CAP_ARGS_VIEW's payload into @v: its presence says the run showed arguments. */
static inline void cap_args_view_decode(const __u32 args_view[2], struct view_opts *v)
{
	v->args = true;
	v->args_fmt = (enum args_fmt_mode)args_view[0];
	v->args_max_width = (int)args_view[1];
}

/* An address in its address space: the key of every symbol answer. */
struct cap_key {
	__u64 addr;
	__u32 kind;		/* enum addr_space_kind */
	__u32 pid;
};

static inline int cap_key_cmp(const void *a, const void *b)
{
	const struct cap_key *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

#endif
