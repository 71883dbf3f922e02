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

static const char *loc_cell(const char *func, const char *sym)
{
	static char buf[128];
	struct src_frame f = { .func = func, .file = "srv.cc", .line = 42, .col = 7 };

	render__fmt_loc(buf, sizeof(buf), &f, sym);
	return buf;
}

/*
 * DWARF's name for a C++ function is unscoped: the demangled symbol's last component is
 * the same function, anything else is another one (inlined, a cold part).
 */
static void test_loc_cells(void **state)
{
	assert_string_equal(loc_cell("handle_request", "handle_request"), "(srv.cc:42:7)");
	assert_string_equal(loc_cell("handle_request", "Server::handle_request"), "(srv.cc:42:7)");
	assert_string_equal(loc_cell("take", "Pool<int>::take"), "(srv.cc:42:7)");
	/* not a scope's last component */
	assert_string_equal(loc_cell("request", "Server::handle_request"),
			    "(request @ srv.cc:42:7)");
	assert_string_equal(loc_cell("Server::run", "run"), "(Server::run @ srv.cc:42:7)");
	/* template arguments as DWARF spells them, and as the demangler does */
	assert_string_equal(loc_cell("parse<long int>", "parse<long>"), "(srv.cc:42:7)");
	assert_string_equal(loc_cell("parse<long int>", "cfg::parse<long>"), "(srv.cc:42:7)");
	assert_string_equal(loc_cell("push_back", "std::vector<int, std::allocator<int> >::push_back"),
			    "(srv.cc:42:7)");
	assert_string_equal(loc_cell("Foo", "ns::Foo<a::b>::Foo"), "(srv.cc:42:7)");
	assert_string_equal(loc_cell("take", "Pool<a::b>::take"), "(srv.cc:42:7)");
	assert_string_equal(loc_cell("parse<int>", "format<int>"), "(parse<int> @ srv.cc:42:7)");
	assert_string_equal(loc_cell("b", "Pool<a::b>"), "(b @ srv.cc:42:7)");
	assert_string_equal(loc_cell("operator<", "Foo::operator<<"), "(operator< @ srv.cc:42:7)");
	assert_string_equal(loc_cell("operator<<", "Foo::operator<<"), "(srv.cc:42:7)");
	assert_string_equal(loc_cell("io_uring_setup", "io_uring_setup.cold"),
			    "(io_uring_setup @ srv.cc:42:7)");
	/* no symbol to compare with */
	assert_string_equal(loc_cell("run", NULL), "(srv.cc:42:7)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sym_cells),
		cmocka_unit_test(test_loc_cells),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
