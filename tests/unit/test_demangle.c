// SPDX-License-Identifier: BSD-2-Clause
/*
 * Source-level names of mangled symbols. The oracle is binutils' c++filt (-p: no
 * parameters), run on the same symbols, where it is installed; what c++filt doesn't do the
 * same way (clone suffixes kept, names that aren't mangled) is asserted on directly.
 */
#include <errno.h>
#include <string.h>
#include "unit.h"
#include "demangle.h"

/* c++filt -p's answer for @sym, or NULL without c++filt (the caller frees it) */
static char *cxxfilt(const char *sym)
{
	char cmd[512], line[1024];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "c++filt -p '%s' 2>/dev/null", sym);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	if (!fgets(line, sizeof(line), p)) {
		pclose(p);
		return NULL;
	}
	if (pclose(p) != 0)
		return NULL;
	line[strcspn(line, "\n")] = '\0';
	return strdup(line);
}

static void test_like_cxxfilt(void **state)
{
	static const char *const syms[] = {
		"_ZN6Server14handle_requestERK7Request",	/* a method */
		"_ZNK3Foo3barEv",				/* a const one */
		"_ZN3cfg11open_configEPKc",			/* a namespace's function */
		"_Z5parseIlEiT_PKc",				/* a template function */
		"_ZN4PoolIiE4takeEPKc",				/* a class template's method */
		"_ZNSt6vectorIiSaIiEE9push_backERKi",		/* std:: */
		"_ZN3FooC2Ev", "_ZN3FooD1Ev",			/* constructor, destructor */
		"_ZZ4mainENKUlvE_clEv",				/* a lambda */
		"_ZN12_GLOBAL__N_16helperEv",			/* an anonymous namespace */
		"_ZL8internalv",				/* internal linkage */
		"_ZN3FooixEm",					/* operator[] */
	};
	size_t i, compared = 0;

	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		char *want = cxxfilt(syms[i]), *got = demangle__name(syms[i]);
		bool same = got && want && strcmp(got, want) == 0;

		if (want && !same)
			print_error("%s: '%s', c++filt -p '%s'\n", syms[i], got ? got : "(null)", want);
		compared += !!want;
		free(want);
		free(got);
		assert_true(demangle__is_mangled(syms[i]));
		assert_true(same || !want);
	}
	/* c++filt is binutils', in tools/deps.sh's test packages: its absence is not a pass */
	if (!compared)
		fail_msg("c++filt not found: nothing compared");
}

static void check_name(const char *sym, const char *want)
{
	char *got = demangle__name(sym);
	bool same = got && strcmp(got, want) == 0;

	if (!same)
		print_error("%s: '%s', want '%s'\n", sym, got ? got : "(null)", want);
	free(got);
	assert_true(same);
}

static void test_clones_and_asserted(void **state)
{
	/* a compiler clone keeps its suffix, as a C function's does */
	check_name("_ZN3Foo3barEv.cold", "Foo::bar.cold");
	check_name("_Z3fooi.isra.0", "foo.isra.0");
	check_name("_ZN3Foo3barEv.constprop.0.isra.0", "Foo::bar.constprop.0.isra.0");
	/*
	 * Rust's legacy names: the hash left out (c++filt's default style keeps it as a last
	 * component); they hold '.' of their own, no clone suffix to put back
	 */
	check_name("_ZN7mycrate3foo17h0123456789abcdefE", "mycrate::foo");
	/* v0: the crate's disambiguator left out as well (c++filt shows "mycrate[3c1c0]") */
	check_name("_RNvCs1234_7mycrate3foo", "mycrate::foo");
	/*
	 * v0's inherent impl "<ur::Server>::handle" (rustc 1.95's, c++filt -p's without the
	 * disambiguator) named as the legacy scheme and the source do; a trait impl stays
	 */
	check_name("_RNvMCs906SPI0QXAN_2urNtB2_6Server6handle", "ur::Server::handle");
	check_name("_RNvXCs906SPI0QXAN_2urNtB2_6ServerNtNtCsgEmfK2I1SDS_4core3fmt7Display3fmt",
		   "<ur::Server as core::fmt::Display>::fmt");
	check_name("_ZN3std2rt10lang_start17h0123456789abcdefE", "std::rt::lang_start");
	check_name("_ZN4core3ptr33drop_in_place$LT$std..rt..Foo$GT$17h0123456789abcdefE",
		   "core::ptr::drop_in_place<std::rt::Foo>");
	/* a template function's return type is left out */
	check_name("_Z3fooIiEvT_", "foo<int>");
	/* GCC's ABI tags too (c++filt: "app::describe[abi:cxx11]"), wherever they are */
	check_name("_ZN3app8describeB5cxx11EiPKc", "app::describe");
	check_name("_ZN3app8describeB5cxx11EiPKc.cold", "app::describe.cold");
	check_name("_ZN3FooB2v23barB5cxx11Ev", "Foo::bar");
}

static void test_not_mangled(void **state)
{
	static const char *const syms[] = {
		"main", "open_config", "_start", "__libc_start_main", "_Z", "_R", "_Zz", "_R!",
		"_GLOBAL__sub_I_main.cc", "",
	};
	size_t i;

	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		errno = 0;
		assert_null(demangle__name(syms[i]));
		assert_int_equal(errno, EINVAL);
	}
	assert_false(demangle__is_mangled("main"));
	assert_false(demangle__is_mangled("_Z"));
	assert_false(demangle__is_mangled(NULL));
	assert_null(demangle__name(NULL));
}

/* an over-long name is not read (libiberty's own recursion limit aside) */
static void test_too_long(void **state)
{
	size_t n = 8192;
	char *sym = malloc(n + 1);

	assert_non_null(sym);
	memcpy(sym, "_ZN", 3);
	memset(sym + 3, 'a', n - 3);
	sym[n] = '\0';
	errno = 0;
	assert_null(demangle__name(sym));
	assert_int_equal(errno, EINVAL);
	free(sym);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_like_cxxfilt),
		cmocka_unit_test(test_clones_and_asserted),
		cmocka_unit_test(test_not_mangled),
		cmocka_unit_test(test_too_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
