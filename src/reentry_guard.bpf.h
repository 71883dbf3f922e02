/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * One of our handlers at a time per CPU, for the fentry/fexit templates and the injected
 * probes: a per-CPU counter keeps a traced function called from our own handler from
 * recursing into them.
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_REENTRY_GUARD_BPF_H
#define __RETSNOOP_REENTRY_GUARD_BPF_H

#include "retsnoop_state.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} running SEC(".maps");

/*
 * Set when the only program that takes the guard is -F's one multi-link program
 * (mass_attacher__sole_tracing_prog()): the kernel's own per-program recursion check
 * already skips that program on a CPU where it runs, and the counter's lookup, test and
 * two stores were ~25 instructions of each of its runs (bench/results/prog-profile*).
 */
const volatile bool guard_by_kernel = false;

/* The counter enter_guard() hands out when the kernel guards: nothing to take or leave. */
static __u32 guard_unused;

/*
 * NULL when a handler already runs on this CPU, else the CPU's counter, taken: hand it to
 * leave_guard() (one map lookup per handler, not two).
 */
static __always_inline __u32 *enter_guard(void)
{
	__u32 zero = 0, *cnt;

	if (guard_by_kernel)
		return &guard_unused;
	cnt = bpf_map_lookup_elem(&running, &zero);
	if (!cnt)
		return NULL;
	if (*cnt) {
		/* a traced function called from our own handler, or an interrupt within it */
		struct drop_stats *st = drop_stats();

		if (st)
			__sync_fetch_and_add(&st->skipped_calls, 1);
		return NULL;
	}
	*cnt = 1;
	return cnt;
}

static __always_inline void leave_guard(__u32 *cnt)
{
	if (!guard_by_kernel)
		*cnt = 0;
}

#endif /* __RETSNOOP_REENTRY_GUARD_BPF_H */
