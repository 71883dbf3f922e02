// SPDX-License-Identifier: BSD-2-Clause
/*
 * Returns that never happen: traced functions left by longjmp() (tests/uprobe/run.sh).
 * Each mode fails an open() on PATH in open_config() at the bottom of
 * jmp_work -> jmp_middle -> jmp_inner -> open_config, and jumps back from jmp_inner:
 *
 *   ujmp in PATH [N]    jmp_work() holds the jmp_buf: jmp_middle and jmp_inner never
 *                       return, jmp_work returns -1 after the jump (N times, default 2)
 *   ujmp out PATH [N]   main() holds it: jmp_middle's session never returns at all; after
 *                       the N jumps, do_work() fails the open() once more and returns
 *   ujmp insys PATH [N] as in, and after the jump jmp_work() makes a syscall of its own
 *                       before it returns: an open() of /dev/null/x, failing with ENOTDIR
 *                       (the syscall's frames belong under jmp_work, not the left ones)
 *
 * -O2 -g, noipa: every traced function a real call with a symbol of its own.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static jmp_buf *jmp_to;

__attribute__((noipa)) int open_config(const char *path)
{
	return open(path, O_RDONLY | O_CLOEXEC);
}

__attribute__((noipa)) int jmp_inner(const char *path)
{
	int fd = open_config(path);

	if (fd < 0)
		longjmp(*jmp_to, 1);
	close(fd);
	return 0;
}

__attribute__((noipa)) int jmp_middle(const char *path)
{
	return jmp_inner(path) + 1;
}

__attribute__((noipa)) int jmp_work(const char *path, int sys_after)
{
	jmp_buf env;

	jmp_to = &env;
	if (setjmp(env)) {
		if (sys_after && open("/dev/null/x", O_RDONLY | O_CLOEXEC) >= 0)
			return 0;
		return -1;
	}
	return jmp_middle(path);
}

__attribute__((noipa)) int do_work(const char *path)
{
	int fd = open_config(path);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	volatile long i, n = argc > 3 ? atol(argv[3]) : 2, fails = 0;
	jmp_buf env;

	if (argc < 3) {
		fprintf(stderr, "usage: ujmp in|out|insys PATH [N]\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		if (strncmp(argv[1], "in", 2) == 0) {
			fails += jmp_work(argv[2], argv[1][2] != '\0') < 0;
			continue;
		}
		jmp_to = &env;
		if (setjmp(env))
			fails++;
		else
			jmp_middle(argv[2]);
	}
	if (strcmp(argv[1], "out") == 0)
		fails += do_work(argv[2]) < 0;
	printf("ujmp: %ld failures\n", fails);
	return 0;
}
