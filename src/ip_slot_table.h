/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Building the ip -> function id table of ip_slots.h in user space (the mass attacher
 * fills the BPF array with it). Pure functions: no BPF, no printing.
 */
#ifndef RETSNOOP_IP_SLOT_TABLE_H
#define RETSNOOP_IP_SLOT_TABLE_H

#include <stddef.h>
#include "ip_slots.h"

/* log2 of the slot count for @cnt addresses: at most half full, at least 2 slots. */
__u32 ip_slots__bits(size_t cnt);

/*
 * Place @ip (id @id) in @tab (2^@bits slots, zeroed before the first call). Returns the
 * slot index, -EEXIST if @ip is already there (the first id stays), -ENOSPC if its
 * IP_SLOT_PROBES slots are taken (BPF falls back to the cookie for it), -EINVAL for ip 0.
 */
int ip_slots__place(struct ip_slot *tab, __u32 bits, __u64 ip, __u32 id);

/* What BPF does: @ip's id in @tab, or -ENOENT. */
int ip_slots__find(const struct ip_slot *tab, __u32 bits, __u64 ip, __u32 *id);

#endif /* RETSNOOP_IP_SLOT_TABLE_H */
