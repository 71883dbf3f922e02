/* SPDX-License-Identifier: BSD-2-Clause */
/* Common includes for the cmocka-based unit tests. */
#ifndef RETSNOOP_TESTS_UNIT_H
#define RETSNOOP_TESTS_UNIT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <setjmp.h>
#include <cmocka.h>

/* Directory with fixture files (tests/unit/fixtures by default). */
static inline const char *fixtures_dir(void)
{
	const char *d = getenv("UNIT_FIXTURES");

	return d ? d : "tests/unit/fixtures";
}

#endif
