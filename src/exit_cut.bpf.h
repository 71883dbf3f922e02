/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * A session its thread's exit cuts short. exit() and exit_group() never return, nor do
 * the traced functions that called them: a program that gives up (make's die() under
 * main(), a test program's fail_and_exit()) ends the session there, and that session is
 * what a developer chasing the program's failure wants to see. So it is judged as one
 * whose entry function returned, with the frames still running marked as never returned
 * (LAT_NO_RETURN) for that reason (NORET_EXIT in their result, with the exit code):
 * - it failed if the chain its innermost running frame saw last failed (the chain
 *   returned last, or one kept aside for that frame that was not dealt with since);
 * - or if the thread itself called exit()/exit_group() with a non-zero status, or the
 *   process died of a signal that dumps core (SIGSEGV, SIGABRT, ...). A thread that the
 *   process's exit took down while it ran (another thread's exit(), a SIGKILL) did not
 *   fail by that alone.
 * A session that began in a kernel function is most often the exit syscall's own (or a
 * function of the exit path): its callees' failures are not the program's, and neither
 * is the exit status, so it is reported only when the process crashed (a signal that
 * dumps core: a kernel oops in a traced syscall, get_signal() delivering SIGSEGV), or
 * with -S, which asks for every session.
 *
 * But a session begun by any other syscall's entry wrapper lost its return: only exit()
 * and exit_group() don't return, and a thread a signal kills in a syscall leaves it (its
 * return runs) before it exits. A kretprobe or fprobe short of return instances skipped
 * it, and the thread made no traced call after that to show it gone (missed_exit.bpf.h):
 * 5.10's -K runs lost a short-lived process's last failure so, silently. Such a session is
 * ended as a stale one is, and counted (LOST SESSION ENDS), unless the process crashed
 * (an oops in the syscall: the crash rule's).
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_EXIT_CUT_BPF_H
#define __RETSNOOP_EXIT_CUT_BPF_H

#include "retsnoop_state.bpf.h"
#include "session_slot.bpf.h"
#include "records.bpf.h"
#include "err_chain.bpf.h"
#include "ustack.bpf.h"
#include "missed_exit.bpf.h"

/*
 * Set by user space before load: whether the kernel can skip a traced syscall's return
 * (kretprobes, 6.x's kprobe.multi: their pools of return instances), so that a session
 * still open at its thread's exit may have lost it; else that check is pruned away.
 */
const volatile bool exit_lost_returns = false;

/* Set by user space before load: task_struct.exit_code; 0: unknown (status 0 shown). */
const volatile __u32 task_exit_code_off = 0;

/* The syscall number in the user registers the kernel saved at its entry. */
#if defined(__TARGET_ARCH_x86)
#define EXIT_NR_WORD	15	/* pt_regs.orig_ax */
#define NR_EXIT		60
#define NR_EXIT_GROUP	231
#elif defined(__TARGET_ARCH_arm64)
#define EXIT_NR_WORD	35	/* pt_regs.syscallno: an s32, the word's low half */
#define NR_EXIT		93
#define NR_EXIT_GROUP	94
#endif

/* Signals whose default action dumps core: the process crashed (SIG_KERNEL_COREDUMP_MASK). */
#define CRASH_SIGNALS	(1U << 3 | 1U << 4 | 1U << 5 | 1U << 6 | 1U << 7 | 1U << 8 | \
			 1U << 11 | 1U << 24 | 1U << 25 | 1U << 31)

/*
 * Is the thread exiting from its own exit()/exit_group() call? Another thread's
 * exit_group() or a fatal signal takes it down from wherever it was: a syscall it was
 * blocked in (another number), or user code (-1).
 */
static __always_inline bool own_exit_call(void)
{
#ifdef EXIT_NR_WORD
	void *task = (void *)bpf_get_current_task(), *kstack = NULL;
	__s32 nr = -1;

	if (!user_regs_off ||
	    bpf_probe_read_kernel(&kstack, sizeof(kstack), task + task_stack_off) ||
	    bpf_probe_read_kernel(&nr, sizeof(nr), kstack + user_regs_off + EXIT_NR_WORD * 8))
		return false;
	return nr == NR_EXIT || nr == NR_EXIT_GROUP;
#else
	return false;
#endif
}

/* The exit alone is a failure: see the top of this file. @code: task_struct.exit_code */
static __always_inline bool exit_failed(__u32 code, bool own)
{
	__u32 sig = code & 0x7f;

	if (sig)
		return CRASH_SIGNALS >> (sig & 31) & 1;
	return own && (code >> 8 & 0xff);
}

/* Did kernel session @sess, still open at its thread's exit, lose its syscall's return? */
static __always_inline bool syscall_end_lost(struct session *sess)
{
	__u32 id = sess->stack.func_ids[frame_idx(0)];
	struct func_info *fi;

	if (!(sess->frame0 & FRAME0_SYSCALL))
		return false;
	fi = bpf_map_lookup_elem(&func_infos, &id);
	return fi && !(fi->flags & FUNC_EXIT_SYSCALL);
}

/*
 * End @sess, running while its thread exits, and send it for judgement; @user: it began
 * in a user function; @helper_loop: a lost syscall return's frames popped with bpf_loop()
 * (5.17+: the _open programs keep the open-coded walk, which the verifier walks round by
 * round: 1,848 instructions of session_table_exit's 6.12 load, a tenth of ksession's time)
 */
static __always_inline void end_exit_cut(struct session *sess, __s64 key, __u64 now, bool user,
					 bool helper_loop)
{
	__u32 d = sess->stack.depth, n, i, code = 0;
	bool own = own_exit_call();
	struct frag *f;
	__u64 why;

	if (d == 0 || d > MAX_FSTACK_DEPTH) {
		end_session(sess, key);
		return;
	}
	if (task_exit_code_off)
		bpf_probe_read_kernel(&code, sizeof(code),
				      (void *)bpf_get_current_task() + task_exit_code_off);
	sess->flags |= SESS_F_AT_EXIT;
	if (exit_lost_returns && !user && !exit_failed(code & 0x7f, false) &&
	    syscall_end_lost(sess)) {
		end_stale_session(sess, key, now, helper_loop);
		return;
	}
	/*
	 * A failed chain kept aside while the innermost running frame went on (reporting
	 * it, say) is that frame's last error: put it back, as its return would have
	 */
	if (user && !sess->tail_err && sess->frag_cnt) {
		f = &sess->frags[(sess->frag_cnt - 1) & (MAX_FRAGS - 1)];
		if (f->start == d && !f->handled) {
			restore_chain(sess, f, d - 1);
			sess->tail_err = true;
		}
	}
	if (!user)	/* a crash only, see the top of this file */
		sess->tail_err = exit_failed(code & 0x7f, false);
	else if (exit_failed(code, own))
		sess->tail_err = true;
	why = NORET_EXIT | (own ? NORET_EXIT_OWN : 0) | (code & NORET_EXIT_CODE);
	for (n = 0; n < MAX_FSTACK_DEPTH; n++) {
		if (n >= d)
			break;
		i = frame_idx(n);
		sess->stack.func_res[i] = why;
		sess->stack.func_lat[i] = ((now - sess->entry_ts[i]) & ~LAT_NO_RETURN) |
					  LAT_NO_RETURN;
	}
	sess->flags |= SESS_F_EXITED;
	sess->overflow = 0;
	sess->stack.depth = 0;
	emit_session_end(sess, now, false);
	end_session(sess, key);
}

/*
 * Every exit of a thread that may have a session (loaded for `-- CMD`, -p and user
 * functions): the session ends with the thread, instead of counting as "still running"
 * when tracing stops.
 */
static __always_inline int thread_exit_common(bool helper_loop)
{
	__s64 key = session_key(bpf_get_current_pid_tgid());
	struct session *sess = find_session(key);

	if (!sess)
		return 0;
	/* a user frame 0 has its stack pointer recorded (user_sp_code()), a kernel one 0 */
	if (ready)
		end_exit_cut(sess, key, bpf_ktime_get_ns(), sess->entry_sp[0], helper_loop);
	else
		end_session(sess, key);
	return 0;
}

/*
 * Every exit of a thread where thread_exit is not loaded, with sessions in the table or
 * where the kernel can skip returns: a session its exit cuts short ends, silently (the exit
 * path's own, not asked for), but for one that lost its syscall's return, reported and
 * counted as thread_exit does; a table slot kept by a dead thread would be a slot less
 * for every later one.
 */
static __always_inline int session_exit_common(bool helper_loop)
{
	__s64 key = session_key(bpf_get_current_pid_tgid());
	struct session *sess = find_session(key);

	if (!sess)
		return 0;
	if (exit_lost_returns && ready && !sess->entry_sp[0] && syscall_end_lost(sess)) {
		sess->flags |= SESS_F_AT_EXIT;
		end_stale_session(sess, key, bpf_ktime_get_ns(), helper_loop);
	} else {
		end_session(sess, key);
	}
	return 0;
}

/* Each with bpf_loop() (5.17+), and open-coded (_open, before): see end_exit_cut() */
SEC("raw_tp/sched_process_exit")
int thread_exit(void *ctx)
{
	return thread_exit_common(true);
}

SEC("raw_tp/sched_process_exit")
int thread_exit_open(void *ctx)
{
	return thread_exit_common(false);
}

SEC("raw_tp/sched_process_exit")
int session_table_exit(void *ctx)
{
	return session_exit_common(true);
}

SEC("raw_tp/sched_process_exit")
int session_table_exit_open(void *ctx)
{
	return session_exit_common(false);
}

#endif /* __RETSNOOP_EXIT_CUT_BPF_H */
