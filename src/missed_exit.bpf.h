/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * A session whose outermost return the kernel never ran for us. A kretprobe has a fixed
 * pool of return instances (maxactive, max(10, 2 * CPUs) by default), and 6.x's fprobe
 * behind a kretprobe.multi link one of (functions * CPUs * 2): a thread that enters while
 * the pool is taken gets its entry probe and no return probe. If that was frame 0, the
 * session never ends; every later traced call of the thread would run inside it, deeper
 * and deeper, and its failures would never be reported (measured with errtrig --pileup
 * on 6.12: 20 of 30 threads' -EBADF silently missing with -K, 26 with the kprobe.multi
 * pair).
 *
 * The kernel stack tells: it grows down, and while frame 0 runs, every traced call of the
 * thread on that stack enters below where frame 0 entered, or at the very same place when
 * frame 0 tail-calls it (error-hunts' mmap case: __x64_sys_mmap jumps to
 * ksys_mmap_pgoff). A kprobe entry (its stack pointer) above that position on the same
 * stack means frame 0 is gone. Other stacks (an interrupt's, the exception stacks) are
 * told apart by the THREAD_SIZE-aligned block a task stack fills alone: an entry outside
 * frame 0's block is never judged. fentry's position is its ctx pointer, inside the BPF
 * trampoline's frame, whose size grows with the function's argument count: a tail-called
 * function with fewer arguments sits above its caller, so fentry positions only gate the
 * rule below.
 *
 * The same call level is not always the same position either: with
 * randomize_kstack_offset (5.13+, on in Debian's kernels) every syscall moves its frames
 * down by a random 0-1 KiB, so the next syscall's entry is below the lost one's about half
 * the time (measured: 13 of 20 stale sessions found by position alone). Near frame 0 only
 * the functions' kind tells: a syscall entry wrapper (FUNC_SYSCALL) never runs inside
 * another, so one entered while frame 0 is one means frame 0 is gone. Only entries within
 * that zone pay a func_infos lookup (an array map's, inlined).
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_MISSED_EXIT_BPF_H
#define __RETSNOOP_MISSED_EXIT_BPF_H

#include "retsnoop_state.bpf.h"
#include "session_slot.bpf.h"
#include "records.bpf.h"

/* The smallest kernel task stack (x86-64, arm64: 16 KiB, allocated aligned to its size). */
#define KSTACK_BLOCK	(16 * 1024)
/*
 * How far below frame 0 the next syscall's entry can be: the random offset (up to
 * 1 KiB + alignment), and the compat entry paths' own frames.
 */
#define KSTACK_RAND_ZONE	2048

/*
 * Where this entry is on the kernel stack. fentry's ctx is a pointer to the verifier;
 * comparing it with a number and storing it in a map value need the pointer-leak
 * permission (CAP_PERFMON), which tracing needs anyway.
 */
static __always_inline __u64 entry_kpos(void *ctx, bool fentry)
{
	return fentry ? (__u64)ctx : PT_REGS_SP((struct pt_regs *)ctx);
}

/*
 * Did frame 0 of @sess return unseen? @kpos: this kernel entry's position, @id its
 * function, @fentry: a trampoline's position. Frame 0's own position is 0 for a user
 * frame: no kernel address is below KSTACK_BLOCK.
 */
static __always_inline bool frame0_gone(struct session *sess, __u64 kpos, __u32 id,
					bool fentry)
{
	__u64 start = sess->kpos0;
	struct func_info *fi;

	/* deeper than a syscall's random offset, or on another stack: a call inside frame 0 */
	if (kpos < start - KSTACK_RAND_ZONE || kpos >= (start | (KSTACK_BLOCK - 1)) + 1)
		return false;
	if (!fentry && kpos > start)
		return true;
	if (!(sess->frame0 & FRAME0_SYSCALL))
		return false;
	fi = bpf_map_lookup_elem(&func_infos, &id);
	return fi && (fi->flags & FUNC_SYSCALL);
}

/*
 * End @sess, whose frame 0 returned without its exit probe. Every frame still open ran
 * inside frame 0 and is gone with it: each had its exit skipped too (a pile-up takes the
 * pools of the functions it sleeps in alike). All are popped as not returned, as
 * user_unwind() pops what longjmp() left, and the session is reported by the rule of a
 * session that returned: as failing when the innermost open frame's last callee's chain
 * failed (its error can't have been dealt with by frames that never went on to run
 * anything we saw), the "no return" frames above that chain. Counted (LOST SESSION ENDS).
 */
static __always_inline void end_stale_session(struct session *sess, __s64 key, __u64 now,
					       bool helper_loop)
{
	struct drop_stats *st = drop_stats();

	if (st)
		__sync_fetch_and_add(&st->lost_ends, 1);
	sess->flags |= SESS_F_LATE_END;
	__pop_unreturned(sess, 0, key, now, helper_loop);
}

#endif /* __RETSNOOP_MISSED_EXIT_BPF_H */
