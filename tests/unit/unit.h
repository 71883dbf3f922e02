/* SPDX-License-Identifier: BSD-2-Clause */
/* Common includes for the cmocka-based unit tests. */
#ifndef RETSNOOP_TESTS_UNIT_H
#define RETSNOOP_TESTS_UNIT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <cmocka.h>

/* Directory with fixture files (tests/unit/fixtures by default). */
static inline const char *fixtures_dir(void)
{
	const char *d = getenv("UNIT_FIXTURES");

	return d ? d : "tests/unit/fixtures";
}

/* @path's bytes, read whole (the caller frees them), their count in *@len */
static inline char *unit_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = ftell(f);
	rewind(f);
	buf = malloc(*len ? *len : 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, *len, f), *len);
	fclose(f);
	return buf;
}

/* @path made @len bytes of @buf */
static inline void unit_write_file(const char *path, const char *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

#endif
