// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>
#include "unit.h"
#include "result_fmt.h"
#include "retsnoop.h"

static const char *fmt(__s64 res, __u32 flags)
{
	static char buf[64];

	result__format(buf, sizeof(buf), res, flags);
	return buf;
}

static void test_errors(void **state)
{
	assert_string_equal(fmt(-22, 0), "[-EINVAL]");
	assert_string_equal(fmt(-7, 0), "[-E2BIG]");
	assert_string_equal(fmt(-524, 0), "[-ENOTSUPP]");
	assert_string_equal(fmt(-4095, 0), "[-4095]");		/* no name: decimal */
	assert_string_equal(fmt(-41, 0), "[-41]");
	/* A 4-byte int returned -EINVAL leaves garbage in the upper half of the register. */
	assert_string_equal(fmt(0x12345678ffffffeaLL, FUNC_NEEDS_SIGN_EXT), "[-EINVAL]");
	assert_string_equal(fmt(-12, FUNC_RET_PTR), "[-ENOMEM]");	/* ERR_PTR */
}

static void test_values(void **state)
{
	assert_string_equal(fmt(0, FUNC_RET_VOID | FUNC_CANT_FAIL), "[void]");
	assert_string_equal(fmt(0, FUNC_RET_PTR), "[NULL]");
	assert_string_equal(fmt((__s64)0xffffc9000031e000ULL, FUNC_RET_PTR), "[0xffffc9000031e000]");
	assert_string_equal(fmt(1, FUNC_RET_BOOL | FUNC_CANT_FAIL), "[true]");
	assert_string_equal(fmt(0, FUNC_RET_BOOL | FUNC_CANT_FAIL), "[false]");
	assert_string_equal(fmt(5, 0), "[5]");
	assert_string_equal(fmt((1 << 20) - 1, 0), "[1048575]");
	assert_string_equal(fmt(1 << 20, 0), "[0x100000]");
	assert_string_equal(fmt(-4096, 0), "[-4096]");
	assert_string_equal(fmt(-(1LL << 30), 0), "[-1073741824]");
	assert_string_equal(fmt(-(1LL << 30) - 1, 0), "[0xffffffffbfffffff]");
}

static void test_is_err(void **state)
{
	assert_true(result__is_err(-1, 0));
	assert_true(result__is_err(-4095, 0));
	assert_false(result__is_err(-4096, 0));
	assert_false(result__is_err(0, 0));
	assert_true(result__is_err(0, FUNC_RET_PTR));
	assert_false(result__is_err(-22, FUNC_CANT_FAIL));
	assert_true(result__is_err(0xffffffffLL, FUNC_NEEDS_SIGN_EXT));	/* (int)-1 */
	assert_false(result__is_err(0xffffffffLL, 0));			/* 64-bit 4294967295 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_is_err),
	};

	return cmocka_run_group_tests_name("result_fmt", tests, NULL, NULL);
}
