/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests' child processes held before exec, as `retsnoop -- CMD` holds its command. */
#ifndef __TESTS_UNIT_HELD_CHILD_H
#define __TESTS_UNIT_HELD_CHILD_H

#include <unistd.h>
#include "unit.h"

/* A child that execs @path with @argv once released by a write to *@go. */
static inline pid_t spawn_held(const char *path, char *const argv[], int *go)
{
	int p[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(100);
		execv(path, argv);
		_exit(101);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

#endif /* __TESTS_UNIT_HELD_CHILD_H */
