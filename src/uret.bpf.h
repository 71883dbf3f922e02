/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * The uprobe return trampoline of the current process and the thread's pending return
 * probes. A return probe writes the trampoline's address over the traced call's return
 * address and keeps the original in the kernel (struct return_instance): user_resync()
 * looks for the trampoline to tell which traced frames still run, and a user stack
 * capture sends the originals along, so that its unwinding goes on past each traced
 * frame instead of stopping at the trampoline (rec_ustack.uret[]).
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_URET_BPF_H
#define __RETSNOOP_URET_BPF_H

#include "retsnoop_state.bpf.h"

/* Set by user space when user functions are traced (kernel_features.h has the offsets). */
const volatile __u32 task_mm_off = 0;
const volatile __u32 mm_xol_area_off = 0;
const volatile __u32 xol_vaddr_off = 0;
const volatile __u32 task_utask_off = 0;
const volatile __u32 utask_ri_off = 0;
const volatile __u32 ri_stack_off = 0;
const volatile __u32 ri_orig_ret_off = 0;
const volatile __u32 ri_next_off = 0;

/* The current process's uprobe trampoline (mm->uprobes_state.xol_area->vaddr); 0: none */
static __always_inline __u64 uprobe_trampoline(void)
{
	__u64 task = bpf_get_current_task(), mm = 0, area = 0, vaddr = 0;

	if (!xol_vaddr_off ||
	    bpf_probe_read_kernel(&mm, sizeof(mm), (void *)(task + task_mm_off)) || !mm ||
	    bpf_probe_read_kernel(&area, sizeof(area), (void *)(mm + mm_xol_area_off)) || !area)
		return 0;
	bpf_probe_read_kernel(&vaddr, sizeof(vaddr), (void *)(area + xol_vaddr_off));
	return vaddr;
}

/*
 * @r's uret[]: current->utask->return_instances, newest (innermost) first, at most
 * USTACK_MAX_URETS of them. Only at a capture that goes out, never per call.
 */
static __always_inline void read_uret_instances(struct rec_ustack *r)
{
	__u64 task = bpf_get_current_task(), utask = 0, ri = 0;
	__u32 i;

	r->uret_tramp = 0;
	r->uret_cnt = 0;
	r->__pad2 = 0;
	if (!ri_next_off)
		return;
	r->uret_tramp = uprobe_trampoline();
	if (!r->uret_tramp ||
	    bpf_probe_read_kernel(&utask, sizeof(utask), (void *)(task + task_utask_off)) ||
	    !utask ||
	    bpf_probe_read_kernel(&ri, sizeof(ri), (void *)(utask + utask_ri_off)))
		return;
	for (i = 0; i < USTACK_MAX_URETS; i++) {
		if (!ri ||
		    bpf_probe_read_kernel(&r->uret[i].stack, 8, (void *)(ri + ri_stack_off)) ||
		    bpf_probe_read_kernel(&r->uret[i].orig_ret, 8, (void *)(ri + ri_orig_ret_off)) ||
		    bpf_probe_read_kernel(&ri, sizeof(ri), (void *)(ri + ri_next_off)))
			break;
	}
	r->uret_cnt = i;
}

#endif /* __RETSNOOP_URET_BPF_H */
