/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * The probed function of a kprobe/kretprobe without bpf_get_func_ip(), shared by the
 * calibration (calib_feat.bpf.c) and the tracer (retsnoop.bpf.c) so that both read it
 * exactly the same way. BPF-side only; both objects include it after saying "no CO-RE"
 * (BPF_NO_PRESERVE_ACCESS_INDEX) and vmlinux.h.
 */
#ifndef __RETSNOOP_KPROBE_IP_BPF_H
#define __RETSNOOP_KPROBE_IP_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

/* x86 reports the address right after the int3 (ftrace-based kprobes emulate that). */
#ifdef __TARGET_ARCH_x86
#define KPROBE_IP_ADJ 1
#else
#define KPROBE_IP_ADJ 0
#endif

/* Deepest slot the calibration looks at, in 8-byte words above the BPF frame. */
#define MAX_KRET_IP_SLOT 50

/*
 * The probed address of the struct trace_kprobe that the kernel's kretprobe dispatch keeps
 * @slot words above the BPF frame (5.10: kretprobe_perf_func() -> trace_call_bpf());
 * 0 if that slot holds no readable pointer. @addr_off: where trace_kprobe keeps rp.kp.addr
 * in this kernel (the calibration's CO-RE answer; the tracer gets it as a constant).
 */
static __always_inline __u64 kretprobe_slot_ip(int slot, __u32 addr_off)
{
	__u64 fp, tk, addr = 0;

	asm volatile ("%[fp] = r10" : [fp] "=r"(fp));
	if (bpf_probe_read_kernel(&tk, sizeof(tk), (void *)(fp + slot * sizeof(__u64))))
		return 0;
	bpf_probe_read_kernel(&addr, sizeof(addr), (void *)(tk + addr_off));
	return addr;
}

#endif /* __RETSNOOP_KPROBE_IP_BPF_H */
