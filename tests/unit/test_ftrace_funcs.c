// SPDX-License-Identifier: BSD-2-Clause
/* available_filter_functions parsing, on a hand-written excerpt. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "unit.h"
#include "ftrace_funcs.h"

static void test_parse_fixture(void **state)
{
	const struct ftrace_func *f;
	struct ftrace_funcs *ff;
	char path[512];
	size_t i;

	snprintf(path, sizeof(path), "%s/discovery/available_filter_functions", fixtures_dir());
	ff = ftrace_funcs__load(path);
	assert_non_null(ff);
	/* 20 lines, two of them placeholders for unresolvable addresses */
	assert_int_equal(ftrace_funcs__cnt(ff), 18);
	for (i = 0; i < ftrace_funcs__cnt(ff); i++)
		assert_null(strstr(ftrace_funcs__get(ff, i)->name, "__ftrace_invalid_address"));

	f = ftrace_funcs__get(ff, 0);
	assert_string_equal(f->name, "__x64_sys_bpf");
	assert_null(f->module);
	/* duplicates are kept: discovery counts them */
	assert_string_equal(ftrace_funcs__get(ff, 5)->name, "dup_static");
	assert_string_equal(ftrace_funcs__get(ff, 6)->name, "dup_static");
	assert_string_equal(ftrace_funcs__get(ff, 9)->name, "array_map_helper.isra.0");

	f = ftrace_funcs__get(ff, 14);
	assert_string_equal(f->name, "kvm_read_guest");
	assert_string_equal(f->module, "kvm");
	f = ftrace_funcs__get(ff, 17);
	assert_string_equal(f->name, "array_map_nobtf");
	assert_string_equal(f->module, "nobtfmod");
	assert_null(ftrace_funcs__get(ff, 18));
	ftrace_funcs__free(ff);
}

static void test_parse_odd_input(void **state)
{
	static const char text[] =
		"\n"
		"  leading_blanks\n"
		"__ftrace_invalid_address___0\n"
		"with_mod [ext4]\n"
		"tab_mod\t[xfs]\n"
		"no_newline [btrfs]";
	struct ftrace_funcs *ff = ftrace_funcs__parse(text, sizeof(text) - 1);

	assert_non_null(ff);
	assert_int_equal(ftrace_funcs__cnt(ff), 4);
	assert_string_equal(ftrace_funcs__get(ff, 0)->name, "leading_blanks");
	assert_string_equal(ftrace_funcs__get(ff, 1)->module, "ext4");
	assert_string_equal(ftrace_funcs__get(ff, 2)->name, "tab_mod");
	assert_string_equal(ftrace_funcs__get(ff, 2)->module, "xfs");
	assert_string_equal(ftrace_funcs__get(ff, 3)->module, "btrfs");
	ftrace_funcs__free(ff);

	ff = ftrace_funcs__parse("", 0);
	assert_non_null(ff);
	assert_int_equal(ftrace_funcs__cnt(ff), 0);
	ftrace_funcs__free(ff);
}

static void test_unreadable(void **state)
{
	errno = 0;
	assert_null(ftrace_funcs__load("/nonexistent/available_filter_functions"));
	assert_int_equal(errno, ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_fixture),
		cmocka_unit_test(test_parse_odd_input),
		cmocka_unit_test(test_unreadable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
