/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * What sessions with user-space functions need beyond the entry and exit handlers (their
 * uprobe/uretprobe programs are with the kernel probes' in retsnoop.bpf.c): the errno of a
 * syscall that failed under a traced user-space frame (note_sys_err() in err_chain.bpf.h
 * puts it in the chain), exec() ending a session that began in the old image, and the
 * frames longjmp() or an exception left without returning (user_unwind(), and
 * user_resync() where the thread enters the kernel), told from the callers of a tail
 * call (user_tail_call()).
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_USER_SESSION_BPF_H
#define __RETSNOOP_USER_SESSION_BPF_H

#include "retsnoop_state.bpf.h"
#include "session_slot.bpf.h"
#include "tgid_set.bpf.h"
#include "records.bpf.h"
#include "ustack.bpf.h"

/*
 * uprobe session links (Linux 6.13+): which of the two runs this is. A call of helper
 * SESSION_RET_MARK that session_prog__prepare() turns into the kfunc
 * bpf_session_is_return() before load (records.h says why not a __ksym extern).
 */
/* unused where this header is compiled alone (tests/unit/bpf_headers.sh) */
static bool (*usession_is_return)(void *ctx) __attribute__((unused)) = (void *)SESSION_RET_MARK;

#if defined(__TARGET_ARCH_x86)
#define URET_SP_ADJ	8	/* the return address: pushed by call, popped by ret */
#else
#define URET_SP_ADJ	0	/* arm64: the return address is in the link register */
#endif

/*
 * struct session's entry_sp[]: a user frame's stack pointer at entry in 32 bits. The low
 * 32 bits of the address with its 3 low bits (0 at a function's entry: the stack is
 * 8-byte aligned or better) for flags: USP_USER always (0 is a kernel frame), USP_FAR for
 * a stack pointer 2 GiB or more from the session's usp_base (the first user frame's), and
 * USP_ABOVE when that far one is above it. A frame near usp_base has its full address
 * back; a far one runs on another stack (a coroutine's, an alternate signal stack), and
 * which side of usp_base it is on says how it compares with a stack pointer near
 * usp_base. Two far ones on the same side are compared by their low 32 bits, as on one
 * stack. The comparisons are then those of the full stack pointers, the kernel's own for
 * its return probes (arch_uretprobe_is_alive()): where it takes a traced frame for gone,
 * it dropped that frame's return probe too.
 */
#define USP_USER	1U
#define USP_FAR		2U
#define USP_ABOVE	4U
#define USP_FLAGS	7U
#define USP_NEAR_SPAN	(1ULL << 31)

static __always_inline bool usp_near(__u64 base, __u64 sp)
{
	return sp - base + USP_NEAR_SPAN < 2 * USP_NEAR_SPAN;
}

static __always_inline __u32 user_sp_code(struct session *sess, __u64 sp)
{
	__u64 base = sess->usp_base;

	if (!base)
		base = sess->usp_base = sp;
	if (usp_near(base, sp))
		return ((__u32)sp & ~USP_FLAGS) | USP_USER;
	return ((__u32)sp & ~USP_FLAGS) | USP_USER | USP_FAR | (sp > base ? USP_ABOVE : 0);
}

/* A near frame's full stack pointer at entry (see user_sp_code()). */
static __always_inline __u64 user_sp_near(const struct session *sess, __u32 code)
{
	__u64 base = sess->usp_base;

	return base + (__s64)(__s32)((code & ~USP_FLAGS) - (__u32)base);
}

/* Was the frame of entry_sp[] @code entered below stack address @limit? */
static __always_inline bool user_sp_below(const struct session *sess, __u32 code, __u64 limit)
{
	__u64 base = sess->usp_base;
	bool limit_near = usp_near(base, limit);

	if (!(code & USP_FAR))
		return limit_near ? user_sp_near(sess, code) < limit : limit > base;
	if (limit_near || (limit > base) != !!(code & USP_ABOVE))
		return !(code & USP_ABOVE);
	return (__s32)((code & ~USP_FLAGS) - (__u32)limit) < 0;
}

/* Set by user space when user functions are traced. */
const volatile bool user_resync_on = false;
#ifdef RETSNOOP_LITE
#define user_resync_on		0	/* retsnoop_state.bpf.h */
#endif

/*
 * The walks over a session's frames below are global functions: the verifier checks
 * one once per program, on its own, where an inlined walk was checked again at every
 * call site and for every way out of the loop before it (pop_unreturned() and the record
 * it sends each time): user_resync() alone cost usys_exit 128,312 instructions processed
 * (bench/results/verifier.txt). Only scalars cross: a pointer argument needs Linux 5.12+
 * and 5.10 checks every global function of a program, these too in its kernel probes.
 * So each finds the thread's session again (one lookup, on the rare path only), and
 * does nothing unless user functions are traced (a constant: dead code otherwise).
 * A walk only says how far to pop; the program pops (user_pop()): a walk that popped
 * itself put its own frame and its callee walk's on the call chain to the record sent,
 * and before 6.x verifiers add every frame of a chain up against BPF's 512 bytes of
 * stack: kentry with -A's capture, user_resync_walk(), user_unwind_walk(), user_pop(),
 * send_session_end() and copy_levels() came to 608, and 6.1 refused the program.
 */

/* pop_unreturned() of the thread's session, to the depth a walk below said; 1: it ended */
__noinline int user_pop(__s64 key, __u32 nd, __u64 now)
{
	struct session *sess;

	if (!user_resync_on)
		return 0;
	sess = find_session(key);
	return sess ? pop_unreturned(sess, nd, key, now) : 0;
}

/*
 * longjmp() and C++ exceptions leave functions without returning: their uretprobes never
 * fire (the kernel drops their return instances), and the frames would stay on our stack,
 * the next call nesting under them. The user stack tells which are gone: it grows down,
 * so a frame whose stack pointer at entry is below @limit (the next call's stack pointer
 * + 1, its stack pointer itself when it was tail-called, see user_tail_call(), or the
 * returning frame's own at its entry) is not running any more.
 * Returns the depth to pop those to (pop_unreturned()), -1 when none is gone.
 * @key: find_session()'s.
 */
struct unwind_walk {
	struct session *sess;
	__u64 limit;
	__u32 d, nd;
};

/* Frame @n from the innermost of the walk @w: 1 when the walk is over */
static __always_inline long unwind_step(struct unwind_walk *w, __u32 n)
{
	__u32 i, sp;

	if (n >= w->d)
		return 1;
	i = frame_idx(w->d - 1 - n);
	sp = w->sess->entry_sp[i];
	if (!sp)
		return 0;	/* a kernel frame: gone if a user frame below it is */
	if (!user_sp_below(w->sess, sp, w->limit))
		return 1;
	w->nd = i;
	return 0;
}

static long unwind_one(__u64 n, void *data)
{
	return unwind_step(data, n);
}

/*
 * @helper_loop: with bpf_loop() (5.17+), whose body the verifier checks once, where it
 * walks all 64 rounds of the open-coded loop: usys_exit's 27,292 instructions processed
 * were 24,000 of these walks' (6.18 host).
 */
static __always_inline int __user_unwind_walk(__s64 key, __u64 limit, bool helper_loop)
{
	struct unwind_walk w = { .limit = limit };
	struct session *sess;
	__u32 n;

	if (!user_resync_on)
		return -1;
	sess = find_session(key);
	if (!sess)
		return -1;
	w.sess = sess;
	w.d = w.nd = sess->stack.depth;
	if (w.d == 0 || w.d > MAX_FSTACK_DEPTH)
		return -1;
	if (helper_loop) {
		bpf_loop(MAX_FSTACK_DEPTH, unwind_one, &w, 0);
	} else {
		for (n = 0; n < MAX_FSTACK_DEPTH; n++)
			if (unwind_step(&w, n))
				break;
	}
	return w.nd < w.d ? (int)w.nd : -1;
}

/* Two of each global walk: a program loads only the one it calls (see usys_exit) */
__noinline int user_unwind_walk(__s64 key, __u64 limit)
{
	return __user_unwind_walk(key, limit, false);
}

__noinline int user_unwind_walk_loop(__s64 key, __u64 limit)
{
	return __user_unwind_walk(key, limit, true);
}

/*
 * Is the user call returning to stack address @limit the innermost recorded frame (entered
 * at that very stack pointer)? The kernel keeps at most 64 return probes nested in a thread
 * ("omit uretprobe due to nestedness limit"): calls beyond them, which handle_entry()
 * counted in sess->overflow, never return to us, so a return that is the innermost
 * frame's own is that frame's, whatever the count says.
 */
static __always_inline bool user_top_returns(struct session *sess, __u64 limit)
{
	__u32 d = sess->stack.depth, esp;

	if (d == 0 || d > MAX_FSTACK_DEPTH)
		return false;
	esp = sess->entry_sp[frame_idx(d - 1)];
	return esp && esp == user_sp_code(sess, limit);
}

/* user_unwind_walk() after the usual case: the innermost frame is a user frame still running */
static __always_inline int user_unwind_depth(struct session *sess, __u64 limit, __s64 key,
					     bool helper_loop)
{
	__u32 d = sess->stack.depth, sp;

	if (d == 0 || d > MAX_FSTACK_DEPTH)
		return -1;
	sp = sess->entry_sp[frame_idx(d - 1)];
	if (sp && !user_sp_below(sess, sp, limit))
		return -1;
	return helper_loop ? user_unwind_walk_loop(key, limit) : user_unwind_walk(key, limit);
}

/*
 * Pops the frames longjmp() left below @limit; true when that ended the session.
 * @helper_loop: the walk with bpf_loop() (a program only 5.17+ kernels load)
 */
static __always_inline bool user_unwind(struct session *sess, __u64 limit, __s64 key, __u64 now,
					bool helper_loop)
{
	int nd = user_unwind_depth(sess, limit, key, helper_loop);

	return nd >= 0 && user_pop(key, nd, now);
}


/*
 * Kernels without BPF cookies (before 5.15): each user function's entry program is a
 * clone with the function's id written in (uprobe_attacher.h), but one exit program
 * serves them all: the kernel runs return probes innermost first, and a thread's traced
 * user calls nest (those longjmp() left are unwound before), so the returning call is
 * the session's innermost user frame; kernel frames above it lost their exits.
 */
const volatile bool user_id_clones = false;

#define USER_ID_TOP	0xffffffffU	/* uexit's id there: "the innermost user frame's" */

/* user_top_id() below the innermost frame (a kernel frame): global, see user_pop() */
__noinline __u32 user_top_walk(__s64 key)
{
	struct session *sess;
	__u32 d, n, i;

	if (!user_id_clones)
		return USER_ID_TOP;
	sess = find_session(key);
	if (!sess)
		return USER_ID_TOP;
	d = sess->stack.depth;
	if (d == 0 || d > MAX_FSTACK_DEPTH)
		return USER_ID_TOP;
	for (n = 0; n < MAX_FSTACK_DEPTH; n++) {
		if (n >= d)
			break;
		i = frame_idx(d - 1 - n);
		if (sess->entry_sp[i])
			return sess->stack.func_ids[i];
	}
	return USER_ID_TOP;
}

/* The id of @sess's innermost user frame, USER_ID_TOP if none. */
static __always_inline __u32 user_top_id(struct session *sess, __s64 key)
{
	__u32 d = sess->stack.depth, i;

	if (d == 0 || d > MAX_FSTACK_DEPTH)
		return USER_ID_TOP;
	i = frame_idx(d - 1);
	if (sess->entry_sp[i])
		return sess->stack.func_ids[i];
	return user_top_walk(key);
}

#define UPROBE_XOL_SIZE	4096	/* the trampoline's page: the process's [uprobes] mapping */
#define UFP_WALK_MAX	32	/* arm64 frame records walked by user_resync() */

/*
 * A user function entered at the stack pointer the innermost traced frame had at its
 * entry: a tail call (`return g(...)` compiled to a jump once the caller's frame is torn
 * down) from that frame, or a call made where longjmp() left it. The return address tells:
 * a tail call's is the caller's, which its return probe replaced by the process's uprobe
 * trampoline (x86-64: the slot at the stack pointer; arm64: the link register, which the
 * caller restored before its branch); a call writes its own. The kernel decides the same
 * way (its return probe code chains the callee's return instance to the caller's when the
 * return address is the trampoline, and drops the caller's otherwise), and then runs both
 * return probes, callee first, when the callee returns.
 * Only when the stack pointers are equal: then one read of the trampoline's address, and
 * of the slot on x86-64. Unknown trampoline (no offsets in the kernel's BTF): false, the
 * caller is taken for left.
 */
static __always_inline bool user_tail_call(struct session *sess, struct pt_regs *ctx, __u64 usp)
{
	__u32 d = sess->stack.depth, esp;
	__u64 tramp, ret = 0;

	if (d == 0 || d > MAX_FSTACK_DEPTH)
		return false;
	esp = sess->entry_sp[frame_idx(d - 1)];
	if (!esp || esp != user_sp_code(sess, usp))
		return false;
	tramp = uprobe_trampoline();
	if (!tramp)
		return false;
#if defined(__TARGET_ARCH_x86)
	if (bpf_probe_read_user(&ret, sizeof(ret), (void *)usp))
		return false;
#elif defined(__TARGET_ARCH_arm64)
	ret = PT_REGS_RET(ctx);
#endif
	return ret == tramp;
}

#if defined(__TARGET_ARCH_x86)
struct slot_walk {
	struct session *sess;
	__u64 sp, tramp;
	__u32 d, nd;
};

/*
 * x86-64: frame @n from the innermost of the walk @w, whose slot still holding the
 * trampoline ends it (1), as does a far frame not judged here
 */
static __always_inline long slot_step(struct slot_walk *w, __u32 n)
{
	struct session *sess = w->sess;
	__u64 slot = 0, addr;
	__u32 i, esp;

	if (n >= w->d)
		return 1;
	i = frame_idx(w->d - 1 - n);
	esp = sess->entry_sp[i];
	if (!esp)
		return 0;
	/*
	 * Its slot's address: a far frame's (user_sp_code()) only where sp is as far on the
	 * same side (on its stack, presumably), else it is not judged here
	 */
	if (!(esp & USP_FAR))
		addr = user_sp_near(sess, esp);
	else if (usp_near(sess->usp_base, w->sp) ||
		 (w->sp > sess->usp_base) != !!(esp & USP_ABOVE))
		return 1;
	else
		addr = w->sp + (__s64)(__s32)((esp & ~USP_FLAGS) - (__u32)w->sp);
	if (bpf_probe_read_user(&slot, sizeof(slot), (void *)addr) || slot == w->tramp)
		return 1;
	w->nd = i;
	return 0;
}

static long slot_one(__u64 n, void *data)
{
	return slot_step(data, n);
}
#endif

/*
 * A kernel function entered, or a syscall failing, while the innermost frame of the
 * session is a user frame: the thread crossed into the kernel from user space, and user
 * code that ran since the last traced call or return may have left traced frames by
 * longjmp() (the function holding the jmp_buf made a syscall after the jump). The user
 * registers the kernel saved at that entry tell which frames are still running:
 * - a frame whose stack pointer at entry is below the user stack pointer now is gone, as
 *   at a call (user_unwind());
 * - on x86-64 a traced call's return address is in memory, at its stack pointer at entry,
 *   and its return probe wrote the process's uprobe trampoline over it (arm64: in the
 *   frame records, below). The stack pointer
 *   alone can't tell: a syscall is made in libc's wrapper, a call below the function that
 *   holds the jmp_buf, whose frames reuse the left frames' stack. A call made after the
 *   jump overwrites that slot with its own return address, so a frame whose slot no
 *   longer holds the trampoline has returned or was left: it and the frames above it
 *   are gone. Innermost first: a running frame's slot ends the walk (one read).
 * Not while the thread is in the trampoline's own page (the return probe's syscall or
 * trap): a returning frame's slot is overwritten there before its exit is seen.
 * Returns the depth to pop the gone frames to (0: the entry frame was left, the session
 * ends), -1 when none is gone. @key: find_session()'s. @helper_loop: see user_unwind().
 */
static __always_inline int __user_resync_walk(__s64 key, bool helper_loop)
{
	struct session *sess;
	__u64 sp, pc, tramp;
	__u32 d;
	int gone;

	if (!user_resync_on)
		return -1;
	sess = find_session(key);
	if (!sess || !read_user_sp_pc(&sp, &pc))
		return -1;
	tramp = uprobe_trampoline();
	if (tramp && pc - tramp < UPROBE_XOL_SIZE)
		return -1;
	/* the frames entered below the stack pointer are gone; the walks go on under them */
	gone = user_unwind_depth(sess, sp, key, helper_loop);
	if (gone == 0)
		return 0;
	d = gone > 0 ? gone : sess->stack.depth;
#if defined(__TARGET_ARCH_x86)
	struct slot_walk w = { .sess = sess, .sp = sp, .tramp = tramp, .d = d, .nd = d };
	__u32 n;

	if (!tramp || d == 0 || d > MAX_FSTACK_DEPTH)
		return gone;
	if (helper_loop) {
		bpf_loop(MAX_FSTACK_DEPTH, slot_one, &w, 0);
	} else {
		for (n = 0; n < MAX_FSTACK_DEPTH; n++)
			if (slot_step(&w, n))
				break;
	}
	return w.nd < d ? (int)w.nd : gone;
#elif defined(__TARGET_ARCH_arm64)
	__u64 fp, rec[2], regs[2];
	__u32 n;
	int nd;

	if (!tramp || d == 0 || d > MAX_FSTACK_DEPTH || !read_user_fp_lr(regs))
		return gone;
	/*
	 * The trampoline still in the link register: a traced function's prologue before
	 * it saved it, its epilogue after it restored it, or a leaf: its record is not in
	 * the chain, so nothing is judged
	 */
	if (regs[1] == tramp)
		return gone;
	fp = regs[0];
	/*
	 * The return address is in the link register at entry, and the callee's prologue
	 * saves it in its frame record ({caller's x29, x30}, at x29) where its layout puts
	 * it. So the frame-record chain from the x29 saved at kernel entry is walked, up
	 * the stack: the first record holding the trampoline is the innermost running
	 * traced frame's, inside its frame, below its entry stack pointer and at or above
	 * those of the frames it called: traced frames entered at or below it are gone
	 * (returned or left). Needs frame records in the traced functions (GCC's and
	 * clang's default for arm64 functions that call others); a chain that ends, goes
	 * down or leaves the stack without the trampoline judges nothing.
	 */
	for (n = 0; n < UFP_WALK_MAX; n++) {
		if (!fp || (fp & 7) || fp < sp ||
		    bpf_probe_read_user(rec, sizeof(rec), (void *)fp))
			return gone;
		if (rec[1] == tramp) {
			/* fp >= sp: what went below sp went below fp + 1 too */
			nd = user_unwind_depth(sess, fp + 1, key, helper_loop);
			return nd >= 0 && (gone < 0 || nd < gone) ? nd : gone;
		}
		if (rec[0] <= fp)
			return gone;
		fp = rec[0];
	}
	return gone;
#else
	return gone;
#endif
}

__noinline int user_resync_walk(__s64 key)
{
	return __user_resync_walk(key, false);
}

__noinline int user_resync_walk_loop(__s64 key)
{
	return __user_resync_walk(key, true);
}

/*
 * user_resync_walk() where the innermost frame of a session is a user frame.
 * @helper_loop: see user_unwind()
 */
static __always_inline bool user_resync(struct session *sess, __s64 key, __u64 now,
					bool helper_loop)
{
	__u32 d = sess->stack.depth;

	int nd;

	if (!user_resync_on || d == 0 || d > MAX_FSTACK_DEPTH || !sess->entry_sp[frame_idx(d - 1)])
		return false;
	nd = helper_loop ? user_resync_walk_loop(key) : user_resync_walk(key);
	return nd >= 0 && user_pop(key, nd, now);
}

/*
 * The uprobe trampolines' own syscalls (x86-64): uretprobe (6.11+), which returns to the
 * probed function's caller with that function's result in rax, and uprobe (6.17+, an
 * optimized entry probe), which hands back whatever rax held. Their "result" is the
 * program's value, not a failure: a long -1 showed as EPERM on the caller, in place of
 * the errno of the syscall that failed inside the function. sys_uretprobe() sets
 * orig_ax to -1 (no syscall: seen on the 6.18 host), as ptrace does for a syscall a
 * tracer skips; the numbers are checked too, should a kernel keep them.
 */
static __always_inline bool uprobe_tramp_syscall(__u64 *ctx)
{
#if defined(__TARGET_ARCH_x86)
	struct pt_regs *regs = (void *)ctx[0];
	long nr = 0;

	/* the ptrace ABI's layout: no CO-RE needed (retsnoop_state.bpf.h) */
	bpf_probe_read_kernel(&nr, sizeof(nr), &regs->orig_ax);
	return nr < 0 || nr == 335 || nr == 336;
#else
	return false;
#endif
}

/*
 * Every syscall's return, while user functions are traced (a raw tracepoint: no tracefs
 * needed). Only threads inside a session with a traced frame running pay more than a
 * lookup; a failure is remembered with the innermost traced frame's call.
 */
static __always_inline int sys_exit_common(__u64 *ctx, bool helper_loop)
{
	struct session *sess;
	long ret = (long)ctx[1];
	__s64 key;
	__u32 d;

	if (!ready || ret >= 0 || ret < -MAX_ERRNO || !task_traced() || uprobe_tramp_syscall(ctx))
		return 0;
	key = session_key(bpf_get_current_pid_tgid());
	sess = find_session(key);
	/* the failure belongs to the frame that made the syscall, not to one longjmp() left */
	if (!sess || user_resync(sess, key, bpf_ktime_get_ns(), helper_loop))
		return 0;
	d = sess->stack.depth;
	if (d == 0 || d > MAX_FSTACK_DEPTH)
		return 0;
	sess->sys_err = -ret;
	sess->sys_err_seq = sess->stack.seq_ids[frame_idx(d - 1)];
	return 0;
}

/*
 * Its walks with bpf_loop() (5.17+, has_func_ret's kernels: the tracer loads this one
 * there), or open-coded (usys_exit_open, before): a program holding a callback's address
 * at all is refused there, dead code or not.
 */
SEC("raw_tp/sys_exit")
int usys_exit(__u64 *ctx)
{
	return sys_exit_common(ctx, true);
}

SEC("raw_tp/sys_exit")
int usys_exit_open(__u64 *ctx)
{
	return sys_exit_common(ctx, false);
}

/*
 * exec() replaces the program under a session that began in it: the old image's traced
 * frames never return, and the new image's calls would nest under them in a session that
 * never ends. Such a session ends here, unreported (its kernel frames of
 * execve's own, if traced, find no session on return); the new image's calls start anew.
 * A session that began in the kernel (a traced execve) goes on.
 */
SEC("raw_tp/sched_process_exec")
int uexec(void *ctx)
{
	__s64 key = session_key(bpf_get_current_pid_tgid());
	struct session *sess;
	struct func_info *fi;
	__u32 id;

	if (!ready)
		return 0;
	sess = find_session(key);
	if (!sess || !sess->stack.depth)
		return 0;
	id = sess->stack.func_ids[0];
	fi = bpf_map_lookup_elem(&func_infos, &id);
	if (fi && (fi->flags & FUNC_USER))
		end_session(sess, key);
	return 0;
}

#endif /* __RETSNOOP_USER_SESSION_BPF_H */
