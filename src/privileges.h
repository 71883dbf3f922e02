/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which capabilities a tracing run needs, and which of them this process lacks. Measured
 * in the test guests (tests/vm/scenarios/environment.sh): CAP_BPF and CAP_PERFMON (BPF
 * programs and links), CAP_SYSLOG (kallsyms addresses, unless kptr_restrict is 0 and
 * perf_event_paranoid <= 1), CAP_DAC_READ_SEARCH (tracefs is root-only), and CAP_SYS_ADMIN
 * where kernel.perf_event_paranoid is 3 (a Debian/Ubuntu addition that refuses every
 * perf_event_open(), which kprobes go through, to anyone else).
 */
#ifndef RETSNOOP_PRIVILEGES_H
#define RETSNOOP_PRIVILEGES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct privileges_opts {
	size_t sz;			/* sizeof(struct privileges_opts) */
	const char *status_path;	/* NULL: /proc/self/status */
	const char *paranoid_path;	/* NULL: /proc/sys/kernel/perf_event_paranoid */
	const char *lockdown_path;	/* NULL: /sys/kernel/security/lockdown, else cmdline */
	const char *cmdline_path;	/* NULL: /proc/cmdline */
};

enum lockdown {
	LOCKDOWN_UNKNOWN,		/* no securityfs or no lockdown LSM */
	LOCKDOWN_NONE,
	LOCKDOWN_INTEGRITY,		/* BPF tracing still works */
	LOCKDOWN_CONFIDENTIALITY,	/* BPF may not read kernel memory: no tracing */
};

/* The kernel's lockdown mode, the bracketed word of "none integrity [confidentiality]". */
enum lockdown privileges__lockdown(const struct privileges_opts *opts);

/*
 * The capabilities (bit N = capability N) a tracing run needs that this process lacks
 * (0: none). Negative errno when /proc can't tell.
 */
long long privileges__missing(const struct privileges_opts *opts);

/* "CAP_SYSLOG, CAP_DAC_READ_SEARCH" for a capability mask. */
const char *privileges__names(__u64 caps, char *buf, size_t sz);

#endif
