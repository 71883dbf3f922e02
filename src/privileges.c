// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include "opts.h"
#include "privileges.h"

static const struct { int cap; const char *name; } cap_names[] = {
	{ CAP_BPF, "CAP_BPF" },
	{ CAP_PERFMON, "CAP_PERFMON" },
	{ CAP_SYSLOG, "CAP_SYSLOG" },
	{ CAP_DAC_READ_SEARCH, "CAP_DAC_READ_SEARCH" },
	{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN" },
};

#define BIT(c) (1ULL << (c))

/* The "CapEff:" mask of a /proc/<pid>/status file; negative errno if absent. */
static long long effective_caps(const char *path)
{
	char line[256];
	long long caps = -ENODATA;
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "CapEff:", 7) == 0) {
			caps = (long long)strtoull(line + 7, NULL, 16);
			break;
		}
	}
	fclose(f);
	return caps;
}

long long privileges__missing(const struct privileges_opts *opts)
{
	__u64 need = BIT(CAP_BPF) | BIT(CAP_PERFMON) | BIT(CAP_SYSLOG) | BIT(CAP_DAC_READ_SEARCH);
	struct privileges_opts o;
	const char *par;
	long long have;
	int paranoid = 2;
	FILE *f;

	if (OPTS_COPY(&o, opts))
		return -EINVAL;
	par = o.paranoid_path ?: "/proc/sys/kernel/perf_event_paranoid";
	have = effective_caps(o.status_path ?: "/proc/self/status");
	if (have < 0)
		return have;
	f = fopen(par, "re");
	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = 2;
		fclose(f);
	}
	if (paranoid >= 3)
		need |= BIT(CAP_SYS_ADMIN);
	/* CAP_SYS_ADMIN stood for CAP_BPF and CAP_PERFMON before 5.8 and still covers them */
	if (have & BIT(CAP_SYS_ADMIN))
		have |= BIT(CAP_BPF) | BIT(CAP_PERFMON);
	return need & ~(__u64)have;
}

const char *privileges__names(__u64 caps, char *buf, size_t sz)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++) {
		if (caps & BIT(cap_names[i].cap))
			len += snprintf(buf + len, len < sz ? sz - len : 0, "%s%s", len ? ", " : "",
					cap_names[i].name);
	}
	return buf;
}

enum lockdown privileges__lockdown(const struct privileges_opts *opts)
{
	struct privileges_opts o;
	char buf[128];
	size_t n;
	FILE *f;

	/* opts this build can't honour: as unknown as a kernel without securityfs */
	if (OPTS_COPY(&o, opts))
		return LOCKDOWN_UNKNOWN;
	f = fopen(o.lockdown_path ?: "/sys/kernel/security/lockdown", "re");
	if (!f && !o.lockdown_path) {
		/* securityfs not mounted: what the kernel was booted with still tells */
		f = fopen(o.cmdline_path ?: "/proc/cmdline", "re");
		if (!f)
			return LOCKDOWN_UNKNOWN;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		if (strstr(buf, "lockdown=confidentiality"))
			return LOCKDOWN_CONFIDENTIALITY;
		if (strstr(buf, "lockdown=integrity"))
			return LOCKDOWN_INTEGRITY;
		return LOCKDOWN_UNKNOWN;
	}
	if (!f)
		return LOCKDOWN_UNKNOWN;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (strstr(buf, "[confidentiality]"))
		return LOCKDOWN_CONFIDENTIALITY;
	if (strstr(buf, "[integrity]"))
		return LOCKDOWN_INTEGRITY;
	if (strstr(buf, "[none]"))
		return LOCKDOWN_NONE;
	return LOCKDOWN_UNKNOWN;
}
