// SPDX-License-Identifier: BSD-2-Clause
/* Result typing from BTF, on a BTF built here with libbpf's writer API. */
#include <bpf/btf.h>
#include "unit.h"
#include "func_types.h"
#include "records.h"

struct types {
	struct btf *btf;
	int f_void, f_int, f_long, f_uint, f_bool, f_ptr, f_enum4, f_char, f_typedef_int, f_u64;
};

static int add_func(struct btf *btf, const char *name, int ret, int nargs, int arg_type)
{
	int proto = btf__add_func_proto(btf, ret), i;

	for (i = 0; i < nargs; i++)
		btf__add_func_param(btf, "a", arg_type);
	(void)proto;
	return btf__add_func(btf, name, BTF_FUNC_GLOBAL, proto);
}

static void build(struct types *t)
{
	struct btf *btf = btf__new_empty();
	int i_int, i_long, i_uint, i_bool, i_char, s, p, e, td, u64;

	assert_non_null(btf);
	i_int = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	i_long = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	i_uint = btf__add_int(btf, "unsigned int", 4, 0);
	i_bool = btf__add_int(btf, "_Bool", 1, BTF_INT_BOOL);
	i_char = btf__add_int(btf, "char", 1, BTF_INT_SIGNED);
	u64 = btf__add_int(btf, "long long unsigned int", 8, 0);
	s = btf__add_struct(btf, "bpf_map", 0);
	p = btf__add_ptr(btf, s);
	e = btf__add_enum(btf, "res", 4);
	btf__add_enum_value(btf, "OK", 0);
	td = btf__add_typedef(btf, "ret_t", i_int);
	t->f_void = add_func(btf, "fv", 0, 2, i_int);
	t->f_int = add_func(btf, "fi", i_int, 6, i_int);
	t->f_long = add_func(btf, "fl", i_long, 0, 0);
	t->f_uint = add_func(btf, "fu", i_uint, 0, 0);
	t->f_bool = add_func(btf, "fb", i_bool, 0, 0);
	t->f_ptr = add_func(btf, "fp", p, 1, p);
	t->f_enum4 = add_func(btf, "fe", e, 0, 0);
	t->f_char = add_func(btf, "fc", i_char, 0, 0);
	t->f_typedef_int = add_func(btf, "ft", td, 0, 0);
	t->f_u64 = add_func(btf, "bpf_map_lookup_elem", u64, 2, p);
	t->btf = btf;
}

static void test_btf_return_types(void **state)
{
	struct types t;

	build(&t);
	assert_int_equal(func_types__flags(t.btf, t.f_void, "fv"), FUNC_CANT_FAIL | FUNC_RET_VOID);
	assert_int_equal(func_types__flags(t.btf, t.f_int, "fi"), FUNC_NEEDS_SIGN_EXT);
	assert_int_equal(func_types__flags(t.btf, t.f_long, "fl"), 0);
	assert_int_equal(func_types__flags(t.btf, t.f_uint, "fu"), FUNC_CANT_FAIL);
	assert_int_equal(func_types__flags(t.btf, t.f_bool, "fb"), FUNC_CANT_FAIL | FUNC_RET_BOOL);
	assert_int_equal(func_types__flags(t.btf, t.f_ptr, "fp"), FUNC_RET_PTR);
	assert_int_equal(func_types__flags(t.btf, t.f_enum4, "fe"), FUNC_NEEDS_SIGN_EXT);
	assert_int_equal(func_types__flags(t.btf, t.f_char, "fc"), FUNC_CANT_FAIL);
	assert_int_equal(func_types__flags(t.btf, t.f_typedef_int, "ft"), FUNC_NEEDS_SIGN_EXT);
	/* unsigned long results carry -errno too (do_mmap() and friends) */
	assert_int_equal(func_types__flags(t.btf, t.f_u64, "fu64"), 0);
	btf__free(t.btf);
}

static void test_helper_overrides(void **state)
{
	struct types t;

	build(&t);
	/* BTF says u64 (can't fail); the table knows NULL means failure */
	assert_int_equal(func_types__flags(t.btf, t.f_u64, "bpf_map_lookup_elem"), FUNC_RET_PTR);
	assert_int_equal(func_types__flags(NULL, 0, "bpf_ringbuf_submit"), FUNC_RET_VOID);
	assert_int_equal(func_types__flags(NULL, 0, "bpf_ktime_get_ns"), FUNC_CANT_FAIL);
	assert_int_equal(func_types__flags(NULL, 0, "bpf_get_current_task"),
			 FUNC_CANT_FAIL | FUNC_RET_PTR);
	assert_int_equal(func_types__flags(NULL, 0, "bpf_set_retval"), FUNC_NEEDS_SIGN_EXT);
	assert_int_equal(func_types__flags(NULL, 0, "bpf_map_update_elem"), 0);
	assert_int_equal(func_types__flags(NULL, 0, "bpf_xyz_unknown"), FUNC_NEEDS_SIGN_EXT);
	assert_int_equal(func_types__flags(NULL, 0, "map_lookup_elem"), FUNC_NEEDS_SIGN_EXT);
	btf__free(t.btf);
}

static void test_arg_cnt(void **state)
{
	struct types t;

	build(&t);
	assert_int_equal(func_types__arg_cnt(t.btf, t.f_void), 2);
	assert_int_equal(func_types__arg_cnt(t.btf, t.f_int), 6);
	assert_int_equal(func_types__arg_cnt(t.btf, t.f_long), 0);
	assert_true(func_types__arg_cnt(t.btf, 1) < 0);	/* "int" is not a function */
	btf__free(t.btf);
}

/* the functions whose fexit the kernel refuses: by exact name only */
static void test_noreturn(void **state)
{
	assert_true(func_types__noreturn("do_exit"));
	assert_true(func_types__noreturn("__x64_sys_exit_group"));
	assert_true(func_types__noreturn("make_task_dead"));
	assert_false(func_types__noreturn("do_exit_sig"));
	assert_false(func_types__noreturn("do_exi"));
	assert_false(func_types__noreturn("__x64_sys_exit_grou"));
	assert_false(func_types__noreturn("exit_mm"));
}

/* fentry's verdict names it, ahead of the type rules a void do_exit(long) passes */
static void test_noreturn_fentry(void **state)
{
	struct btf *btf = btf__new_empty();
	int i_long, f_exit, f_other;

	assert_non_null(btf);
	i_long = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	f_exit = add_func(btf, "do_exit", 0, 1, i_long);
	f_other = add_func(btf, "do_exit_sig", 0, 1, i_long);
	assert_string_equal(func_types__fentry_unsupported(btf, f_exit),
			    "it never returns: the kernel refuses fexit on it");
	assert_null(func_types__fentry_unsupported(btf, f_other));
	btf__free(btf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_btf_return_types),
		cmocka_unit_test(test_helper_overrides),
		cmocka_unit_test(test_arg_cnt),
		cmocka_unit_test(test_noreturn),
		cmocka_unit_test(test_noreturn_fentry),
	};

	return cmocka_run_group_tests_name("func_types", tests, NULL, NULL);
}
