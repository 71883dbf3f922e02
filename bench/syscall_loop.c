// SPDX-License-Identifier: BSD-2-Clause
/*
 * syscall_loop getpid|bpf|close N: N system calls in a tight loop, timed; the workload of
 * the per-call tracing overhead benchmark. Prints "calls N ns_per_call X".
 *
 *   getpid  getpid(2) through syscall(2) (never a libc cache): one traced function,
 *           __do_sys_getpid, per call on 6.12;
 *   bpf     lookups in a one-element BPF array through bpf(2): each call passes
 *           __x64_sys_bpf, __sys_bpf and the map's lookup path;
 *   close   close(-1) through syscall(2), which fails with EBADF: with __x64_sys_close
 *           traced, every call is a failing session, i.e. one reported sample (the -U
 *           table: what the user stack costs per sample).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long i, n = argc > 2 ? atol(argv[2]) : 100000;
	__u32 key = 0, val;
	double a, b;
	int fd = -1, nr = SYS_getpid, arg = 0;

	if (argc < 2 || n <= 0 ||
	    (strcmp(argv[1], "getpid") && strcmp(argv[1], "bpf") && strcmp(argv[1], "close"))) {
		fprintf(stderr, "usage: syscall_loop getpid|bpf|close [N]\n");
		return 2;
	}
	if (strcmp(argv[1], "bpf") == 0) {
		fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bench_map", 4, 4, 1, NULL);
		if (fd < 0) {
			perror("bpf_map_create");
			return 1;
		}
	}
	if (strcmp(argv[1], "close") == 0) {
		nr = SYS_close;
		arg = -1;
	}
	a = now_ns();
	if (fd < 0) {
		for (i = 0; i < n; i++)
			syscall(nr, arg);
	} else {
		for (i = 0; i < n; i++)
			bpf_map_lookup_elem(fd, &key, &val);
	}
	b = now_ns();
	printf("calls %ld ns_per_call %.1f\n", n, (b - a) / n);
	if (fd >= 0)
		close(fd);
	return 0;
}
