// SPDX-License-Identifier: BSD-2-Clause
/*
 * syscall_loop N: N lookups in a one-element BPF array through bpf(2), timed. The workload
 * for per-call tracing overhead: each call passes __x64_sys_bpf, __sys_bpf and the map's
 * lookup path. Prints "calls N ns_per_call X".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 100000;
	struct timespec a, b;
	__u32 key = 0, val;
	int fd;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bench_map", 4, 4, 1, NULL);
	if (fd < 0) {
		perror("bpf_map_create");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		bpf_map_lookup_elem(fd, &key, &val);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("calls %ld ns_per_call %.1f\n", n,
	       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	close(fd);
	return 0;
}
