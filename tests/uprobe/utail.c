// SPDX-License-Identifier: BSD-2-Clause
/*
 * Traced functions that tail-call traced functions (tests/uprobe/run.sh). At -O2,
 * `return f(...)` in a function whose frame is gone by then compiles to a jump: the callee
 * enters at the caller's stack pointer at entry, its return address slot already holding
 * the uprobe trampoline the caller's return probe put there. The kernel keeps both return
 * probes (it chains them) and runs both, callee first, when the callee returns.
 *
 *   utail PATH [N]   N times (default 2): tail_work -> tail_outer => tail_mid =>
 *                    tail_inner -> open_config, which fails the open() of PATH; '=>' is a
 *                    tail call, '->' a call. tail_outer makes a call of its own first
 *                    (tail_check), so it has a stack frame that it tears down before its
 *                    jump; tail_mid has none.
 *
 * noipa: every traced function keeps its own symbol and real calls; it does not stop the
 * sibling-call optimisation (run.sh checks the jumps in objdump -d and says SKIP without).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int checks;

__attribute__((noipa)) int open_config(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	checks++;
	return fd;
}

__attribute__((noipa)) int tail_check(const char *path)
{
	checks++;
	return path[0] ? 0 : -1;
}

__attribute__((noipa)) int tail_inner(const char *path)
{
	int fd = open_config(path);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

__attribute__((noipa)) int tail_mid(const char *path)
{
	return tail_inner(path);
}

__attribute__((noipa)) int tail_outer(const char *path)
{
	if (tail_check(path) < 0)
		return -2;
	return tail_mid(path);
}

__attribute__((noipa)) int tail_work(const char *path)
{
	int ret = tail_outer(path);

	checks++;
	return ret;
}

int main(int argc, char **argv)
{
	long i, n = argc > 2 ? atol(argv[2]) : 2, fails = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: utail PATH [N]\n");
		return 2;
	}
	for (i = 0; i < n; i++)
		fails += tail_work(argv[1]) < 0;
	printf("utail: %ld failures\n", fails);
	return 0;
}
