// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include "unit.h"
#include "result_fmt.h"
#include "records.h"

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

/*
 * User-space functions: any negative or NULL fails by type; the glob's rule otherwise;
 * without a type the guess keeps a pointer's low half from counting. The text is a
 * number (-1 is not -EPERM), with a syscall's errno beside it when one was seen.
 */
static void test_user_rules(void **state)
{
	static const struct {
		__u32 flags;
		__s64 res;
		bool err;
		const char *text;
	} cases[] = {
		/* int from DWARF: negative fails, -1 in a zero-extended register too */
		{ FUNC_USER | FUNC_NEEDS_SIGN_EXT, 0xffffffffLL, true, "[-1]" },
		{ FUNC_USER | FUNC_NEEDS_SIGN_EXT, -100000, true, "[-100000]" },
		{ FUNC_USER | FUNC_NEEDS_SIGN_EXT, 3, false, "[3]" },
		/* long: any negative, not only -4095..-1 */
		{ FUNC_USER, -5000, true, "[-5000]" },
		/* pointers: NULL only (no ERR_PTR in user space) */
		{ FUNC_USER | FUNC_RET_PTR, 0, true, "[NULL]" },
		{ FUNC_USER | FUNC_RET_PTR, -22, false, "[0xffffffffffffffea]" },
		/* size_t: -4095..-1 as 64 bits fail; anything else is a size, shown unsigned */
		{ FUNC_USER | FUNC_ERR_RANGE, -1, true, "[-1]" },
		{ FUNC_USER | FUNC_ERR_RANGE, -4095, true, "[-4095]" },
		{ FUNC_USER | FUNC_ERR_RANGE, -4096, false, "[0xfffffffffffff000]" },
		{ FUNC_USER | FUNC_ERR_RANGE, 0xffffffffLL, false, "[0xffffffff]" },
		{ FUNC_USER | FUNC_ERR_RANGE, 4096, false, "[4096]" },
		/* void/bool/unsigned never */
		{ FUNC_USER | FUNC_CANT_FAIL | FUNC_RET_BOOL, 0, false, "[false]" },
		/* no type: the guess */
		{ FUNC_USER | FUNC_ERR_GUESS, 0xffffffffLL, true, "[-1]" },
		{ FUNC_USER | FUNC_ERR_GUESS, -1, true, "[-1]" },
		{ FUNC_USER | FUNC_ERR_GUESS, 0x5555deadbeefLL, false, "[0x5555deadbeef]" },
		{ FUNC_USER | FUNC_ERR_GUESS, 0, false, "[0]" },
		/* =errno-positive: non-zero int (pthreads) */
		{ FUNC_USER | FUNC_ERR_NONZERO, 22, true, "[22]" },
		{ FUNC_USER | FUNC_ERR_NONZERO, 0, false, "[0]" },
		/* =le0 */
		{ FUNC_USER | FUNC_ERR_LE0, 0, true, "[0]" },
		{ FUNC_USER | FUNC_ERR_LE0, 0xffffffffLL, true, "[-1]" },
		{ FUNC_USER | FUNC_ERR_LE0, 7, false, "[7]" },
		/* =false: zero in the low 32 bits; a pointer's whole register */
		{ FUNC_USER | FUNC_ERR_ZERO, 0x100000000LL, true, "[0x100000000]" },
		{ FUNC_USER | FUNC_ERR_ZERO | FUNC_RET_PTR, 0x100000000LL, false, "[0x100000000]" },
		{ FUNC_USER | FUNC_ERR_ZERO, 1, false, "[1]" },
		/* =never */
		{ FUNC_USER | FUNC_CANT_FAIL | FUNC_ERR_GUESS, 0xffffffffLL, false, "[-1]" },
	};
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (result__is_err(cases[i].res, cases[i].flags) != cases[i].err)
			fail_msg("case %zu: is_err should be %d", i, cases[i].err);
		result__format(buf, sizeof(buf), cases[i].res, cases[i].flags);
		if (strcmp(buf, cases[i].text) != 0)
			fail_msg("case %zu: '%s', expected '%s'", i, buf, cases[i].text);
	}
	/* the errno of a syscall under it */
	result__format_sys(buf, sizeof(buf), 0xffffffffLL, FUNC_USER | FUNC_ERR_GUESS, ENOENT);
	assert_string_equal(buf, "[-1 ENOENT]");
	result__format_sys(buf, sizeof(buf), 0, FUNC_USER | FUNC_RET_PTR, EACCES);
	assert_string_equal(buf, "[NULL EACCES]");
	result__format_sys(buf, sizeof(buf), -1, FUNC_USER, 0);
	assert_string_equal(buf, "[-1]");
	/* a kernel -1 is still -EPERM */
	result__format(buf, sizeof(buf), -1, 0);
	assert_string_equal(buf, "[-EPERM]");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_is_err),
		cmocka_unit_test(test_user_rules),
	};

	return cmocka_run_group_tests_name("result_fmt", tests, NULL, NULL);
}
