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
 * They are told apart by the stack they run on. A syscall entry wrapper (FUNC_SYSCALL)
 * runs in the thread's own context, on its kernel stack: a block of THREAD_SIZE bytes
 * aligned to its size, which only that thread's calls use. The kernel runs interrupt
 * handlers, softirqs and NMIs on per-CPU stacks of their own, so a call whose stack
 * position is outside frame 0's block, in a session whose frame 0 is a syscall, is an
 * interrupt's: its entry is not recorded (a kprobe session skips its return run) and its
 * exit is not looked at. What each kernel still runs on the task's stack (the interrupt
 * entry's wrappers on some) stays in; tests/vm/scenarios/irq-calls.sh measures it.
 * Sessions started elsewhere (a function an interrupt may run itself, a user function)
 * are left as they were: their frame 0's block need not be a task stack.
 *
 * THREAD_SIZE comes from where feature detection found the user registers, at the top of
 * the task stack (tracer.c); 0 when not known, and nothing is left out.
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_IRQ_CALLS_BPF_H
#define __RETSNOOP_IRQ_CALLS_BPF_H

#include "retsnoop_state.bpf.h"

/* ~(THREAD_SIZE - 1), set by user space before load; 0: interrupts' calls are not told apart */
const volatile __u64 kstack_mask = 0;

/*
 * Is the kernel call at stack position @kpos an interrupt's, inside @sess? @kpos 0: not
 * known (a probe whose registers carry no stack pointer), never.
 */
static __always_inline bool irq_call(const struct session *sess, __u64 kpos)
{
	__u64 block = sess->kpos0 & kstack_mask;

	/* compared, not masked: an fentry's position is its ctx pointer (no bitwise ops) */
	return kstack_mask && sess->frame0_syscall && kpos &&
	       (kpos < block || kpos > (block | ~kstack_mask));
}

#endif /* __RETSNOOP_IRQ_CALLS_BPF_H */
