// SPDX-License-Identifier: BSD-2-Clause
/*
 * A small PIE for tests/sidecar/test_images.c: prints code addresses of itself and of its
 * own library as "name 0xaddr" lines, then waits for stdin to close, so that the test can
 * snapshot its mappings, let it exit, and symbolize the addresses afterwards.
 */
#include <stdio.h>
#include <unistd.h>
#include "uprog_lib.h"

#ifndef UPROG_VARIANT
#define UPROG_VARIANT 0
#endif

static void out(const char *what, void *addr)
{
	printf("%s %p\n", what, addr);
}

__attribute__((noinline)) int do_work(int n)
{
	uprog_lib_report(out);
	/* a different build (UPROG_VARIANT) gets different code, so a different build ID */
	return n + UPROG_VARIANT;
}

int main(void)
{
	char c;

	out("do_work", (void *)do_work);
	do_work(1);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
