// SPDX-License-Identifier: BSD-2-Clause
/* libucfg.so: the test program's own shared library (main.c). */
#include <fcntl.h>
#include <stdio.h>
#include "ucfg.h"

__attribute__((noinline)) int open_config(const char *path)
{
	int fd = open(path, O_RDONLY);

	/* not a tail call: open_config stays on the stack while open() runs */
	if (fd < 0)
		fprintf(stderr, "open_config: cannot open %s\n", path);
	return fd;
}
