/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * Calls an interrupt makes inside a thread's session. A hard interrupt, the softirqs run
 * at its end or at a local_bh_enable(), and an NMI run on the CPU of the thread they
 * interrupt, with its pid as current: their traced calls joined the thread's session as
 * if the thread had made them. A whole-kernel hunt's -T traces (7.2) had a timer
 * interrupt's __sysvec_apic_timer_interrupt, hrtimer, scheduler and softirq calls nested
 * in the middle of syscalls, with their NULLs among the syscall's own callees' results
 * and their depth taking the slots chains are kept aside in.
 *
 * They are told apart by the stack they run on. A thread's own calls run on its kernel
 * stack, a block of THREAD_SIZE bytes aligned to its size that only its calls use; the
 * kernel runs interrupt handlers, softirqs and NMIs on per-CPU stacks of their own. A
 * session whose frame 0 ran on the thread's stack (FRAME0_TASK) takes a call whose stack
 * position is outside that block for an interrupt's and leaves it out: its entry is not
 * recorded (a kprobe session skips its return run) and its exit is not looked at. Frame
 * 0 is on that stack when it is a syscall entry wrapper, which only a thread runs, and
 * otherwise when its position is within task_struct.stack's block (one read, the first
 * time a call comes from another stack). A session an interrupt started itself (frame 0
 * on an interrupt stack) and one started at a user function are left as they were. What
 * a kernel runs of the interrupt entry on the thread's stack (irq_enter_rcu() and
 * irq_exit_rcu() on arm64 and 5.10) stays in: tests/vm/scenarios/irq-calls.sh measures
 * it. A -J kprobe's hit is judged alike (inject.bpf.h).
 *
 * THREAD_SIZE comes from where feature detection found the user registers, at the top of
 * the task stack (tracer.c); 0 when not known or -C bpf.irq-calls=y, and nothing is left
 * out.
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_IRQ_CALLS_BPF_H
#define __RETSNOOP_IRQ_CALLS_BPF_H

#include "retsnoop_state.bpf.h"

/* ~(THREAD_SIZE - 1), set by user space before load; 0: interrupts' calls are not told apart */
const volatile __u64 kstack_mask = 0;

/* What a new session's frame 0 is (FRAME0_*); @syscall: a syscall entry wrapper */
static __always_inline __u8 frame0_kind(bool syscall)
{
	/* a syscall runs on its thread's stack; another function's is known when needed */
	return syscall ? FRAME0_SYSCALL | FRAME0_TASK | FRAME0_KNOWN : 0;
}

/*
 * Did @sess's frame 0, not a syscall, run on its thread's stack? Asked once a session, and
 * only when a call comes from another stack (an interrupt's, most likely): one read of
 * task_struct.stack, into the session's usp_base, which a kernel frame's session never
 * uses (0), not the stack: kentry's with -A's capture is near the verifier's 512 bytes.
 * Compared, not masked: an fentry's position is its ctx pointer, which the verifier
 * allows no bitwise operation on.
 */
static __always_inline bool frame0_on_task_stack(struct session *sess)
{
	void *task = (void *)bpf_get_current_task();
	__u64 base;

	if (!task_stack_off ||
	    bpf_probe_read_kernel(&sess->usp_base, sizeof(sess->usp_base), task + task_stack_off))
		sess->usp_base = 0;
	base = sess->usp_base;
	sess->usp_base = 0;
	return base && sess->kpos0 >= base && sess->kpos0 <= (base | ~kstack_mask);
}

/*
 * Is the kernel call at stack position @kpos an interrupt's, inside @sess? @kpos 0: not
 * known (a probe whose registers carry no stack pointer), never. A call on frame 0's own
 * stack, every call but an interrupt's, costs two compares.
 */
static __always_inline bool irq_call(struct session *sess, __u64 kpos)
{
	__u64 block = sess->kpos0 & kstack_mask;

	if (!kstack_mask || !sess->kpos0 || !kpos ||
	    (kpos >= block && kpos <= (block | ~kstack_mask)))
		return false;
	if (!(sess->frame0 & FRAME0_KNOWN))
		sess->frame0 |= FRAME0_KNOWN | (frame0_on_task_stack(sess) ? FRAME0_TASK : 0);
	return sess->frame0 & FRAME0_TASK;
}

#endif /* __RETSNOOP_IRQ_CALLS_BPF_H */
