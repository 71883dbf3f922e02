// SPDX-License-Identifier: BSD-2-Clause
/* The ip -> function id table of ip_slots.h, built before the BPF object's probes attach. */
#include <errno.h>
#include "ip_slot_table.h"

__u32 ip_slots__bits(size_t cnt)
{
	__u32 bits = 1;

	while (bits < IP_SLOTS_MAX_BITS && ((size_t)1 << bits) < 2 * cnt)
		bits++;
	return bits;
}

int ip_slots__place(struct ip_slot *tab, __u32 bits, __u64 ip, __u32 id)
{
	__u32 mask = (1u << bits) - 1, home, i, s;

	if (!ip)
		return -EINVAL;
	home = ip_slot_home(ip, 64 - bits);
	for (i = 0; i < IP_SLOT_PROBES; i++) {
		s = (home + i) & mask;
		if (tab[s].ip == ip)
			return -EEXIST;
		if (!tab[s].ip) {
			tab[s].ip = ip;
			tab[s].id = id;
			return s;
		}
	}
	return -ENOSPC;
}

int ip_slots__find(const struct ip_slot *tab, __u32 bits, __u64 ip, __u32 *id)
{
	__u32 mask = (1u << bits) - 1, home = ip_slot_home(ip, 64 - bits), i, s;

	for (i = 0; i < IP_SLOT_PROBES; i++) {
		s = (home + i) & mask;
		if (tab[s].ip == ip) {
			*id = tab[s].id;
			return 0;
		}
	}
	return -ENOENT;
}
