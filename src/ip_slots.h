/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A function's id from its address without the kernel's cookie search: on kprobe.multi
 * links bpf_get_attach_cookie() is a bsearch over the link's addresses whose compare is an
 * indirect call (a retpoline on most x86 kernels), ~97 guest instructions per call for one
 * function and growing with the log of the count. This open-addressing table, built by the
 * mass attacher and read by retsnoop.bpf.c, costs one multiply and a few inlined array
 * reads. An address that found no slot within IP_SLOT_PROBES (rare at half load) is simply
 * absent: BPF then asks for the cookie, so a miss is slower, never wrong.
 *
 * Shared by user space and BPF: the hash must be the same on both sides.
 */
#ifndef RETSNOOP_IP_SLOTS_H
#define RETSNOOP_IP_SLOTS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define IP_SLOT_PROBES		4	/* slots tried from an address's home slot */
#define IP_SLOTS_MAX_BITS	24	/* 16M slots: far above any kernel's function count */

struct ip_slot {
	__u64 ip;			/* 0: empty (no function lives at 0) */
	__u32 id;
	__u32 pad;
};

/* The home slot of @ip in a table of 2^(64 - @shift) slots (Fibonacci hashing). */
static inline __u32 ip_slot_home(__u64 ip, __u32 shift)
{
	return (__u32)((ip * 0x9E3779B97F4A7C15ULL) >> shift);
}

#endif /* RETSNOOP_IP_SLOTS_H */
