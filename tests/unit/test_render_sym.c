// SPDX-License-Identifier: BSD-2-Clause
/* The symbol cell of the stack and LBR views, for kernel and user-space locations. */
#include <string.h>
#include "unit.h"
#include "render.h"

static const char *cell(const struct code_loc *loc, bool addrs)
{
	static char buf[128];
	struct view_opts v = { .emit_addrs = addrs };

	render__fmt_sym(buf, sizeof(buf), loc, false, &v);
	return buf;
}

static void test_sym_cells(void **state)
{
	struct code_loc k = { .as = ADDR_SPACE_KERNEL_INIT, .addr = 0xffffffff81000010,
			      .image = { "vmlinux" }, .sym = "do_sys_openat2",
			      .sym_start = 0xffffffff81000000 };
	struct code_loc u = { .as = { ADDR_SPACE_USER, 41 }, .addr = 0x55550000123a,
			      .image = { "/usr/bin/app", NULL, 0x123a } };

	assert_string_equal(cell(&k, false), "do_sys_openat2+0x10");
	/* a user address without a symbol: the binary and the offset in its file */
	assert_string_equal(cell(&u, false), "[app+0x123a]");
	assert_string_equal(cell(&u, true), " 000055550000123a [app+0x123a]");
	u.sym = "open_config";
	u.sym_start = 0x555500001230;
	assert_string_equal(cell(&u, false), "open_config+0xa");
	/* no image, no symbol: the address */
	u.sym = NULL;
	u.image.path = NULL;
	assert_string_equal(cell(&u, false), "0x55550000123a");
	k.sym = NULL;
	assert_string_equal(cell(&k, false), "0xffffffff81000010");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sym_cells),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
