/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * What every part of retsnoop's kernel half shares: the settings user space fills in
 * before load, struct session and the maps more than one part uses, the drop counters,
 * and the few helpers that keep the verifier's bounds and copies cheap. Settings and maps
 * that only one part reads are in that part's file.
 *
 * BPF-side only, for retsnoop.bpf.c and its parts (every src/<part>.bpf.h but
 * kprobe_ip.bpf.h); include it first, it says "no CO-RE" before vmlinux.h.
 */
#ifndef __RETSNOOP_STATE_BPF_H
#define __RETSNOOP_STATE_BPF_H

/*
 * No CO-RE: the only kernel structures read directly are the probe's registers, laid out
 * by the architecture's ptrace ABI; the few kernel fields read beyond that come as offsets
 * from feature detection (below). An object without CO-RE relocations is loaded without
 * libbpf parsing the vmlinux BTF again: a third of the default mode's load time.
 * tests/unit/test_tracer.c keeps it that way.
 */
#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#define BPF_NO_PRESERVE_ACCESS_INDEX
#endif
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "records.h"

/* Set by user space before load. */
const volatile bool emit_success_stacks = false;
const volatile bool emit_func_trace = false;
const volatile bool capture_lbr = false;
const volatile bool capture_args = false;		/* -A */
const volatile bool capture_ustack = false;		/* -U */
const volatile bool emit_interim_stacks = false;	/* -I */
const volatile bool use_cookies = false;	/* function id = BPF cookie */
const volatile bool has_func_ip = false;	/* bpf_get_func_ip() usable */
/* without both: stack slot above the BPF frame with the kretprobe's struct trace_kprobe */
const volatile int kret_ip_off = 0;
const volatile __u64 rb_size = 0;	/* ring buffer bytes; 0: never hold records back */
const volatile __u64 duration_ns = 0;		/* -L: minimum outermost latency */
#ifdef RETSNOOP_LITE
/*
 * The lite build (retsnoop_lite.skel.h), loaded by runs that ask for none of these: the
 * same programs, maps and settings, with the records and captures they gate compiled
 * out. The verifier then never meets that code: removing it from a loaded program, one
 * dead range at a time, was about 40 ms of instructions of a 7-function start (issue 25).
 */
#define emit_func_trace		0
#define capture_lbr		0
#define capture_args		0
#define capture_ustack		0
#define emit_interim_stacks	0
#endif
/*
 * Take kernel stacks by unwinding the current task rather than from the probe's registers:
 * kretprobe.multi on the function-graph tracer (6.14+) unwinds from its return handler
 * and stops at return_to_handler, the task's own unwinding follows the shadow stack.
 */
const volatile bool kstack_from_task = false;
/*
 * Where sessions live (enum sess_store). In task-local storage (5.11+) each thread
 * keeps its session slot for life and a new session only resets its header. The sessions
 * hash map (5.10) needs the whole zeroed template copied in at every session start (~10
 * KB, most of the per-call cost of tracing a short syscall) and a delete at its end. Where
 * the kernel has BPF's compare-and-swap, sessions live first in a table of
 * session_table_mask + 1 slots, a thread's at its id's low bits (session_slot.bpf.h): an
 * inlined array lookup where task storage's is a helper call that takes the CPU's storage
 * lock, both at entry and at exit.
 */
const volatile __u32 session_store = SESS_STORE_HASH;
const volatile __u32 session_table_mask = 0;
/* helpers that arrived in 5.17, and this kernel's field offsets (kernel_features.h) */
const volatile bool has_func_ret = false;
const volatile bool has_func_arg = false;
const volatile __u32 task_group_leader_off = 0;
const volatile __u32 task_comm_off = 0;
const volatile __u32 task_pid_off = 0;
const volatile __u32 task_stack_off = 0;	/* task_struct.stack (-U, exit_cut, irq_calls) */
const volatile __u32 tk_addr_off = 0;

/* Handlers do nothing until user space is ready to consume, and stop first on teardown. */
bool ready = false;

/*
 * Error chains kept aside per session. A caller whose callee failed often goes on calling
 * cleanup functions (void, or succeeding) before it returns the error; each of those calls
 * would overwrite the failed callee's chain, so the chain is kept in a fragment until the
 * caller returns. Cleanup functions can have failed callees of their own, hence a small
 * stack of fragments ordered by call level; past its size the innermost chain is not kept
 * (the outer ones decide what the session reports) and the sample says so.
 */
#define MAX_FRAGS	2

/*
 * LBR records a session and its fragments keep: none in the lite build, which never takes
 * them (--lbr loads the full one). A session is then 2.3 KB smaller: the session table's
 * 4,096 slots are kernel memory allocated and zeroed at every load (41.7 MB of it took 44
 * ms of a 7.2 start's instructions), task storage's slots and the hash map's template copy
 * at every session start shrink alike.
 */
#ifdef RETSNOOP_LITE
#define SESSION_LBR_ENTRIES	0
#else
#define SESSION_LBR_ENTRIES	MAX_LBR_ENTRIES
#endif

struct frag {
	__u32 start;		/* call level of the chain's first frame (its caller runs at start - 1) */
	__u32 last_seq_id;
	__s32 lbrs_sz;
	/*
	 * A later call of the same caller that could fail succeeded: the error may have been
	 * dealt with. The chain is used only if the caller fails with this very error.
	 */
	bool handled;
	/*
	 * The call that overwrote this chain was handed its failed frame's result, an
	 * ERR_PTR(), as an argument: if it fails with that error on its own, it only passed
	 * the error on (see passes_on()).
	 */
	bool passed_in;
	__u8 chain_flags;	/* the session's chain_flags when this chain was kept aside */
	struct call_stack cs;	/* frames [start, cs.max_depth), kernel stack of the failure */
	struct lbr_record lbrs[SESSION_LBR_ENTRIES];
};

/* struct session's frame0 */
#define FRAME0_SYSCALL	1	/* a syscall entry wrapper (FUNC_SYSCALL), see frame0_gone() */
#define FRAME0_TASK	2	/* run on the thread's own kernel stack (irq_calls.bpf.h) */
#define FRAME0_KNOWN	4	/* whether FRAME0_TASK holds is known (irq_calls.bpf.h) */

struct session {
	__u64 sess_id;
	__s64 owner;		/* the session table's: its thread's key, 0 when free */
	/* the table's: sessions of this home slot living in a later one; this one is away */
	__u32 displaced;
	bool away;
	__u8 probe;		/* the table's, when away: the slot is the home slot's + probe */
	__u64 start_ts;
	__u32 pid;
	__u32 tgid;
	__u32 next_seq_id;
	__u32 dropped_records;
	bool start_emitted;	/* SESSION_START is out: later records have a session */
	/*
	 * The completed frames [stack.depth, stack.max_depth) -- the last callee of the
	 * innermost running frame and its own chain -- are an error chain: each returned an
	 * error that the one below it returned first.
	 */
	bool tail_err;
	__u8 frag_cnt;
	/*
	 * SESS_F_INBAND: frames [0, inband_depth) are callers of the in-band error's carrier
	 * that have not returned yet (inband.bpf.h); it fits in what was padding.
	 */
	__u8 inband_depth;
	__u16 flags;		/* enum session_end_flags */
	__u32 overflow;		/* calls running beyond MAX_FSTACK_DEPTH, not recorded */
	/* the last failed syscall's errno, and the seq id of the traced frame it ran in */
	__u32 sys_err;
	__u32 sys_err_seq;
	/* where frame 0 entered on the kernel stack (0: a user frame), see frame0_gone() */
	__u64 kpos0;
	__u8 frame0;		/* FRAME0_*: what frame 0 is */
	/*
	 * What the error chain in @stack is (enum session_end_flags, sent with it; a kept
	 * chain carries its own, struct frag): SESS_F_CHAIN_LOST, it misses a part (a frame
	 * took itself for the origin where its callees' chain, which it would have put back,
	 * could not be kept aside); SESS_F_PASSED_ON, a call in it passed an error on.
	 */
	__u8 chain_flags;
	/*
	 * The last chain not kept aside (see lost_levels): its level + 1 (0: none), its
	 * error, and whether a later call of its caller that could fail succeeded. What
	 * decides whether a kept chain would be put back decides for this one too.
	 */
	__u8 lost_last;
	bool lost_handled;
	__s32 lost_err;
	/*
	 * A user frame's stack pointer at entry, its low 32 bits and flags (USP_*; 0 is a
	 * kernel frame), placed against usp_base, the session's first user frame's: the
	 * session fits in its task storage slot. See user_sp_code() (user_session.bpf.h).
	 */
	__u32 entry_sp[MAX_FSTACK_DEPTH];
	__u64 usp_base;
	/*
	 * Bit L: a chain of call level L could not be kept aside (MAX_FRAGS were in use).
	 * Whether that mattered is known when its caller returns: only if the caller then
	 * takes itself for the origin (settle_result()); most such chains are cleanup's own
	 * failures (a void caller, a scheduler's NULLs while the thread slept) and don't.
	 */
	__u64 lost_levels;
	struct call_stack stack;
	__s32 lbrs_sz;
	struct lbr_record lbrs[SESSION_LBR_ENTRIES];
	struct frag frags[MAX_FRAGS];
	/*
	 * Last, after the fragments: the verifier bounds copy_levels()' copies into the last
	 * fragment by each operand's range, not by their sum, and so sees them reach up to
	 * 216 bytes past its call stack, which the lite build has no LBR records behind.
	 */
	__u64 entry_ts[MAX_FSTACK_DEPTH];
};

_Static_assert(sizeof(struct session) <= SESSION_SLOT_PROBE_SIZE,
	       "feature detection must try a task storage slot at least as large as a session");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);			/* resized to the function count */
	__type(key, __u32);
	__type(value, struct func_info);
} func_infos SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 * 1024 * 1024);	/* bpf.ringbuf-size */
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct drop_stats);
} stats SEC(".maps");

/*
 * A frame index the verifier can bound on every kernel: older verifiers lose the range
 * of an index that went through the fragment-saving loop, and clang would drop a plain
 * mask it can prove redundant.
 */
static __always_inline __u32 frame_idx(__u32 d)
{
	barrier_var(d);
	return d & (MAX_FSTACK_DEPTH - 1);
}

/*
 * Bulk copies between our own maps and ring buffer records. clang can't inline a large
 * memcpy() in BPF code, and a loop costs the verifier every iteration -- in each of the
 * thousands of program clones that -F loads; one helper call costs it one instruction.
 */
static __always_inline void copy_words(void *dst, const void *src, __u32 sz)
{
	bpf_probe_read_kernel(dst, sz, src);
}

/*
 * A record's enum session_end_flags: the chain it sends misses a part, or a chain that
 * could not be kept aside was not settled yet (its caller never returned to us).
 */
static __always_inline __u16 sess_end_flags(const struct session *sess)
{
	return sess->flags | sess->chain_flags | (sess->lost_levels ? SESS_F_CHAIN_LOST : 0);
}

/*
 * How a record that user space needs only once its session's sample or end arrives (a
 * start, -T and -A records, an LBR or user stack record before a sample, the end of a
 * session not reported) is submitted: without waking the reader, which reads it at its
 * next wakeup or poll timeout. A wakeup is an irq_work, an interrupt and a task wakeup
 * each time the reader has caught up: with -A on a getpid() loop, every call. A buffer
 * a quarter full wakes the reader as usual, so that it never fills meanwhile.
 */
static __always_inline __u64 quiet_rec_flags(void)
{
	if (rb_size && bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) < rb_size / 4)
		return BPF_RB_NO_WAKEUP;
	return 0;
}

/*
 * How a record user space waits for (a session's end, an interim or in-band sample) is
 * submitted: with a wakeup, forced. The kernel's default wakes the reader only if it had
 * read everything before the record, and the session's quiet records (its start at least)
 * are still unread then: the sample waited for the reader's 100 ms poll timeout, most of
 * the time from an error to its stack on the screen.
 */
static __always_inline __u64 sample_rec_flags(void)
{
	return BPF_RB_FORCE_WAKEUP;
}

static __always_inline struct drop_stats *drop_stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stats, &zero);
}

static __always_inline void count_dropped_record(struct session *sess)
{
	struct drop_stats *st;

	if (sess->dropped_records++ == 0 && (st = drop_stats()))
		__sync_fetch_and_add(&st->incomplete_sessions, 1);
}

#endif /* __RETSNOOP_STATE_BPF_H */
