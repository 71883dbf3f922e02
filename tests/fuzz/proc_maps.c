// SPDX-License-Identifier: BSD-2-Clause
/*
 * /proc/PID/maps parser (src/proc_maps.c): any text parses or fails cleanly; what it
 * accepts is ordered, non-overlapping and found again by address at both ends of every
 * mapping, with paths that are non-empty C strings.
 */
#include "fuzz.h"
#include "proc_maps.h"

#define MAX_CHECKED 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proc_maps *m = NULL;
	const struct proc_map *pm, *prev = NULL;
	size_t i, n;
	int err;

	err = proc_maps__parse((const char *)data, size, NULL, &m);
	if (err) {
		FUZZ_CHECK(!m);
		return 0;
	}
	n = proc_maps__cnt(m);
	for (i = 0; i < n && i < MAX_CHECKED; i++) {
		pm = proc_maps__get(m, i);
		FUZZ_CHECK(pm && pm->start < pm->end);
		FUZZ_CHECK(!prev || prev->end <= pm->start);
		FUZZ_CHECK(!pm->path || (pm->path[0] && strlen(pm->path) < size));
		FUZZ_CHECK(proc_maps__find(m, pm->start) == pm);
		FUZZ_CHECK(proc_maps__find(m, pm->end - 1) == pm);
		FUZZ_CHECK(!(pm->prot & ~0xfu));
		prev = pm;
	}
	FUZZ_CHECK(!proc_maps__get(m, n));
	proc_maps__free(m);
	return 0;
}
