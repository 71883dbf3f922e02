// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include "kprobe_pmu.h"

int kprobe_pmu__read(int *type, int *ret_bit)
{
	FILE *f;
	int ok;

	f = fopen("/sys/bus/event_source/devices/kprobe/type", "re");
	if (!f)
		return -errno;
	ok = fscanf(f, "%d", type) == 1;
	fclose(f);
	f = fopen("/sys/bus/event_source/devices/kprobe/format/retprobe", "re");
	if (!f)
		return -errno;
	ok = ok && fscanf(f, "config:%d", ret_bit) == 1;
	fclose(f);
	/* the bit becomes 1ULL << ret_bit: anything outside a __u64 is no valid format */
	ok = ok && *ret_bit >= 0 && *ret_bit < 64;
	return ok ? 0 : -EINVAL;
}
