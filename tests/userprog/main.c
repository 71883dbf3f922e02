// SPDX-License-Identifier: BSD-2-Clause
/*
 * The -U test program: main -> do_work -> open_config (in libucfg.so) -> open() on a path
 * that does not exist, so that the openat syscall fails with ENOENT under a known user
 * stack. Built at test time with and without frame pointers (tests/userprog/userprog.mk).
 *
 * usage: userprog [PATH [HOLD_MS [RELEASE]]]  HOLD_MS: stay alive that long after the
 * failure, so a tracer's maps snapshot of a short-lived process is not the point of a test;
 * with RELEASE, a file: only until it exists (a test creates it once the tracer has shown
 * this process's sample), at most HOLD_MS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "ucfg.h"

__attribute__((noinline)) static int do_work(const char *path)
{
	int fd = open_config(path);

	/* keep the call from becoming a tail call: do_work must stay on the stack */
	if (fd < 0)
		perror(path);
	return fd < 0 ? 1 : 0;
}

/* written after the call: main must not tail-call do_work, or it leaves the stack */
volatile int userprog_done;

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/nonexistent/retsnoop-userprog.conf";
	int ret = do_work(path);

	userprog_done = 1;
	if (argc > 3) {
		/* access() is not open(): the failure traced stays the only open of ours */
		for (int ms = atoi(argv[2]); ms > 0 && access(argv[3], F_OK); ms -= 10)
			usleep(10000);
	} else if (argc > 2) {
		usleep(atoi(argv[2]) * 1000);
	}
	return ret;
}
