/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The decoded sample: everything one captured session shows, built once from its records
 * and read by every sink (text, JSON). Sinks never look at BPF record layouts; every
 * decision about what the session means (which frames, in which order, with which markers,
 * which result counts as an error, which LBR records are relevant) is taken here.
 */
#ifndef RETSNOOP_SAMPLE_H
#define RETSNOOP_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "func.h"
#include "probe_spec.h"
#include "session.h"
#include "sym_resolver.h"
#include "ustack.h"
#include "view.h"

struct func_arg_plan;
struct arg_plans;

/* The arguments a traced call was entered with (-A), as captured. */
struct sample_args {
	const struct func_arg_plan *plan;	/* names, kinds, types; NULL if missing */
	bool missing;			/* -A was on but the record was lost: "... data missing ..." */
	bool raw_ptrs;			/* pointer values were captured too */
	__u16 ptr_mask;			/* see struct rec_fnargs */
	int arg_cnt;
	__s16 lens[MAX_FNARGS];
	const __u8 *data;
	__u32 data_len;
};

/*
 * One line of the stack view, outermost first: a kernel stack frame, a traced function,
 * or both (the traced function's own frame in the kernel stack).
 */
struct sample_frame {
	bool has_kframe;		/* @loc is a kernel stack entry */
	bool filtered;			/* BPF machinery, kept only with stacks.unfiltered */
	int func_id;			/* traced function, -1 for a kernel-only frame */
	/*
	 * Traced frames without a kernel frame (the '!' marker) have @loc at the function's
	 * start, with its source location where known.
	 */
	struct code_loc loc;
	bool running;			/* not returned when the sample was taken */
	/*
	 * Never returned: longjmp() or a C++ exception left it, or its thread exited inside
	 * it (LAT_NO_RETURN); @dur_ns is the time until that was seen, @res why (NORET_*),
	 * @failed nothing.
	 */
	bool no_return;
	/* @no_return because its thread exited inside it (sample.exited), not longjmp() */
	bool exit_cut;
	bool stitched;			/* from an error chain kept aside (the '*' marker) */
	bool failed;			/* the result counts as an error (result__is_err) */
	/*
	 * Error samples: where the sample's error originated (the '!' marker), the deepest
	 * traced frame of the unbroken run, from the outermost returned one down, that
	 * returned that error. Traced frames below it that failed with another error are
	 * @replaced (the '^' marker): a caller made its own error of theirs.
	 */
	bool origin;
	bool replaced;
	__u64 dur_ns;
	__s64 res;			/* raw 64-bit result */
	__u32 seq_id;			/* traced frames: the call's entry */
	const struct sample_args *args;	/* traced frames with -A, else NULL */
	/*
	 * Failed user-space functions of the chain: the errno of a syscall that failed
	 * inside the chain's deepest user frame ("[-1 ENOENT]"); 0: none seen.
	 */
	int sys_err;
};

enum trace_row_kind {
	TRACE_ENTRY,			/* "→" */
	TRACE_EXIT,			/* "←" */
	TRACE_LEAF,			/* "↔": an entry directly followed by its exit */
	TRACE_GAP,			/* records lost in between */
	TRACE_PROBE,			/* "◎": an injected probe's hit (-J) */
};

/* One row of the -T call trace. */
struct trace_row {
	enum trace_row_kind kind;
	__u32 depth;			/* 1-based call level (a hit: one below its caller) */
	int func_id;			/* -1 for TRACE_GAP and TRACE_PROBE */
	int probe_id;			/* TRACE_PROBE: index into the sample's probes */
	__u32 seq_id;
	__u64 ts;			/* CLOCK_MONOTONIC ns of the entry, exit or hit */
	__u64 dur_ns;			/* TRACE_EXIT, TRACE_LEAF */
	__s64 res;			/* TRACE_EXIT, TRACE_LEAF */
	bool failed;
	/* TRACE_EXIT: the call never returned (no_return_why()), @ts when that was seen */
	bool no_return;
	bool exit_cut;			/* @no_return: the thread exited inside it */
	/* TRACE_EXIT, TRACE_LEAF: the call's frame's sys_err (a failed traced user call) */
	int sys_err;
	__u32 missing;			/* TRACE_GAP: records lost */
	/* TRACE_ENTRY, TRACE_LEAF with -A (TRACE_PROBE: the probe's context), else NULL */
	const struct sample_args *args;
};

struct sample_lbr {
	struct code_loc from, to;
	__u64 flags;
};

/* When the sample was taken. */
enum sample_kind {
	SAMPLE_FINAL,			/* the session ended: its entry function returned */
	/*
	 * -I, the session still running (frames not returned yet are marked running):
	 * an injected probe fired (@probe_id), or an error chain (with -S: any completed
	 * chain) was about to be overwritten by a later call of its caller.
	 */
	SAMPLE_PROBE,
	SAMPLE_STITCH,
};

struct sample_pool;

struct sample {
	__u64 sess_id;
	__u32 tid, pid;
	char task_comm[17], proc_comm[17];	/* NUL-terminated, arbitrary bytes */
	__u64 start_ns, end_ns;		/* CLOCK_MONOTONIC: session start, sample taken */
	__s64 clock_off_ns;		/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	enum sample_kind kind;
	int probe_id;			/* SAMPLE_PROBE: index into @probes, else -1 */
	/* the entry function returned an error (interim: the chain shown is an error chain) */
	bool is_err;
	/*
	 * In-band error (is_err set too): the session ended well, but an error went back to
	 * user space in a message (a netlink ack). @inband_func is the carrier it was handed
	 * to (a function id), @inband_err that error (negative errno), @inband_level the
	 * carrier's call level: traced frames below it are the chain that made the error;
	 * none when the carrier's caller made it itself (that caller is the origin).
	 */
	bool inband;
	int inband_func;
	int inband_err;
	int inband_level;
	/*
	 * The session's thread exited inside it (SESS_F_EXITED): its frames still running
	 * then never returned (their exit_cut). @exit_code is the thread's (a wait status:
	 * status << 8, or the signal), @exit_own: by its own exit() or exit_group() call;
	 * @exit_why says it in words ("the thread exited with status 3").
	 */
	bool exited;
	bool exit_own;
	int exit_code;
	const char *exit_why;

	const struct func *funcs;	/* the table function ids refer to */
	size_t func_cnt;
	const struct probe_spec *probes;	/* the table probe ids refer to (-J) */
	size_t probe_cnt;

	struct sample_frame *frames;	/* stack view, outermost first */
	size_t frame_cnt;
	int deepest;			/* index of the deepest traced frame, -1 if none */

	bool has_trace;			/* -T was on */
	struct trace_row *rows;
	size_t row_cnt;

	bool has_args;			/* -A was on */

	bool has_lbr;			/* --lbr was on */
	bool lbr_missing;		/* its record was dropped */
	int lbr_err;			/* negative errno from the kernel, 0 if fine */
	struct sample_lbr *lbrs;	/* [0] is the most recent branch */
	size_t lbr_cnt;
	/*
	 * Records [lbr_first, lbr_cnt) are relevant: taken up to the deepest traced function
	 * (the more recent ones come from retsnoop's own probe machinery). lbr_relevant false:
	 * none touched it, so all are shown with a note.
	 */
	size_t lbr_first;
	bool lbr_relevant;

	/*
	 * -U: the user-space stack of the thread that entered the kernel, outermost first
	 * (shown above frames[]); every location is in the process's address space, with
	 * the binary or library it is in.
	 */
	bool has_ustack;		/* -U was on */
	bool ustack_missing;		/* its record was dropped */
	/*
	 * taken after the failed call: its syscall returned unseen and the session ended at
	 * the thread's next traced call or exit (USTACK_F_LATE)
	 */
	bool ustack_late;
	struct code_loc *uframes;
	size_t uframe_cnt;
	/* why the user stack ends before its outermost frame (or has none); NULL: complete */
	const char *ustack_note;

	/*
	 * Why a sample with traced kernel functions has no kernel frames at all (the kernel
	 * could not take the stack, or its unwinder stopped inside retsnoop's own probe);
	 * NULL: taken, or nothing to take (a user-space-only session).
	 */
	const char *kstack_note;

	/* what was lost */
	__u32 dropped_records;		/* records of this session the ring buffer couldn't take */
	size_t trace_lost;		/* -T records over the consumer's memory budget */
	size_t args_lost;		/* -A records over the consumer's memory budget */
	bool chain_lost;		/* a nested error chain wasn't kept (SESS_F_CHAIN_LOST) */
	bool truncated;			/* calls nested deeper than recorded (SESS_F_TRUNCATED) */
	/*
	 * A call of the chain only passed on the error pointer it was handed, which its
	 * previous sibling had failed with: the chain shown is that sibling's (SESS_F_PASSED_ON)
	 */
	bool passed_on;

	struct sample_pool *pool;	/* private: owns every string and array above */
	char exit_noret[96];		/* private: no_return_why() of an exit-cut frame */
};

/*
 * Why a frame has no result (sample_frame.no_return), in the stack view and JSON: its
 * thread exited inside it (@exit_cut), a user function longjmp() or an exception left, or
 * a kernel entry function whose return the kernel ran no exit probe for (LOST SESSION
 * ENDS).
 */
static inline const char *no_return_why(const struct sample *s, __u32 func_flags,
					 bool exit_cut)
{
	if (exit_cut)
		return s->exit_noret;
	return func_flags & FUNC_USER ? "skipped by longjmp/exception: no return seen" :
	       "the kernel skipped its exit probe: no return seen";
}

struct sample_build_opts {
	size_t sz;			/* sizeof(struct sample_build_opts) */
	const struct func *funcs;
	size_t func_cnt;
	struct sym_resolver syms;
	__s64 clock_off_ns;
	/* what to decode: func_trace (-T rows), lbr, and what unfiltered/full_lbr keep */
	struct view_opts view;
	const struct arg_plans *args;	/* -A: how each function's arguments were captured */
	const struct probe_spec *probes;	/* -J: the injected probes, by id */
	size_t probe_cnt;
	/* -J -T -A: how each probe's context was captured, by probe id; NULL: not shown */
	const struct arg_plans *probe_args;
	bool ustack;			/* -U */
	struct ustack_resolver ustacks;	/* -U: unwinds the captured user stacks */
};

/* Decode one session's records. Returns 0 with *out set (sample__free() it), or -errno. */
int sample__build(const struct sess_recs *r, const struct sample_build_opts *o,
		  struct sample **out);
void sample__free(struct sample *s);

/* The function of traced frame @f (NULL for kernel-only frames). */
static inline const struct func *sample__func(const struct sample *s, int func_id)
{
	return func_id < 0 ? NULL : func__get(s->funcs, s->func_cnt, func_id);
}

/* The name of probe @probe_id in the trace table: "tp:sched:sched_process_exec", ... */
static inline const char *sample__probe(const struct sample *s, int probe_id)
{
	return probe_spec__display(s->probes, s->probe_cnt, probe_id);
}

#endif
