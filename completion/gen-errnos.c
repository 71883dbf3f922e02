// SPDX-License-Identifier: BSD-2-Clause
/*
 * Print the errno names retsnoop's -x/-X accept, one line, space-separated: the bash
 * completion is generated from this at build time, so it offers exactly src/errnos.c's table.
 * Built with the host compiler: it runs during the build.
 */
#include <stdio.h>
#include "errnos.h"

int main(void)
{
	const char *sep = "";
	int i;

	for (i = 0; i <= ERRNO_NAME_MAX; i++) {
		const char *name = errno__name(i);

		if (!name)
			continue;
		printf("%s%s", sep, name);
		sep = " ";
	}
	putchar('\n');
	return 0;
}
