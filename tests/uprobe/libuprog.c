// SPDX-License-Identifier: BSD-2-Clause
/*
 * libuprog.so: the test program's own shared library, so that a library function is
 * traced through its file offset in a library loaded at a random base.
 */
#include <fcntl.h>
#include <unistd.h>
#include "uprog.h"

__attribute__((noipa)) int uprog_lib_probe(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int uprog_lib_probe_alias(const char *path) __attribute__((alias("uprog_lib_probe")));
