/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * --lbr: the CPU's branch records, snapshot first thing in an exit or probe handler
 * (before our own code's branches overwrite them) into a per-CPU slot, from where the
 * error's origin (err_chain.bpf.h) or an interim sample (interim.bpf.h) takes them.
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_LBR_SNAP_BPF_H
#define __RETSNOOP_LBR_SNAP_BPF_H

#include "retsnoop_state.bpf.h"

struct lbr_snapshot {
	__s32 sz;
	struct lbr_record lbrs[MAX_LBR_ENTRIES];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lbr_snapshot);
} lbr_snaps SEC(".maps");

/* Snapshot LBRs first thing in an exit handler, before our own code overwrites them. */
static __always_inline void snapshot_lbrs(void)
{
	struct lbr_snapshot *snap;
	__u32 zero = 0;

	if (!capture_lbr)
		return;
	snap = bpf_map_lookup_elem(&lbr_snaps, &zero);
	if (snap)
		snap->sz = bpf_get_branch_snapshot(snap->lbrs, sizeof(snap->lbrs), 0);
}

#endif /* __RETSNOOP_LBR_SNAP_BPF_H */
