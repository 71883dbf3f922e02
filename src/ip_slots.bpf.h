/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * kprobe.multi: the traced function's id from bpf_get_func_ip() through the table of
 * ip_slots.h, instead of the kernel's cookie bsearch (an indirect call per compare).
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_IP_SLOTS_BPF_H
#define __RETSNOOP_IP_SLOTS_BPF_H

#include "retsnoop_state.bpf.h"
#include "ip_slots.h"

/* 64 - log2(slots) and slots - 1, set by user space with the table; 0: none, ask the cookie */
const volatile __u32 ip_slot_shift = 0;
const volatile __u32 ip_slot_mask = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);			/* resized to the table's slots */
	__type(key, __u32);
	__type(value, struct ip_slot);
} ip_slots SEC(".maps");

/* kprobe.multi programs only (entry, return or session): true with *@id set on a hit */
static __always_inline bool ip_slot_func_id(struct pt_regs *ctx, __u32 *id)
{
	__u64 ip = bpf_get_func_ip(ctx);
	__u32 home = ip_slot_home(ip, ip_slot_shift), i, key;
	struct ip_slot *s;

	for (i = 0; i < IP_SLOT_PROBES; i++) {
		key = (home + i) & ip_slot_mask;
		s = bpf_map_lookup_elem(&ip_slots, &key);
		if (!s)
			return false;
		if (s->ip == ip) {
			*id = s->id;
			return true;
		}
		if (!s->ip)
			return false;	/* an empty slot ends the run: not in the table */
	}
	return false;
}

#endif /* __RETSNOOP_IP_SLOTS_BPF_H */
