// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "errnos.h"

static void test_names_match_libc(void **state)
{
	/* Our table is the kernel's; for the classic range it must agree with glibc's numbers. */
	assert_string_equal(errno__name(EPERM), "EPERM");
	assert_string_equal(errno__name(E2BIG), "E2BIG");
	assert_string_equal(errno__name(EINVAL), "EINVAL");
	assert_string_equal(errno__name(ENOMEM), "ENOMEM");
	assert_string_equal(errno__name(EOPNOTSUPP), "EOPNOTSUPP");
	assert_string_equal(errno__name(EHWPOISON), "EHWPOISON");
	assert_string_equal(errno__name(0), "NULL");
	assert_string_equal(errno__name(524), "ENOTSUPP");
	assert_string_equal(errno__name(530), "ERECALLCONFLICT");
}

static void test_holes_and_range(void **state)
{
	assert_null(errno__name(41));
	assert_null(errno__name(58));
	assert_null(errno__name(134));
	assert_null(errno__name(520));
	assert_null(errno__name(531));
	assert_null(errno__name(-1));
}

static void test_parse(void **state)
{
	assert_int_equal(errno__parse("EINVAL"), EINVAL);
	assert_int_equal(errno__parse("-EINVAL"), EINVAL);
	assert_int_equal(errno__parse("NULL"), 0);
	assert_int_equal(errno__parse("ENOTSUPP"), 524);
	assert_int_equal(errno__parse("einval"), -ENOENT);	/* case-sensitive */
	assert_int_equal(errno__parse("EWOULDBLOCK"), -ENOENT);	/* aliases are not names */
	assert_int_equal(errno__parse(""), -ENOENT);
}

static void test_roundtrip(void **state)
{
	int i, named = 0;

	for (i = 0; i <= ERRNO_NAME_MAX; i++) {
		const char *n = errno__name(i);

		if (!n)
			continue;
		named++;
		assert_int_equal(errno__parse(n), i);
	}
	/* 0..133 minus 41 and 58, plus 512..530 minus 520. */
	assert_int_equal(named, 132 + 18);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_match_libc),
		cmocka_unit_test(test_holes_and_range),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_roundtrip),
	};

	return cmocka_run_group_tests_name("errnos", tests, NULL, NULL);
}
