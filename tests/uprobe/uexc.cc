// SPDX-License-Identifier: BSD-2-Clause
/*
 * Returns that never happen: traced functions left by a C++ exception (tests/uprobe/run.sh).
 * exc_work -> exc_middle -> exc_inner -> open_config fails an open() on PATH; exc_inner
 * throws, exc_work catches and returns -1 (N times, default 2):
 *
 *   uexc PATH [N]
 *
 * The traced functions are extern "C": plain names for the globs, C++ unwinding all the same.
 */
#include <fcntl.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

extern "C" {

__attribute__((noipa)) int open_config(const char *path)
{
	return open(path, O_RDONLY | O_CLOEXEC);
}

__attribute__((noipa)) int exc_inner(const char *path)
{
	int fd = open_config(path);

	if (fd < 0)
		throw std::runtime_error(path);
	close(fd);
	return 0;
}

__attribute__((noipa)) int exc_middle(const char *path)
{
	return exc_inner(path) + 1;
}

__attribute__((noipa)) int exc_work(const char *path)
{
	try {
		return exc_middle(path);
	} catch (const std::exception &) {
		return -1;
	}
}

}

int main(int argc, char **argv)
{
	long i, n = argc > 2 ? atol(argv[2]) : 2, fails = 0;

	if (argc < 2) {
		std::fprintf(stderr, "usage: uexc PATH [N]\n");
		return 2;
	}
	for (i = 0; i < n; i++)
		fails += exc_work(argv[1]) < 0;
	std::printf("uexc: %ld failures\n", fails);
	return 0;
}
