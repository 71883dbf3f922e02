// SPDX-License-Identifier: BSD-2-Clause
/*
 * Functions a return probe breaks (user_unprobeable.c): glibc's PLT resolvers and the
 * functions that return twice, by name, each with its reason;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
