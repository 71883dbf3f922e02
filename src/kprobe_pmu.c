// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "kprobe_pmu.h"

static int pmu_read(const char *pmu, int *type, int *ret_bit)
{
	char path[128];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	ok = fscanf(f, "%d", type) == 1;
	fclose(f);
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/format/retprobe", pmu);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	ok = ok && fscanf(f, "config:%d", ret_bit) == 1;
	fclose(f);
	/* the bit becomes 1ULL << ret_bit: anything outside a __u64 is no valid format */
	ok = ok && *ret_bit >= 0 && *ret_bit < 64;
	return ok ? 0 : -EINVAL;
}

int kprobe_pmu__read(int *type, int *ret_bit)
{
	return pmu_read("kprobe", type, ret_bit);
}

int uprobe_pmu__read(int *type, int *ret_bit)
{
	return pmu_read("uprobe", type, ret_bit);
}

int probe_pmu__open(int type, int ret_bit, bool retprobe, __u64 config1, __u64 config2,
		    int pid)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = retprobe ? 1ULL << ret_bit : 0;
	attr.config1 = config1;
	attr.config2 = config2;
	fd = syscall(__NR_perf_event_open, &attr, pid > 0 ? pid : -1, pid > 0 ? -1 : 0, -1,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}
