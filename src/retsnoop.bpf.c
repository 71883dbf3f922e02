// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0)
/*
 * retsnoop's kernel half: per-thread call sessions over the traced functions.
 *
 * A session starts when an entry function is called on a thread that has none, follows
 * every traced call on that thread (push on entry, pop on exit) and ends when the entry
 * function returns. Along the way it keeps the deepest error-returning chain (or, with
 * -S, the deepest completed chain) with the kernel stack and LBR captured where the error
 * originated, and emits it through the ring buffer as one REC_SESSION_END.
 *
 * The same handlers serve every attach mode: kprobe/kretprobe (single or multi, function
 * id from the BPF cookie or an ip -> id map) and fentry/fexit clones (id from the ip).
 */
/*
 * No CO-RE: the only kernel structures read directly are the probe's registers, laid out
 * by the architecture's ptrace ABI; the few kernel fields read beyond that come as offsets
 * from feature detection (below). An object without CO-RE relocations is loaded without
 * libbpf parsing the vmlinux BTF again: a third of the default mode's load time.
 * tests/unit/test_tracer.c keeps it that way.
 */
#define BPF_NO_PRESERVE_ACCESS_INDEX
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "records.h"
#include "kprobe_ip.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by user space before load. */
const volatile bool emit_success_stacks = false;
const volatile bool emit_func_trace = false;
const volatile bool capture_lbr = false;
const volatile bool use_cookies = false;	/* function id = BPF cookie */
const volatile bool has_func_ip = false;	/* bpf_get_func_ip() usable */
/* without both: stack slot above the BPF frame with the kretprobe's struct trace_kprobe */
const volatile int kret_ip_off = 0;
const volatile __u64 rb_size = 0;	/* ring buffer bytes; 0: never hold records back */
const volatile __u64 duration_ns = 0;		/* -L: minimum outermost latency */
const volatile __u32 tgid_allow_cnt = 0, tgid_deny_cnt = 0;
const volatile __u32 comm_allow_cnt = 0, comm_deny_cnt = 0;
/* retsnoop and its helpers: tracing them would trace our own output (a feedback loop) */
const volatile __u32 excluded_tgids[MAX_EXCLUDED_TGIDS] = {};
const volatile __u32 excluded_cnt = 0;
/*
 * Take kernel stacks by unwinding the current task rather than from the probe's registers:
 * kretprobe.multi on the function-graph tracer (6.14+) unwinds from its return handler
 * and stops at return_to_handler, the task's own unwinding follows the shadow stack.
 */
const volatile bool kstack_from_task = false;
/*
 * Sessions live in task-local storage (5.11+): each thread keeps its session slot for
 * life and a new session only resets its header. The sessions hash map (5.10) needs the
 * whole zeroed template copied in at every session start (~10 KB, most of the per-call
 * cost of tracing a short syscall) and a delete at its end.
 */
const volatile bool use_task_storage = false;
/* helpers that arrived in 5.17, and this kernel's field offsets (kernel_features.h) */
const volatile bool has_func_ret = false;
const volatile bool has_func_arg = false;
const volatile __u32 task_group_leader_off = 0;
const volatile __u32 task_comm_off = 0;
const volatile __u32 task_pid_off = 0;
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

struct frag {
	__u32 start;		/* call level of the chain's first frame (its caller runs at start - 1) */
	__u32 last_seq_id;
	__s32 lbrs_sz;
	/*
	 * A later call of the same caller that could fail succeeded: the error may have been
	 * dealt with. The chain is used only if the caller fails with this very error.
	 */
	bool handled;
	struct call_stack cs;	/* frames [start, cs.max_depth), kernel stack of the failure */
	struct lbr_record lbrs[MAX_LBR_ENTRIES];
};

struct session {
	__u64 sess_id;
	__u64 start_ts;
	__u32 pid;
	__u32 tgid;
	char task_comm[TASK_COMM_LEN];
	char proc_comm[TASK_COMM_LEN];
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
	__u16 flags;		/* enum session_end_flags */
	__u32 overflow;		/* calls running beyond MAX_FSTACK_DEPTH, not recorded */
	/* the last failed syscall's errno, and the seq id of the traced frame it ran in */
	__u32 sys_err;
	__u32 sys_err_seq;
	__u64 entry_ts[MAX_FSTACK_DEPTH];
	struct call_stack stack;
	__s32 lbrs_sz;
	struct lbr_record lbrs[MAX_LBR_ENTRIES];
	struct frag frags[MAX_FRAGS];
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
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);			/* resized when ids come from ips */
	__type(key, __u64);
	__type(value, __u32);
} ip_to_id SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);		/* bpf.sessions-size */
	__type(key, __s64);
	__type(value, struct session);
} sessions SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct session);
} task_sessions SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 * 1024 * 1024);	/* bpf.ringbuf-size */
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, bool);			/* true: allow, false: deny */
} tgids_filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, char[TASK_COMM_LEN]);
	__type(value, bool);
} comms_filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct session);		/* zeroed template for new sessions */
} empty_session SEC(".maps");

struct lbr_snapshot {
	__s32 sz;
	struct lbr_record lbrs[MAX_LBR_ENTRIES];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lbr_snapshot);
} lbr_snaps SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct drop_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} running SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sess_counts);
} sess_seq SEC(".maps");

/*
 * A session id without a fetching atomic (5.10's verifier rejects any but a plain add):
 * the low half is the session key, unique among live sessions; the high half a per-CPU
 * sequence and the CPU, which tell successive sessions of one thread apart. The same
 * per-CPU slot counts the session as live (end_session() takes it off), one lookup for both.
 */
static __always_inline __u64 new_sess_id(__s64 key)
{
	__u32 zero = 0, cpu = bpf_get_smp_processor_id();
	struct sess_counts *c = bpf_map_lookup_elem(&sess_seq, &zero);
	__u64 n = 0;

	if (c) {
		n = c->seq++;
		c->live++;
	}
	return n << 40 | (__u64)(cpu & 0xff) << 32 | (__u32)key;
}

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

static __always_inline struct drop_stats *drop_stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stats, &zero);
}

/*
 * May this thread start a session? Checked once per session, not per event: a thread that
 * passes keeps its session until the entry function returns.
 */
static __always_inline bool session_allowed(__u64 pid_tgid)
{
	__u32 tgid = pid_tgid >> 32, i;
	bool *allow;

	for (i = 0; i < MAX_EXCLUDED_TGIDS; i++) {
		if (i >= excluded_cnt)
			break;
		if (excluded_tgids[i] == tgid)
			return false;
	}
	if (tgid_allow_cnt || tgid_deny_cnt) {
		allow = bpf_map_lookup_elem(&tgids_filter, &tgid);
		if (allow ? !*allow : tgid_allow_cnt > 0)
			return false;
	}
	if (comm_allow_cnt || comm_deny_cnt) {
		char comm[TASK_COMM_LEN] = {};

		bpf_get_current_comm(comm, sizeof(comm));
		allow = bpf_map_lookup_elem(&comms_filter, comm);
		if (allow ? !*allow : comm_allow_cnt > 0)
			return false;
	}
	return true;
}

/* Idle tasks all have pid 0: key them per CPU so they never share a session. */
static __always_inline __s64 session_key(__u64 pid_tgid)
{
	__u32 pid = (__u32)pid_tgid;

	return pid ? (__s64)pid : -(1 + (__s64)bpf_get_smp_processor_id());
}

static __always_inline bool user_is_err_result(__u32 flags, __s64 res);

/* Must match result__is_err() in user space: one rule for the stack and the call trace. */
static __always_inline bool is_err_result(__u32 flags, __s64 res)
{
	if (flags & FUNC_CANT_FAIL)
		return false;
	if (flags & FUNC_USER)
		return user_is_err_result(flags, res);
	if (flags & FUNC_RET_PTR)
		return res == 0 || (res >= -MAX_ERRNO && res < 0);
	if (flags & FUNC_NEEDS_SIGN_EXT)
		res = (__s32)res;
	return res >= -MAX_ERRNO && res < 0;
}

#include "records.bpf.h"
#include "args.bpf.h"

#include "session_slot.bpf.h"

/* Copy call levels [from, to) of the traced frames from @src to @dst. */
static __always_inline void copy_levels(struct call_stack *dst, const struct call_stack *src,
					__u32 from, __u32 to)
{
	__u32 n;

	if (to > MAX_FSTACK_DEPTH || from >= to)
		return;
	/*
	 * Four helper calls rather than a loop over the levels (see copy_words()). The mask
	 * and the test only give the verifier bounds: from < to <= MAX_FSTACK_DEPTH holds.
	 */
	n = to - from;
	from = frame_idx(from);
	barrier_var(n);
	if (n > MAX_FSTACK_DEPTH)
		return;
	/* older verifiers (6.1) need the sizes made from the very register just tested */
	barrier_var(n);
	n &= 2 * MAX_FSTACK_DEPTH - 1;
	bpf_probe_read_kernel(&dst->func_ids[from], n * sizeof(__u32), &src->func_ids[from]);
	bpf_probe_read_kernel(&dst->seq_ids[from], n * sizeof(__u32), &src->seq_ids[from]);
	bpf_probe_read_kernel(&dst->func_res[from], n * sizeof(__s64), &src->func_res[from]);
	bpf_probe_read_kernel(&dst->func_lat[from], n * sizeof(__u64), &src->func_lat[from]);
}

/* Bits for call levels >= @from (and < 64). */
static __always_inline __u64 levels_from(__u32 from)
{
	return from >= MAX_FSTACK_DEPTH ? 0 : ~0ULL << from;
}

/*
 * A call at level @d is about to overwrite the error chain [d, max_depth) that its caller's
 * previous callee returned: keep it aside until the caller returns.
 */
static __always_inline void keep_chain(struct session *sess, __u32 d)
{
	__u32 n = sess->frag_cnt, slot;
	struct frag *f;

	if (n > 0 && sess->frags[(n - 1) & (MAX_FRAGS - 1)].start == d) {
		/* an earlier failed callee of the same caller: the later error replaces it */
		slot = n - 1;
	} else if (n < MAX_FRAGS) {
		slot = n;
		sess->frag_cnt = n + 1;
	} else {
		sess->flags |= SESS_F_CHAIN_LOST;
		return;
	}
	f = &sess->frags[slot & (MAX_FRAGS - 1)];
	f->start = d;
	f->handled = false;
	/* the chain's last record: the call overwriting it already took next_seq_id - 1 */
	f->last_seq_id = sess->next_seq_id - 2;
	f->cs.max_depth = sess->stack.max_depth;
	f->cs.stitched = sess->stack.stitched;
	f->cs.kstack_sz = sess->stack.kstack_sz;
	copy_words(f->cs.kstack, sess->stack.kstack, sizeof(f->cs.kstack));
	if (capture_lbr) {
		f->lbrs_sz = sess->lbrs_sz;
		copy_words(f->lbrs, sess->lbrs, sizeof(f->lbrs));
	}
	copy_levels(&f->cs, &sess->stack, d, sess->stack.max_depth);
}

/* The frame at level @d failed after its failed callee's chain was kept aside: put it back. */
static __always_inline void restore_chain(struct session *sess, struct frag *f, __u32 d)
{
	__u32 end = f->cs.max_depth;

	copy_levels(&sess->stack, &f->cs, d + 1, end);
	sess->stack.max_depth = end;
	sess->stack.stitched = (sess->stack.stitched & ~levels_from(d)) | levels_from(d + 1);
	sess->stack.kstack_sz = f->cs.kstack_sz;
	copy_words(sess->stack.kstack, f->cs.kstack, sizeof(sess->stack.kstack));
	if (capture_lbr) {
		sess->lbrs_sz = f->lbrs_sz;
		copy_words(sess->lbrs, f->lbrs, sizeof(sess->lbrs));
	}
}

#include "interim.bpf.h"
#include "tgid_set.bpf.h"

/* @fentry: @ctx is an fentry context, else the kprobe's pt_regs (for -A). */
static __always_inline int handle_entry(void *ctx, __u32 id, bool fentry)
{
	struct session *sess, *slot;
	struct func_info *fi;
	__u64 now, pid_tgid;
	__s64 key;
	__u32 d, seq;

	/* one storage lookup: a new session reuses the thread's slot found here */
	key = probe_session_key();
	slot = session_slot(key);
	sess = slot_session(slot);
	if (!sess) {
		fi = bpf_map_lookup_elem(&func_infos, &id);
		if (!fi || !(fi->flags & FUNC_IS_ENTRY))
			return 0;
		pid_tgid = bpf_get_current_pid_tgid();
		if (!session_allowed(pid_tgid))
			return 0;
		now = bpf_ktime_get_ns();
		sess = start_session(key, slot, pid_tgid, now);
		if (!sess)
			return 0;
	} else {
		now = bpf_ktime_get_ns();
	}

	d = sess->stack.depth;
	if (d >= MAX_FSTACK_DEPTH) {
		/* too deep to record: follow the nesting so the session goes on above it */
		sess->overflow++;
		sess->flags |= SESS_F_TRUNCATED;
		return 0;
	}
	seq = sess->next_seq_id++;
	if (emit_interim_stacks && d < sess->stack.max_depth)
		emit_stitch_sample(sess, d, now, seq);
	if (sess->tail_err && d < sess->stack.max_depth)
		keep_chain(sess, d);
	d = frame_idx(d);

	sess->stack.func_ids[d] = id;
	sess->stack.seq_ids[d] = seq;
	sess->stack.func_res[d] = 0;
	sess->stack.func_lat[d] = 0;
	sess->entry_ts[d] = now;
	sess->stack.depth = d + 1;
	sess->stack.max_depth = d + 1;
	sess->stack.stitched &= ~levels_from(d);
	sess->tail_err = false;

	if (emit_func_trace)
		emit_func_trace_rec(sess, REC_FUNC_TRACE_ENTRY, id, now, seq, d + 1, 0, 0);
	if (capture_args)
		emit_fn_args(ctx, fentry, sess, id, seq);
	return 0;
}

static __always_inline void capture_origin(void *ctx, struct session *sess, __u32 flags)
{
	struct lbr_snapshot *snap;
	__u32 zero = 0;

	/* a uprobe's kernel stack is the breakpoint trap's: nothing of the program's */
	if (flags & FUNC_USER) {
		sess->stack.kstack_sz = 0;
		sess->lbrs_sz = 0;
		return;
	}

	if (kstack_from_task)
		sess->stack.kstack_sz = bpf_get_task_stack(bpf_get_current_task_btf(),
							   sess->stack.kstack,
							   sizeof(sess->stack.kstack), 0);
	else
		sess->stack.kstack_sz = bpf_get_stack(ctx, sess->stack.kstack,
						      sizeof(sess->stack.kstack), 0);
	if (!capture_lbr)
		return;
	snap = bpf_map_lookup_elem(&lbr_snaps, &zero);
	if (!snap)
		return;
	sess->lbrs_sz = snap->sz;
	copy_words(sess->lbrs, snap->lbrs, sizeof(sess->lbrs));
}

/* The same error: errnos agree in their low 32 bits, for int, long and ERR_PTR() alike. */
static __always_inline bool same_error(__s64 a, __s64 b)
{
	return (__s32)a == (__s32)b;
}

/*
 * The frame at level @d returned @res. Decide what the session's error chain is now:
 * - failed after a failed last callee: the error came from there, the chain goes on below;
 * - failed after a non-failing last callee, with an earlier failed callee's chain kept
 *   aside: the error came from that chain (cleanup ran in between), put it back -- unless
 *   a later callee that could fail succeeded and this frame's error is another one (then
 *   the earlier error was dealt with, and this frame made its own);
 * - failed otherwise: this frame is where the error originated (kernel stack taken here);
 * - succeeded although it could fail: an earlier failed sibling's chain may have been
 *   dealt with (marked, see struct frag);
 * - can't fail (void, bool, ...): says nothing about errors.
 */
static __always_inline void settle_result(void *ctx, struct session *sess, __u32 d,
					  __u32 flags, __s64 res)
{
	__u32 n = sess->frag_cnt;
	struct frag *top = &sess->frags[(n - 1) & (MAX_FRAGS - 1)];
	bool failed = is_err_result(flags, res);
	bool own = n > 0 && top->start == d + 1;	/* kept aside for this frame's callees */

	if (failed && !sess->tail_err) {
		if (own && (!top->handled ||
			    same_error(res, top->cs.func_res[frame_idx(top->start)]))) {
			restore_chain(sess, top, d);
		} else {
			sess->stack.max_depth = d + 1;
			sess->stack.stitched &= ~levels_from(d);
			capture_origin(ctx, sess, flags);
		}
	} else if (!failed && emit_success_stacks && d + 1 == sess->stack.max_depth) {
		/* success samples show the most recently completed deepest path */
		capture_origin(ctx, sess, flags);
	}
	sess->tail_err = failed;

	/* a chain kept aside for this frame's callees is used up or stale now */
	if (own)
		sess->frag_cnt = --n;
	/* a sibling's failure that this successful call may have dealt with */
	if (!failed && !(flags & FUNC_CANT_FAIL) && n > 0)
		sess->frags[(n - 1) & (MAX_FRAGS - 1)].handled |=
			sess->frags[(n - 1) & (MAX_FRAGS - 1)].start == d;
}

static __always_inline void note_sys_err(struct session *sess, __u32 d, __u32 flags, __s64 res);

/*
 * The frame on top of our stack is not the one returning. On 7.x kprobe.multi sits on the
 * function-graph tracer and the kernel skips (and counts as the program's recursion miss)
 * an entry or exit probe that fires while another of our programs runs on that CPU: an
 * interrupt's functions, or a call made while a preempted handler holds the CPU's BPF
 * slot. Measured on 7.2: a glob-less hunt of errtrig's 19 cases saw 278,791 entry and
 * 350,618 exit misses, and every mismatch dropped its whole session (2-17 of 20 samples).
 * A lost exit only leaves frames above the returning one: pop them (they never returned to
 * us, so they hold no result). A lost entry leaves an exit we never pushed: skip it.
 * Either way the session keeps the frames it did see; count the calls not recorded.
 * Returns the returning frame's index, or -1 to skip this exit.
 */
static __always_inline int resync_stack(struct session *sess, __u32 top, __u32 id)
{
	struct drop_stats *st = drop_stats();
	__u32 i, j, k;

	for (i = 1; i < MAX_FSTACK_DEPTH; i++) {
		if (i > top)
			break;
		j = frame_idx(top - i);
		if (sess->stack.func_ids[j] != id)
			continue;
		if (st)
			__sync_fetch_and_add(&st->skipped_calls, i);
		/* the chains kept aside for a popped frame's callees are stale */
		for (k = 0; k < MAX_FRAGS; k++) {
			if (sess->frag_cnt == 0 ||
			    sess->frags[(sess->frag_cnt - 1) & (MAX_FRAGS - 1)].start <= j + 1)
				break;
			sess->frag_cnt--;
		}
		return j;
	}
	if (st)
		__sync_fetch_and_add(&st->skipped_calls, 1);
	return -1;
}

static __always_inline int handle_exit(void *ctx, __u32 id, __s64 res)
{
	struct func_info *fi;
	struct session *sess;
	__u64 now, lat;
	__u32 d, seq, flags;
	__s64 key;

	key = probe_session_key();
	sess = find_session(key);
	if (!sess)
		return 0;
	now = bpf_ktime_get_ns();
	if (sess->overflow) {
		sess->overflow--;
		return 0;
	}

	d = sess->stack.depth;
	seq = sess->next_seq_id++;
	if (d == 0 || d > MAX_FSTACK_DEPTH)
		goto lost;
	d = frame_idx(d - 1);
	if (sess->stack.func_ids[d] != id) {
		int r = resync_stack(sess, d, id);

		if (r < 0)
			return 0;	/* its entry was skipped by the kernel: not in our stack */
		d = frame_idx(r);	/* bounded again: 6.12's verifier lost the bound */
	}

	fi = bpf_map_lookup_elem(&func_infos, &id);
	flags = fi ? fi->flags : 0;
	lat = now - sess->entry_ts[d];
	sess->stack.func_res[d] = res;
	sess->stack.func_lat[d] = lat;
	sess->stack.depth = d;
	settle_result(ctx, sess, d, flags, res);
	if (flags & FUNC_USER)
		note_sys_err(sess, d, flags, res);

	if (emit_func_trace)
		emit_func_trace_rec(sess, REC_FUNC_TRACE_EXIT, id, now, seq, d + 1, lat, res);

	if (d == 0) {
		emit_session_end(sess, now, false);
		end_session(sess, key);
	}
	return 0;

lost:
	/* Tell user space to forget an announced session; count it as dropped. */
	if (sess->start_emitted)
		emit_session_end(sess, now, true);
	{
		struct drop_stats *st = drop_stats();

		if (st)
			__sync_fetch_and_add(&st->dropped_sessions, 1);
	}
	end_session(sess, key);
	return 0;
}

/* Snapshot LBRs first thing in an exit handler, before our own code overwrites them. */
static __always_inline void snapshot_lbrs(void)
{
	struct lbr_snapshot *snap;
	__u32 zero = 0;

	if (!capture_lbr)
		return;
	snap = bpf_map_lookup_elem(&lbr_snaps, &zero);
	if (snap)
		snap->sz = bpf_get_branch_snapshot(snap->lbrs, sizeof(snap->lbrs), 0);
}

static __always_inline bool func_id_by_ip(__u64 ip, __u32 *id)
{
	__u32 *p = bpf_map_lookup_elem(&ip_to_id, &ip);

	if (!p)
		return false;
	*id = *p;
	return true;
}

static __always_inline bool kprobe_func_id(struct pt_regs *ctx, __u32 *id, bool is_ret)
{
	if (use_cookies) {
		*id = bpf_get_attach_cookie(ctx);
		return true;
	}
	if (has_func_ip)
		return func_id_by_ip(bpf_get_func_ip(ctx), id);
	/* Without bpf_get_func_ip() the kprobe side knows its ip (int3 already ran)... */
	if (!is_ret)
		return func_id_by_ip(PT_REGS_IP(ctx) - KPROBE_IP_ADJ, id);
	/* ...and the kretprobe side finds it in its trace_kprobe, where calibration saw it */
	if (kret_ip_off > 0 && kret_ip_off <= MAX_KRET_IP_SLOT)
		return func_id_by_ip(kretprobe_slot_ip(kret_ip_off, tk_addr_off), id);
	return false;
}

SEC("kprobe")
int kentry(struct pt_regs *ctx)
{
	__u32 id;

	if (!ready || !task_traced() || !kprobe_func_id(ctx, &id, false))
		return 0;
	return handle_entry(ctx, id, false);
}

SEC("kretprobe")
int kexit(struct pt_regs *ctx)
{
	__u32 id;

	snapshot_lbrs();
	if (!ready || !task_traced() || !kprobe_func_id(ctx, &id, true))
		return 0;
	return handle_exit(ctx, id, PT_REGS_RC(ctx));
}

/*
 * fentry/fexit templates, cloned per traced function by the mass attacher. fexit finds
 * the return value right after the arguments in ctx, so there is one template per count.
 * A per-CPU counter keeps a traced function called from our own handler from recursing.
 */
static __always_inline bool enter_guard(void)
{
	__u32 zero = 0, *cnt = bpf_map_lookup_elem(&running, &zero);

	if (!cnt)
		return false;
	if (*cnt) {
		/* a traced function called from our own handler, or an interrupt within it */
		struct drop_stats *st = drop_stats();

		if (st)
			__sync_fetch_and_add(&st->skipped_calls, 1);
		return false;
	}
	*cnt = 1;
	return true;
}

static __always_inline void leave_guard(void)
{
	__u32 zero = 0, *cnt = bpf_map_lookup_elem(&running, &zero);

	if (cnt)
		*cnt = 0;
}

/*
 * The traced function's id, written into each program at load (FENTRY_ID_MARK): a
 * constant to the verifier, where an ip_to_id lookup cost every entry and exit a hash map
 * call (measured in bench/results/overhead.txt, -F).
 */
static __always_inline __u32 clone_func_id(void)
{
	__u32 id;

	asm volatile("%0 = %1" : "=r"(id) : "i"(FENTRY_ID_MARK));
	return id;
}

static __always_inline int fentry_common(void *ctx)
{
	if (!ready || !task_traced() || !enter_guard())
		return 0;
	handle_entry(ctx, clone_func_id(), true);
	leave_guard();
	return 0;
}

static __always_inline int fexit_common(void *ctx, __s64 res)
{
	snapshot_lbrs();
	if (!ready || !task_traced() || !enter_guard())
		return 0;
	handle_exit(ctx, clone_func_id(), res);
	leave_guard();
	return 0;
}

SEC("fentry")
int fentry_tmpl(__u64 *ctx)
{
	return fentry_common(ctx);
}

/*
 * The return value as a plain number: read straight from ctx, newer verifiers type it as
 * the function's return type (a trusted pointer, say), and pointer arithmetic like sign
 * extension is then refused. bpf_get_func_ret() (5.17+) hands back a scalar.
 */
static __always_inline __s64 fexit_ret(__u64 *ctx, int n)
{
	__u64 ret = 0;

	if (has_func_ret)
		bpf_get_func_ret(ctx, &ret);
	else
		ret = ctx[n];
	return ret;
}

#define FEXIT_TEMPLATE(n)				\
SEC("fexit")						\
int fexit_tmpl##n(__u64 *ctx)				\
{							\
	return fexit_common(ctx, fexit_ret(ctx, n));	\
}

FEXIT_TEMPLATE(0)
FEXIT_TEMPLATE(1)
FEXIT_TEMPLATE(2)
FEXIT_TEMPLATE(3)
FEXIT_TEMPLATE(4)
FEXIT_TEMPLATE(5)
FEXIT_TEMPLATE(6)

SEC("fexit")
int fexit_tmpl_void(__u64 *ctx)
{
	return fexit_common(ctx, 0);
}

#include "probe_ctx.bpf.h"
#include "inject.bpf.h"

#include "uprobe.bpf.h"
