/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * -U: the user registers and a window of the user stack of the thread whose session is
 * being reported (struct rec_ustack), for user space to unwind from .eh_frame. Nothing is
 * done for sessions that are not reported.
 *
 * The registers are the ones the kernel saved at the thread's kernel entry, at the top of
 * its kernel stack. Their place is measured by feature detection (user_regs_off bytes above
 * task_struct.stack), which works the same on every kernel from 5.10 on, with or without
 * bpf_task_pt_regs().
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_USTACK_BPF_H
#define __RETSNOOP_USTACK_BPF_H

#include "retsnoop_state.bpf.h"
#include "uret.bpf.h"

const volatile __u32 ustack_size = USTACK_DEFAULT_SIZE;	/* -C stacks.user-stack-size */
const volatile __u32 user_regs_off = 0;	/* user pt_regs, from the kernel stack's base */

#define USTACK_EOPNOTSUPP	95

#if defined(__TARGET_ARCH_x86)
#define USTACK_ARCH		USTACK_ARCH_X86_64
#define USTACK_REG_CNT		21
#define USTACK_SP(r)		((r)[19])
#define USTACK_IS_USER(r)	(((r)[17] & 3) == 3)	/* cs: privilege level 3 */
/* read_user_sp_pc(): the 4 registers from ip on (ip, cs, flags, sp) */
#define USTACK_WIN_START	16
#define USTACK_WIN_PC(w)	((w)[0])
#define USTACK_WIN_SP(w)	((w)[3])
#define USTACK_WIN_IS_USER(w)	(((w)[1] & 3) == 3)
#elif defined(__TARGET_ARCH_arm64)
#define USTACK_ARCH		USTACK_ARCH_ARM64
#define USTACK_REG_CNT		34
#define USTACK_SP(r)		((r)[31])
#define USTACK_IS_USER(r)	(((r)[33] & 0xf) == 0)	/* pstate: EL0t */
/* read_user_sp_pc(): sp, pc, pstate (and orig_x0, in struct pt_regs after them) */
#define USTACK_WIN_START	31
#define USTACK_WIN_PC(w)	((w)[1])
#define USTACK_WIN_SP(w)	((w)[0])
#define USTACK_WIN_IS_USER(w)	(((w)[2] & 0xf) == 0)
#endif

/*
 * The record is built here, then copied into the ring buffer at its real length: a
 * reservation must have a constant size, and most windows are cut short by the stack's top.
 * One extra page lets the verifier see every page-sized read stay inside.
 */
struct ustack_buf {
	__u8 data[sizeof(struct rec_ustack) + USTACK_MAX_SIZE + USTACK_PAGE];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ustack_buf);
} ustack_bufs SEC(".maps");

static __always_inline void read_ustack_regs(struct rec_ustack *r)
{
#ifdef USTACK_ARCH
	void *task = (void *)bpf_get_current_task();
	void *kstack = NULL;

	r->arch = USTACK_ARCH;
	if (!user_regs_off) {
		r->err = -USTACK_EOPNOTSUPP;
		return;
	}
	r->err = bpf_probe_read_kernel(&kstack, sizeof(kstack), task + task_stack_off);
	if (!r->err)
		r->err = bpf_probe_read_kernel(r->regs, USTACK_REG_CNT * 8, kstack + user_regs_off);
	if (r->err)
		return;
	r->reg_cnt = USTACK_REG_CNT;
	r->sp = USTACK_SP(r->regs);
	if (!USTACK_IS_USER(r->regs))
		r->flags |= USTACK_F_NOT_USER;
#else
	r->err = -USTACK_EOPNOTSUPP;
#endif
}

/*
 * The current thread's user stack pointer and pc as saved at its kernel entry (a syscall,
 * an interrupt or fault taken in user mode): false where they can't be read or are not
 * user-mode registers (a kernel thread).
 */
static __always_inline bool read_user_sp_pc(__u64 *sp, __u64 *pc)
{
#ifdef USTACK_ARCH
	void *task = (void *)bpf_get_current_task();
	void *kstack = NULL;
	__u64 w[4];

	if (!user_regs_off ||
	    bpf_probe_read_kernel(&kstack, sizeof(kstack), task + task_stack_off) ||
	    bpf_probe_read_kernel(w, sizeof(w), kstack + user_regs_off + USTACK_WIN_START * 8) ||
	    !USTACK_WIN_IS_USER(w))
		return false;
	*sp = USTACK_WIN_SP(w);
	*pc = USTACK_WIN_PC(w);
	return true;
#else
	return false;
#endif
}

#if defined(__TARGET_ARCH_arm64)
/*
 * arm64: the current thread's user frame pointer and link register (x29, x30: @fp_lr) as
 * saved at its kernel entry; call after read_user_sp_pc() said they are user-mode ones.
 */
static __always_inline bool read_user_fp_lr(__u64 *fp_lr)
{
	void *task = (void *)bpf_get_current_task();
	void *kstack = NULL;

	return user_regs_off &&
	       !bpf_probe_read_kernel(&kstack, sizeof(kstack), task + task_stack_off) &&
	       !bpf_probe_read_kernel(fp_lr, 16, kstack + user_regs_off + 29 * 8);
}
#endif

/*
 * Page by page from sp up. A page that can't be read is a hole (zeros, said in
 * stack_holes) and the pages above it are still read: a large local buffer the thread
 * never touched lies between sp and its callers' return addresses. The window ends after
 * the last page read (the rest is past the top of the stack's mapping).
 */
static __always_inline void read_ustack_window(struct ustack_buf *b)
{
	struct rec_ustack *r = (void *)b->data;
	__u8 *stack = b->data + sizeof(*r);
	/* 64-bit: a 32-bit copy's bounds check would not carry over to the register used */
	__u64 off = 0, want = ustack_size, chunk, end = 0;
	__u32 holes = 0, below = 0;	/* below: the pages under the last one read */
	int i, err;

	if (want > USTACK_MAX_SIZE)
		want = USTACK_MAX_SIZE;
	for (i = 0; i < USTACK_MAX_SIZE / USTACK_PAGE + 1; i++) {
		if (off >= want)
			break;
		chunk = USTACK_PAGE - ((r->sp + off) & (USTACK_PAGE - 1));
		if (chunk > want - off)
			chunk = want - off;
		/* the compiler knows chunk <= a page and would drop the check the verifier needs */
		barrier_var(chunk);
		if (chunk > USTACK_PAGE)
			break;
		/* a failed read zeroes its destination */
		err = bpf_probe_read_user(&stack[off & (USTACK_MAX_SIZE - 1)], chunk,
					  (void *)(r->sp + off));
		off += chunk;
		if (!err) {
			end = off;
			below = (1U << i) - 1;
			continue;
		}
		if (!r->stack_err)
			r->stack_err = err;
		holes |= 1U << i;
	}
	r->stack_len = end;
	/* pages past the last one read are no holes: the window ends before them */
	r->stack_holes = holes & below;
}

/* @sess's user stack record, sent right before its sample */
static __always_inline void emit_ustack(struct session *sess)
{
	struct ustack_buf *b;
	struct rec_ustack *r;
	__u32 zero = 0, len;

	b = bpf_map_lookup_elem(&ustack_bufs, &zero);
	if (!b)
		return;
	r = (void *)b->data;
	r->type = REC_USTACK;
	r->err = 0;
	r->sess_id = sess->sess_id;
	r->tgid = sess->tgid;
	r->pid = sess->pid;
	r->arch = 0;
	r->reg_cnt = 0;
	r->flags = 0;
	r->stack_holes = 0;
	r->stack_len = 0;
	r->stack_err = 0;
	r->sp = 0;
	/* the thread's stack now is a later call's or its exit's: said so */
	if (sess->flags & SESS_F_LATE_END)
		r->flags = USTACK_F_LATE;
	read_ustack_regs(r);
	if (!r->err && !(r->flags & USTACK_F_NOT_USER)) {
		read_ustack_window(b);
		read_uret_instances(r);
	} else {
		r->uret_tramp = 0;
		r->uret_cnt = 0;
		r->__pad2 = 0;
	}
	len = r->stack_len;
	if (len > USTACK_MAX_SIZE)
		len = USTACK_MAX_SIZE;
	/*
	 * 7.x runs raw tracepoint, uprobe and trampoline programs preemptible: one that took
	 * this CPU meanwhile may have built its own record in the buffer (seen once: a
	 * session's user stack went missing, uncounted). Then this one's is lost: counted.
	 */
	if (r->sess_id != sess->sess_id ||
	    bpf_ringbuf_output(&rb, b, sizeof(*r) + len, quiet_rec_flags()))
		count_dropped_record(sess);
}

#endif /* __RETSNOOP_USTACK_BPF_H */
