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
 * id from the BPF cookie or an ip -> id map), fentry/fexit clones (id from the ip) and
 * uprobe/uretprobe (single or multi, id from the cookie).
 *
 * This file has the handlers and the programs that call them; the rest is in parts that
 * each include what they use (tests/unit/bpf_headers.sh compiles each one alone):
 * retsnoop_state.bpf.h what they all share, session_slot.bpf.h where a session lives,
 * err_chain.bpf.h how a returning frame's result settles the error chain (inband.bpf.h: an
 * error handed back in a netlink ack instead), records.bpf.h
 * what goes to user space (with args.bpf.h, probe_ctx.bpf.h, ustack.bpf.h, interim.bpf.h),
 * and the programs of tgid_set.bpf.h, inject.bpf.h and user_session.bpf.h; missed_exit.bpf.h
 * ends a session whose outermost return the kernel skipped, exit_cut.bpf.h one its
 * thread's exit cut short.
 */
#include "retsnoop_state.bpf.h"	/* first: no CO-RE, see there */
#include "kprobe_ip.bpf.h"
#include "ip_slots.bpf.h"
#include "session_slot.bpf.h"
#include "tgid_set.bpf.h"
#include "records.bpf.h"
#include "args.bpf.h"
#include "err_chain.bpf.h"
/*
 * Before any kprobe program: libbpf loads programs in the order of their sections, and
 * a thread exit program (offloaded, prog_offload.h) is then verified beside ksession
 */
#include "exit_cut.bpf.h"
#include "interim.bpf.h"
#include "inband.bpf.h"
#include "lbr_snap.bpf.h"
#include "reentry_guard.bpf.h"
#include "inject.bpf.h"
#include "user_session.bpf.h"
#include "missed_exit.bpf.h"
#include "irq_calls.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);			/* resized when ids come from ips */
	__type(key, __u64);
	__type(value, __u32);
} ip_to_id SEC(".maps");

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

/*
 * @fentry: @ctx is an fentry context, else the kprobe's pt_regs (for -A).
 * @usp: a user function's stack pointer at entry, 0 for a kernel function.
 * @helper_loop: a program only kernels with bpf_loop() load (__pop_unreturned()).
 * Returns 1 when this call's exit has nothing to do (no session on the thread after it),
 * 0 when it has: a kprobe session skips its return run on 1.
 */
static __always_inline int handle_entry(void *ctx, __u32 id, bool fentry, __u64 usp,
					bool helper_loop)
{
	struct session *sess, *slot;
	struct func_info *fi;
	__u64 now, pid_tgid;
	__s64 key;
	__u32 d, seq;

	/* the table's and the map's key is the thread's id: a new session's too (0: not read) */
	pid_tgid = slot_kept() ? 0 : bpf_get_current_pid_tgid();
	key = slot_kept() ? 0 : session_key(pid_tgid);
	/* one storage lookup: a new session reuses the thread's slot found here */
	slot = session_slot(key);
	sess = slot_session(slot);
	/* an interrupt's call inside the thread's session is not the thread's: left out */
	if (sess && !usp && irq_call(sess, entry_kpos(ctx, fentry)))
		return 1;
	/*
	 * One timestamp per call, taken before the checks below: an argument's helper call
	 * is made before the callee looks at its other conditions, so each check that took
	 * bpf_ktime_get_ns() as an argument cost every call inside a session one more.
	 */
	now = sess ? bpf_ktime_get_ns() : 0;
	/*
	 * A user function called where longjmp() or an exception left traced frames: the
	 * frames entered at or below its stack pointer are gone, unless it was tail-called
	 * from the innermost one (entered at the same stack pointer): that one is running
	 */
	if (sess && usp && user_unwind(sess, usp + !user_tail_call(sess, ctx, usp), key, now, helper_loop)) {
		sess = NULL;
		slot = slot_kept() ? slot : NULL;	/* the table's or map's entry is gone */
	}
	/* ...or a kernel function entered from there (a syscall made after the jump) */
	if (sess && !usp && user_resync(sess, key, now, helper_loop)) {
		sess = NULL;
		slot = slot_kept() ? slot : NULL;
	}
	/* a kernel call where frame 0 ran: the kernel skipped its return (missed_exit.bpf.h) */
	if (sess && !usp && frame0_gone(sess, entry_kpos(ctx, fentry), id, fentry)) {
		end_stale_session(sess, key, now, helper_loop);
		sess = NULL;
		slot = slot_kept() ? slot : NULL;
	}
	if (!sess) {
		fi = bpf_map_lookup_elem(&func_infos, &id);
		if (!fi || !(fi->flags & FUNC_IS_ENTRY))
			return 1;
		if (!pid_tgid)
			pid_tgid = bpf_get_current_pid_tgid();
		if (!session_allowed(pid_tgid))
			return 1;
		if (!now)	/* else a stale session ended just now */
			now = bpf_ktime_get_ns();
		sess = start_session(key, slot, pid_tgid, now);
		if (!sess)
			return 1;
		sess->kpos0 = usp ? 0 : entry_kpos(ctx, fentry);
		sess->frame0 = usp ? 0 : frame0_kind(fi->flags & FUNC_SYSCALL);
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
	if (carrier_cnt)
		note_inband_err(ctx, fentry, sess, d, id, now);
	/*
	 * chains not kept aside below this level were the callees' of calls that are gone: a
	 * frame popped without its return (resync) never settled whether they mattered
	 */
	if (sess->lost_levels)
		sess->lost_levels &= ~levels_from(d + 1);
	if (sess->tail_err && d < sess->stack.max_depth) {
		struct frag *f = keep_chain(sess, d);

		if (f)
			f->passed_in = error_passed_in(ctx, fentry, id,
							f->cs.func_res[frame_idx(d)]);
	}
	d = frame_idx(d);

	sess->stack.func_ids[d] = id;
	sess->stack.seq_ids[d] = seq;
	sess->stack.func_res[d] = 0;
	sess->stack.func_lat[d] = 0;
	sess->entry_ts[d] = now;
	sess->entry_sp[d] = usp ? user_sp_code(sess, usp) : 0;
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

/*
 * The frame on top of our stack is not the one returning. On 7.x kprobe.multi sits on the
 * function-graph tracer and the kernel skips (and counts as the program's recursion miss)
 * an entry or exit probe that fires while another of our programs runs on that CPU: an
 * interrupt's functions, or a call made while a preempted handler holds the CPU's BPF
 * slot. Measured on 7.2: a glob-less hunt of errtrig's 19 cases saw 278,791 entry and
 * 350,618 exit misses, and every mismatch dropped its whole session (2-17 of 20 samples).
 * A lost exit only leaves frames above the returning one: pop them, as not returned (the
 * stack view says "[no return]" for them, not a result they never had). A lost entry
 * leaves an exit we never pushed: skip it.
 * Either way the session keeps the frames it did see; count the calls not recorded.
 * Returns the returning frame's index, or -1 to skip this exit.
 */
struct resync_loop {
	struct session *sess;
	__u32 top, id, found;
};

/* Is frame @top - (@n + 1) the one returning? 1 (done) when it is or there is none. */
static long resync_one(__u64 n, void *data)
{
	struct resync_loop *c = data;
	__u32 i = n + 1;

	if (i > c->top)
		return 1;
	if (c->sess->stack.func_ids[frame_idx(c->top - i)] != c->id)
		return 0;
	c->found = i;
	return 1;
}

static __always_inline int resync_stack(struct session *sess, __u32 top, __u32 id, __s64 key,
					__u64 now, bool helper_loop)
{
	struct drop_stats *st = drop_stats();
	__u32 i, j = 0;

	if (helper_loop) {
		/* the same search, its body checked once (__pop_unreturned()) */
		struct resync_loop c = { .sess = sess, .top = top, .id = id };

		bpf_loop(MAX_FSTACK_DEPTH - 1, resync_one, &c, 0);
		i = c.found ?: MAX_FSTACK_DEPTH;
		j = frame_idx(top - i);
	} else {
		for (i = 1; i < MAX_FSTACK_DEPTH; i++) {
			if (i > top)
				break;
			j = frame_idx(top - i);
			if (sess->stack.func_ids[j] == id)
				break;
		}
	}
	if (i >= MAX_FSTACK_DEPTH || i > top) {
		if (st)
			__sync_fetch_and_add(&st->skipped_calls, 1);
		return -1;
	}
	if (st)
		__sync_fetch_and_add(&st->skipped_calls, i);
	/* frames j + 1 .. top: never the entry frame, so the session goes on */
	__pop_unreturned(sess, j + 1, key, now, helper_loop);
	return j;
}

/*
 * @usp: a user function's stack pointer after its return, 0 for a kernel function;
 * @kpos: a kernel function's stack position at its return, 0 where its entry run already
 * left an interrupt's call out (a kprobe session's return run is skipped then);
 * @helper_loop: see handle_entry()
 */
static __always_inline int handle_exit(void *ctx, __u32 id, __s64 res, __u64 usp,
				       __u64 kpos, bool helper_loop)
{
	struct func_info *fi;
	struct session *sess;
	__u64 now, lat;
	__u32 d, seq, flags;
	__s64 key;

	key = probe_session_key();
	sess = find_session(key);
	if (!sess || irq_call(sess, kpos))
		return 0;
	now = bpf_ktime_get_ns();
	/* the frames above the returning one were left by longjmp() or an exception */
	if (usp && user_unwind(sess, usp - URET_SP_ADJ, key, now, helper_loop))
		return 0;
	if (sess->overflow && usp && user_top_returns(sess, usp - URET_SP_ADJ))
		sess->overflow = 0;	/* the calls counted past it lost their return probes */
	if (sess->overflow) {
		sess->overflow--;
		return 0;
	}
	/* after the unwind: the frames longjmp() left are no candidates */
	if (usp && user_id_clones && id == USER_ID_TOP) {
		id = user_top_id(sess, key);
		if (id == USER_ID_TOP)
			return 0;	/* no user frame: its entry found no session */
	}

	d = sess->stack.depth;
	seq = sess->next_seq_id++;
	if (d == 0 || d > MAX_FSTACK_DEPTH)
		goto lost;
	d = frame_idx(d - 1);
	if (sess->stack.func_ids[d] != id) {
		int r = resync_stack(sess, d, id, key, now, helper_loop);

		if (r < 0)
			return 0;	/* its entry was skipped by the kernel: not in our stack */
		d = frame_idx(r);	/* bounded again: 6.12's verifier lost the bound */
	}

	fi = bpf_map_lookup_elem(&func_infos, &id);
	flags = fi ? fi->flags : 0;
	/*
	 * A kernel function's program (@usp 0 where it calls this) never sees a user
	 * function's flags: said so, the user-space rules leave its code (7.x's verifier
	 * analyses every instruction loaded, run or not).
	 */
	if (!usp)
		flags &= ~FUNC_USER;
	lat = now - sess->entry_ts[d];
	sess->stack.func_res[d] = res;
	sess->stack.func_lat[d] = lat;
	sess->stack.depth = d;
	settle_result(ctx, sess, d, flags, res);
	if (flags & FUNC_USER)
		note_sys_err(sess, d, flags, res);
	/* only a carrier's call sets it (note_inband_err()): none traced, none to settle */
	if (carrier_cnt && sess->inband_depth)
		note_inband_ret(sess, d, id, now, lat, res);

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
		/* kprobe.multi: the cookie is a bsearch (ip_slots.h), the table is cheaper */
		if (ip_slot_shift && ip_slot_func_id(ctx, id))
			return true;
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
	handle_entry(ctx, id, false, 0, false);
	return 0;
}

SEC("kretprobe")
int kexit(struct pt_regs *ctx)
{
	__u32 id;

	snapshot_lbrs();
	if (!ready || !task_traced() || !kprobe_func_id(ctx, &id, true))
		return 0;
	return handle_exit(ctx, id, PT_REGS_RC(ctx), 0, PT_REGS_SP(ctx), false);
}

/* Rewritten at load into the kfuncs bpf_session_is_return(ctx), bpf_session_cookie(ctx) */
static bool (*session_is_return)(void *ctx) = (void *)SESSION_RET_MARK;
static __u64 *(*session_cookie)(void *ctx) = (void *)SESSION_COOKIE_MARK;

/*
 * kprobe.multi session (6.10+): one program and one link where the pair needs two links
 * (two fprobe registrations, most of a whole-kernel hunt's attach and detach time). It runs
 * at entry, and at return unless the entry run returned 1: a process not traced, a thread
 * with no session and a function that can't start one, pay for no return probe at all.
 * The entry run leaves the function id in the call's session cookie for the return run,
 * which so looks up no BPF cookie (records.h). Loaded as kprobe.multi with the session
 * attach type set by the mass attacher.
 */
SEC("kprobe")
int ksession(struct pt_regs *ctx)
{
	bool is_ret = session_is_return(ctx);
	__u64 *cookie = session_cookie(ctx);
	__u32 id;

	if (is_ret) {
		snapshot_lbrs();
		/* the entry run found it set; a teardown may have begun since */
		if (!ready)
			return 0;
		handle_exit(ctx, (__u32)*cookie, PT_REGS_RC(ctx), 0, 0, true);
		return 0;
	}
	if (!ready || !task_traced() || !kprobe_func_id(ctx, &id, false))
		return 1;
	*cookie = id;
	return handle_entry(ctx, id, false, 0, true);
}

/*
 * User-space functions: uprobe/uretprobe programs (single or uprobe.multi, the function id
 * always in the BPF cookie) that feed the same per-thread session as the kernel probes, so
 * one session runs from a traced function of a program through its syscalls into the
 * kernel functions below (user_session.bpf.h has the rest of what such sessions need).
 * Which process may start a session is decided as for kernel probes: the traced set of
 * `-- CMD` first (task_traced()), then session_allowed() for kernel entry
 * functions (a library's uprobe fires in every process that maps it); threads without a
 * session leave after one task storage lookup.
 */
/*
 * The user stack pointer at the probe, which the handlers take as "a user function" when
 * non-zero. Tested once here, so that the compiler knows it is non-zero in what it inlines
 * below and drops the kernel functions' paths from the user programs (interrupts' calls,
 * missed kernel exits, user_resync()): the verifier walked them in every user program, the
 * stack pointer being any number to it (6.18 host: usession 44,194 instructions processed,
 * 28 ms, now 25,882 and 12.5 ms). No thread runs user code with a zero stack pointer.
 */
static __always_inline __u64 user_sp(struct pt_regs *ctx)
{
	return PT_REGS_SP(ctx);
}

/* @helper_loop: bpf_loop()'s walks (uentry, uexit: 5.17+), or open-coded (the _open pair) */
static __always_inline int uentry_common(struct pt_regs *ctx, bool helper_loop)
{
	__u64 usp = user_sp(ctx);
	__u32 id;

	/* a library's uprobe fires in every process mapping it: the traced set first */
	if (!usp || !ready || !task_traced())
		return 0;
	/* no cookies (before 5.15): a clone of this program per function, its id written in */
	id = user_id_clones ? clone_func_id() : bpf_get_attach_cookie(ctx);
	handle_entry(ctx, id, false, usp, helper_loop);
	return 0;
}

static __always_inline int uexit_common(struct pt_regs *ctx, bool helper_loop)
{
	__u64 usp = user_sp(ctx);

	if (!usp || !ready || !task_traced())
		return 0;
	/* no cookies: one program for all, the returning frame is the innermost user frame */
	return handle_exit(ctx, user_id_clones ? USER_ID_TOP : bpf_get_attach_cookie(ctx),
			   PT_REGS_RC(ctx), usp, 0, helper_loop);
}

/*
 * Two pairs: a program that holds a callback's address at all is refused before 5.13,
 * dead code or not, and 5.10's clones are not pruned (tracer_prune.c). The tracer loads
 * uentry and uexit where bpf_loop() is (5.17+, has_func_ret's kernels: the verifier checks
 * a loop's body once, not each of its 64 rounds), uentry_open and uexit_open before.
 */
SEC("uprobe")
int uentry(struct pt_regs *ctx)
{
	return uentry_common(ctx, true);
}

SEC("uretprobe")
int uexit(struct pt_regs *ctx)
{
	return uexit_common(ctx, true);
}

SEC("uprobe")
int uentry_open(struct pt_regs *ctx)
{
	return uentry_common(ctx, false);
}

SEC("uretprobe")
int uexit_open(struct pt_regs *ctx)
{
	return uexit_common(ctx, false);
}

/*
 * The same as a uprobe session (Linux 6.13+, one link per image, loaded for it by the
 * tracer): run at entry and, unless the entry returned 1, at return. The return trap
 * (a uretprobe's trampoline, its own trap on the way back) is what a pair costs every
 * call: here only calls the exit has work for pay it, the ones that pushed a frame (or
 * count the overflow) into a session. Calls in other processes, and calls outside any
 * session that start none, return untouched. Its loops are bpf_loop()'s: session links
 * came in 6.13, bpf_loop() in 5.17.
 */
SEC("uprobe")
int usession(struct pt_regs *ctx)
{
	__u32 id = bpf_get_attach_cookie(ctx);
	__u64 usp = user_sp(ctx);

	if (!usp)
		return 1;
	if (usession_is_return(ctx)) {
		if (ready && task_traced())
			handle_exit(ctx, id, PT_REGS_RC(ctx), usp, 0, true);
		return 0;
	}
	if (!ready || !task_traced())
		return 1;
	handle_entry(ctx, id, false, usp, true);
	/*
	 * A session now means this call is in it (pushed, or counted above the depth
	 * limit): its return is needed. None: the entry left nothing for it to pop.
	 */
	return find_session(probe_session_key()) ? 0 : 1;
}

/*
 * fentry/fexit templates, cloned per traced function by the mass attacher. fexit finds
 * the return value right after the arguments in ctx, so there is one template per count.
 * The guard (reentry_guard.bpf.h) keeps a traced function called from our own handler
 * from recursing.
 */
/*
 * The kernel functions' templates loop over the stack with bpf_loop() where they can: the
 * verifier checks each loop body once, where it walks every round of an open-coded loop,
 * and it checks every clone (7.2: the fentry and fexit templates 2,900 and 5,933
 * instructions processed, the fsession one 8,962 with open-coded loops, 3,282 with
 * bpf_loop()). bpf_loop() came in 5.17 with bpf_get_func_ret() (has_func_ret): older
 * kernels take the open-coded branch, the other being dead code there. A callback also
 * needs the clone's BTF function info, which the mass attacher rebuilds from the loaded
 * template's (ma__tmpl_func_info()): whole only when the verifier kept every subprogram,
 * as in the lite build. The full one's user-function global functions are dropped as dead
 * when no user function is traced: its clones go without function info, so without
 * callbacks.
 */
#ifdef RETSNOOP_LITE
#define TMPL_HELPER_LOOP	has_func_ret
#else
#define TMPL_HELPER_LOOP	false
#endif

/* @helper_loop: loop with bpf_loop() (TMPL_HELPER_LOOP) */
static __always_inline int fentry_common(void *ctx, __u32 id, bool helper_loop)
{
	__u32 *guard;

	if (!ready || !task_traced() || !(guard = enter_guard()))
		return 0;
	handle_entry(ctx, id, true, 0, helper_loop);
	leave_guard(guard);
	return 0;
}

static __always_inline int fexit_common(void *ctx, __u32 id, __s64 res, bool helper_loop)
{
	__u32 *guard;

	snapshot_lbrs();
	if (!ready || !task_traced() || !(guard = enter_guard()))
		return 0;
	handle_exit(ctx, id, res, 0, (__u64)ctx, helper_loop);
	leave_guard(guard);
	return 0;
}

SEC("fentry")
int fentry_tmpl(__u64 *ctx)
{
	return fentry_common(ctx, clone_func_id(), TMPL_HELPER_LOOP);
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
	return fexit_common(ctx, clone_func_id(), fexit_ret(ctx, n), TMPL_HELPER_LOOP); \
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
	return fexit_common(ctx, clone_func_id(), 0, TMPL_HELPER_LOOP);
}

/*
 * fsession (7.0+): one program per function that the trampoline runs at entry and at
 * return, with one link, where the pair takes two programs and two links: each link
 * rebuilds the function's trampoline (and each release waits for its grace periods), so
 * -F's trampolines attach and detach in about half the time (7.2, 119 functions: ready
 * 0.93x, detach 0.52x the pair's, bench/results/attach-r15-fsession.txt).
 * Loaded as fentry with the fsession attach type set by the mass attacher, which also
 * turns session_is_return() into the kfunc. The kernel takes no return value but 0 (no
 * skipping the return run, unlike a kprobe session). The result is bpf_get_func_ret()'s
 * (fsession kernels all have it), so one template serves every argument count.
 */
/* One fsession run of function @id: the entry's, or the return's (@is_void: no result) */
static __always_inline int fsession_common(__u64 *ctx, __u32 id, bool is_void)
{
	if (session_is_return(ctx))
		return fexit_common(ctx, id, is_void ? 0 : fexit_ret(ctx, 0), TMPL_HELPER_LOOP);
	return fentry_common(ctx, id, TMPL_HELPER_LOOP);
}

SEC("fentry")
int fsession_tmpl(__u64 *ctx)
{
	/* one mark: the clones' id is written there */
	return fsession_common(ctx, clone_func_id(), false);
}

SEC("fentry")
int fsession_tmpl_void(__u64 *ctx)
{
	return fsession_common(ctx, clone_func_id(), true);
}

/*
 * The same on tracing multi-links (7.x x86-64, tracing_multi.h): loaded once for all of
 * vmlinux's traced functions (and cloned once for each module's), not per function; the
 * function comes from the BPF cookie (its id, FMULTI_COOKIE_VOID if it returns nothing).
 * Its section is one libbpf doesn't know, so the program starts unloaded and without a
 * type: the mass attacher gives it the type and attach type, and libbpf, with no section
 * rules to apply, loads it without an attach target as the kernel wants.
 */
SEC("?fsession.multi")
int fsession_multi(__u64 *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);

	return fsession_common(ctx, (__u32)cookie, cookie & FMULTI_COOKIE_VOID);
}

