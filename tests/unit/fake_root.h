/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A /proc and /sys tree of a test's own (the caches' opts.root): files written under it,
 * their directories made as needed. Include after unit.h.
 */
#ifndef RETSNOOP_TEST_FAKE_ROOT_H
#define RETSNOOP_TEST_FAKE_ROOT_H

#include <stdio.h>
#include <stdlib.h>

/* @len bytes of @data as @root/@rel */
static inline void fake_root_put(const char *root, const char *rel, const void *data, size_t len)
{
	char path[256], cmd[320];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

#endif
