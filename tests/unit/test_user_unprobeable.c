// SPDX-License-Identifier: BSD-2-Clause
/*
 * Functions a probe breaks (user_unprobeable.c): glibc's PLT resolvers and the functions
 * that return twice, by name, each with its reason, and an AVX-512 first instruction;
 * their neighbours (longjmp(), which never returns; vfork() and __restore_rt, tried and
 * fine) are left alone.
 */
#include <string.h>
#include "unit.h"
#include "user_unprobeable.h"

static void test_names(void **state)
{
	static const char *const broken[] = {
		"_dl_runtime_resolve_xsavec", "_dl_runtime_resolve_fxsave", "_dl_runtime_profile_avx512",
		"setjmp", "_setjmp", "__sigsetjmp", "getcontext",
		"__swapcontext",
	};
	static const char *const fine[] = {
		"longjmp", "__longjmp_chk", "siglongjmp", "vfork", "__vfork", "setcontext", "__restore_rt",
		"_dl_map_object", "_dl_catch_exception", "setjmp_helper", "my_getcontext", "",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(broken) / sizeof(broken[0]); i++)
		if (!user_unprobeable__why(broken[i]))
			fail_msg("%s: should be skipped", broken[i]);
	for (i = 0; i < sizeof(fine) / sizeof(fine[0]); i++)
		if (user_unprobeable__why(fine[i]))
			fail_msg("%s: should be traced", fine[i]);
	assert_non_null(strstr(user_unprobeable__why("_dl_runtime_resolve_xsave"), "link map"));
	assert_non_null(strstr(user_unprobeable__why("_setjmp"), "longjmp()"));
	assert_non_null(strstr(user_unprobeable__why("getcontext"), "setcontext()"));
}

/* x86-64: an EVEX (0x62) first instruction; VEX, endbr64 and plain code are stepped right */
static void test_code(void **state)
{
	static const unsigned char evex[] = { 0x62, 0xe2, 0x7d, 0x28 };	/* vpbroadcastb %esi,%ymm17 */
	static const unsigned char vex[] = { 0xc5, 0xf9, 0x6e, 0xcf };	/* vmovd %edi,%xmm1 */
	static const unsigned char endbr[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const unsigned char push[] = { 0x55, 0x48, 0x89, 0xe5 };	/* push %rbp; mov %rsp,%rbp */

	(void)state;
#if defined(__x86_64__)
	assert_non_null(strstr(user_unprobeable__code_why(evex, sizeof(evex)), "EVEX"));
#else
	assert_null(user_unprobeable__code_why(evex, sizeof(evex)));
#endif
	assert_null(user_unprobeable__code_why(vex, sizeof(vex)));
	assert_null(user_unprobeable__code_why(endbr, sizeof(endbr)));
	assert_null(user_unprobeable__code_why(push, sizeof(push)));
	assert_null(user_unprobeable__code_why(evex, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_code),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
