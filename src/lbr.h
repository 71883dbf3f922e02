/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * LBR capture needs a hardware perf event with branch-stack sampling open on every CPU for
 * the whole run; bpf_get_branch_snapshot() then reads the CPU's branch records.
 */
#ifndef RETSNOOP_LBR_H
#define RETSNOOP_LBR_H

#include <linux/types.h>

/* --lbr=SPEC aliases, PERF_SAMPLE_BRANCH_* bits. */
#define LBR_DEFAULT_FLAGS	0x20	/* any_return */
#define LBR_KERNEL_FLAG		0x2	/* always ORed in: kernel branches only */

/* The branch-record hardware, for messages: arm64's counterpart of Intel's LBR is BRBE. */
#ifdef __aarch64__
#define LBR_HW_NAME "LBR/BRBE"
#else
#define LBR_HW_NAME "LBR"
#endif

/* Parse one --lbr value: an alias ("any_return") or a number; negative errno if invalid. */
int lbr__parse_spec(const char *spec, __u64 *flags);
/* Space-separated list of aliases, for error messages. */
const char *lbr__aliases(void);

struct lbr;

/* Open branch-sampling events on all CPUs; NULL with errno set if the CPU can't. */
struct lbr *lbr__open(__u64 flags);
void lbr__close(struct lbr *lbr);

#endif
