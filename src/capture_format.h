/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The capture file's layout, shared by its writer (capture.c) and reader (replay.c); see
 * capture.h for the format's outline.
 */
#ifndef RETSNOOP_CAPTURE_FORMAT_H
#define RETSNOOP_CAPTURE_FORMAT_H

#include <linux/types.h>

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

static inline int cap_addr_cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

#endif
