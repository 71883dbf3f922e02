// SPDX-License-Identifier: BSD-2-Clause
/*
 * Result typing of user functions from DWARF (user_dwarf.c), on the uprobe test program
 * built with -O2 -g at test time ($UPROG_DIR/uprog, tests/uprobe/uprobe.mk): each
 * function's FUNC_* flags are those its C return type (tests/uprobe/uprog.c) gives by
 * the kernel's rule, size_t's error range included.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "elf_funcs.h"
#include "records.h"
#include "user_dwarf.h"

struct want {
	const char *name;
	__u32 flags;
	bool seen;
};

static int collect(const struct user_dwarf_func *f, void *ctx)
{
	struct want *w;

	for (w = ctx; w->name; w++) {
		if (strcmp(f->name, w->name) != 0)
			continue;
		if (f->ret_flags != w->flags)
			fail_msg("%s: flags 0x%x, expected 0x%x", w->name, f->ret_flags, w->flags);
		w->seen = true;
	}
	return 0;
}

static void test_ret_flags(void **state)
{
	struct want want[] = {
		{ "do_work", FUNC_NEEDS_SIGN_EXT },		/* int */
		{ "check_args", 0 },				/* long */
		{ "nc_tidy", FUNC_RET_VOID | FUNC_CANT_FAIL },	/* void */
		{ "sz_file", FUNC_ERR_RANGE },			/* size_t */
		{ "sz_huge", FUNC_ERR_RANGE },
		{ "sz_u32", FUNC_CANT_FAIL },			/* unsigned int */
		{ NULL },
	};
	const char *d = getenv("UPROG_DIR");
	char path[PATH_MAX];
	struct elf_funcs *e;
	struct want *w;

	(void)state;
	snprintf(path, sizeof(path), "%s/uprog", d ?: ".");
	if (!d) {
		print_message("no %s: run through make test-unit (UPROG_DIR)\n", path);
		skip();
	}
	e = elf_funcs__open(path, NULL);
	assert_non_null(e);
	assert_int_equal(user_dwarf__for_each_func(path, e, NULL, collect, want, NULL, 0), 0);
	for (w = want; w->name; w++)
		if (!w->seen)
			fail_msg("%s: not in the DWARF of %s", w->name, path);
	elf_funcs__free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ret_flags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
