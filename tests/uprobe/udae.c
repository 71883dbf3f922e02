// SPDX-License-Identifier: BSD-2-Clause
/*
 * A parameter LLVM dropped (tests/uprobe/run-names.sh): built with clang -O2, the static
 * open_it() no other object can call loses its unused first parameter (and the constant
 * flags) from its calling convention, path coming in rdi, while DWARF still lists all
 * three. work() calls it once with PATH, which fails:
 *
 *   udae PATH
 */
#include <fcntl.h>

__attribute__((noinline)) static int open_it(int unused, const char *path, int flags)
{
	return open(path, flags);
}

__attribute__((noinline)) int work(const char *path)
{
	return open_it(42, path, O_RDONLY) < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	return argc > 1 && work(argv[1]) < 0 ? 0 : 1;
}
