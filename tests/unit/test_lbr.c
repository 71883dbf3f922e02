// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include "unit.h"
#include "lbr.h"

static void test_parse_spec(void **state)
{
	__u64 f = 0;

	assert_int_equal(lbr__parse_spec("any", &f), 0);
	assert_int_equal(f, 0x8);
	assert_int_equal(lbr__parse_spec("any_return", &f), 0);
	assert_int_equal(f, 0x20);
	assert_int_equal(lbr__parse_spec("call", &f), 0);
	assert_int_equal(f, 0x2000);
	assert_int_equal(lbr__parse_spec("ind_jump", &f), 0);
	assert_int_equal(f, 0x1000);
	assert_int_equal(lbr__parse_spec("0x400", &f), 0);
	assert_int_equal(f, 0x400);
	assert_int_equal(lbr__parse_spec("16", &f), 0);
	assert_int_equal(f, 16);
	assert_int_equal(lbr__parse_spec("anyy", &f), -EINVAL);
	assert_int_equal(lbr__parse_spec("", &f), -EINVAL);
	assert_int_equal(lbr__parse_spec("12abc", &f), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_spec),
	};

	return cmocka_run_group_tests_name("lbr", tests, NULL, NULL);
}
