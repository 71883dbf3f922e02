// SPDX-License-Identifier: BSD-2-Clause
/*
 * Argument capture plans from BTF written with libbpf's BTF writer: every kind of
 * argument, register pairs, stack arguments, the 12-argument cap, printf-like varargs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "unit.h"
#include "arg_plan.h"

static const struct arg_limits lim = { .max_sized = 256, .max_str = 128 };

/* Types every test function uses. */
struct types {
	struct btf *btf;
	int i32, u64, chr, uchr, cchr, str, cstr, s16, s24, big, fwd, pstruct, ppint, vptr;
	int fptr, e32, td_s16, flt, u128, pcchr_td, s0;
};

static void add_types(struct types *t)
{
	struct btf *b = btf__new_empty();
	int proto;

	assert_non_null(b);
	t->btf = b;
	t->i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	t->u64 = btf__add_int(b, "long unsigned int", 8, 0);
	t->chr = btf__add_int(b, "char", 1, 0);
	t->uchr = btf__add_int(b, "unsigned char", 1, 0);
	t->cchr = btf__add_const(b, t->chr);
	t->str = btf__add_ptr(b, t->chr);
	t->cstr = btf__add_ptr(b, t->cchr);
	/* struct s16 { long a; long b; } */
	t->s16 = btf__add_struct(b, "s16", 16);
	btf__add_field(b, "a", t->u64, 0, 0);
	btf__add_field(b, "b", t->u64, 64, 0);
	t->s24 = btf__add_struct(b, "s24", 24);
	btf__add_field(b, "a", t->u64, 0, 0);
	btf__add_field(b, "b", t->u64, 64, 0);
	btf__add_field(b, "c", t->u64, 128, 0);
	t->big = btf__add_struct(b, "big", 600);
	btf__add_field(b, "x", t->u64, 0, 0);
	t->fwd = btf__add_fwd(b, "opaque", BTF_FWD_STRUCT);
	t->pstruct = btf__add_ptr(b, btf__add_const(b, btf__add_typedef(b, "s24_t", t->s24)));
	t->ppint = btf__add_ptr(b, btf__add_ptr(b, t->i32));
	t->vptr = btf__add_ptr(b, 0);
	proto = btf__add_func_proto(b, t->i32);
	t->fptr = btf__add_ptr(b, proto);
	t->e32 = btf__add_enum(b, "e", 4);
	btf__add_enum_value(b, "E_ZERO", 0);
	t->td_s16 = btf__add_typedef(b, "s16_t", t->s16);
	t->flt = btf__add_float(b, "double", 8);
	t->u128 = btf__add_int(b, "__int128 unsigned", 16, 0);
	t->pcchr_td = btf__add_typedef(b, "cstr_t", t->cstr);
	t->s0 = btf__add_struct(b, "empty", 0);
	assert_true(t->s0 > 0);
}

/* A FUNC named @name returning int with params (name, type), type 0 = "...". */
static int add_func(struct types *t, const char *name, int n, const char *const *names,
		    const int *types)
{
	int proto = btf__add_func_proto(t->btf, t->i32), i;

	assert_true(proto > 0);
	for (i = 0; i < n; i++)
		assert_int_equal(btf__add_func_param(t->btf, names[i], types[i]), 0);
	return btf__add_func(t->btf, name, BTF_FUNC_STATIC, proto);
}

static void plan(struct types *t, int fn, const struct arg_arch *arch, struct func_arg_plan *p)
{
	assert_true(fn > 0);
	assert_int_equal(arg_plan__build(p, t->btf, fn, arch, &lim), 0);
}

static void expect(const struct arg_plan *a, const char *name, enum arg_kind kind,
		   enum fnarg_kind wkind, enum fnarg_loc loc, int off, int len)
{
	assert_string_equal(a->name, name);
	assert_int_equal(a->kind, kind);
	assert_int_equal(a->wire.kind, wkind);
	if (wkind != FNARG_SKIP) {
		assert_int_equal(a->wire.loc, loc);
		assert_int_equal(a->wire.off, off);
	}
	assert_int_equal(a->wire.len, len);
}

static void test_kinds_x86(void **state)
{
	struct types t;
	struct func_arg_plan p;
	const char *names[] = { "a", "b", "s", "cs", "v", "p", "vp", "x" };
	int types[8], fn;

	add_types(&t);
	types[0] = t.i32;
	types[1] = t.u64;
	types[2] = t.str;
	types[3] = t.pcchr_td;
	types[4] = t.td_s16;
	types[5] = t.pstruct;
	types[6] = t.vptr;
	types[7] = t.e32;
	fn = add_func(&t, "f", 8, names, types);
	plan(&t, fn, &arg_arch_x86_64, &p);

	assert_int_equal(p.arg_cnt, 8);
	assert_int_equal(p.fmt_idx, -1);
	assert_ptr_equal(p.btf, t.btf);
	expect(&p.args[0], "a", ARG_VALUE, FNARG_VALUE, FNARG_REG, 0, 4);
	assert_int_equal(p.args[0].type_id, t.i32);
	expect(&p.args[1], "b", ARG_VALUE, FNARG_VALUE, FNARG_REG, 1, 8);
	/* char pointers are strings, whatever qualifiers and typedefs they come through */
	expect(&p.args[2], "s", ARG_STR, FNARG_STR, FNARG_REG, 2, 128);
	expect(&p.args[3], "cs", ARG_STR, FNARG_STR, FNARG_REG, 3, 128);
	/* 16 bytes by value: a register pair, typedef stripped */
	expect(&p.args[4], "v", ARG_VALUE, FNARG_VALUE, FNARG_REG_PAIR, 4, 16);
	assert_int_equal(p.args[4].type_id, t.s16);
	/* registers used up: the stack, above the return address */
	expect(&p.args[5], "p", ARG_PTR, FNARG_PTR, FNARG_STACK, 8, 24);
	assert_int_equal(p.args[5].type_id, t.s24);
	expect(&p.args[6], "vp", ARG_RAW_PTR, FNARG_VALUE, FNARG_STACK, 16, 8);
	expect(&p.args[7], "x", ARG_VALUE, FNARG_VALUE, FNARG_STACK, 24, 4);
	btf__free(t.btf);
}

/*
 * A returned object's slot (ARG_PLAN_RET_SLOT, from user_dwarf_btf.c) takes the first
 * register and is no argument: the rest follow it, a printf-like format included.
 */
static void test_ret_slot(void **state)
{
	struct types t;
	struct func_arg_plan p;
	const char *names[] = { ARG_PLAN_RET_SLOT, "a", "s", "v", "x", "y" };
	const char *fnames[] = { ARG_PLAN_RET_SLOT, "fmt", NULL };
	int types[6], fn;

	add_types(&t);
	types[0] = t.vptr;
	types[1] = t.i32;
	types[2] = t.str;
	types[3] = t.td_s16;
	types[4] = t.u64;
	types[5] = t.u64;
	fn = add_func(&t, "f", 6, names, types);
	plan(&t, fn, &arg_arch_x86_64, &p);
	assert_int_equal(p.arg_cnt, 5);
	expect(&p.args[0], "a", ARG_VALUE, FNARG_VALUE, FNARG_REG, 1, 4);
	expect(&p.args[1], "s", ARG_STR, FNARG_STR, FNARG_REG, 2, 128);
	expect(&p.args[2], "v", ARG_VALUE, FNARG_VALUE, FNARG_REG_PAIR, 3, 16);
	expect(&p.args[3], "x", ARG_VALUE, FNARG_VALUE, FNARG_REG, 5, 8);
	/* six registers: the slot took one, so y is the first on the stack */
	expect(&p.args[4], "y", ARG_VALUE, FNARG_VALUE, FNARG_STACK, 8, 8);

	types[1] = t.cstr;
	types[2] = 0;
	fn = add_func(&t, "g", 3, fnames, types);
	plan(&t, fn, &arg_arch_x86_64, &p);
	assert_int_equal(p.fmt_idx, 0);
	expect(&p.args[0], "fmt", ARG_STR, FNARG_STR, FNARG_REG, 1, 128);
	expect(&p.args[1], "vararg0", ARG_VARARG, FNARG_VARARG, FNARG_REG, 2, 128);
	btf__free(t.btf);
}

/*
 * The kernel's BTF names no slot: a struct over 16 bytes returned (zstd's
 * ZSTD_adjustCParams) says it on x86-64; 16 bytes come back in rax:rdx; arm64's slot is x8.
 */
static void test_ret_slot_by_size(void **state)
{
	struct types t;
	struct func_arg_plan p;
	int proto, fn;

	add_types(&t);
	proto = btf__add_func_proto(t.btf, btf__add_typedef(t.btf, "s24r_t", t.s24));
	assert_true(proto > 0);
	assert_int_equal(btf__add_func_param(t.btf, "a", t.i32), 0);
	assert_int_equal(btf__add_func_param(t.btf, "b", t.u64), 0);
	fn = btf__add_func(t.btf, "big_ret", BTF_FUNC_STATIC, proto);
	plan(&t, fn, &arg_arch_x86_64, &p);
	assert_int_equal(p.arg_cnt, 2);
	expect(&p.args[0], "a", ARG_VALUE, FNARG_VALUE, FNARG_REG, 1, 4);
	expect(&p.args[1], "b", ARG_VALUE, FNARG_VALUE, FNARG_REG, 2, 8);
	plan(&t, fn, &arg_arch_arm64, &p);
	expect(&p.args[0], "a", ARG_VALUE, FNARG_VALUE, FNARG_REG, 0, 4);
	expect(&p.args[1], "b", ARG_VALUE, FNARG_VALUE, FNARG_REG, 1, 8);

	proto = btf__add_func_proto(t.btf, t.s16);
	assert_true(proto > 0);
	assert_int_equal(btf__add_func_param(t.btf, "a", t.i32), 0);
	fn = btf__add_func(t.btf, "pair_ret", BTF_FUNC_STATIC, proto);
	plan(&t, fn, &arg_arch_x86_64, &p);
	expect(&p.args[0], "a", ARG_VALUE, FNARG_VALUE, FNARG_REG, 0, 4);
	btf__free(t.btf);
}

static void test_raw_pointers_and_unsupported(void **state)
{
	struct types t;
	struct func_arg_plan p;
	const char *names[] = { "pp", "fp", "op", "d", "uc", "e0" };
	int types[6], fn, i;

	add_types(&t);
	types[0] = t.ppint;
	types[1] = t.fptr;
	types[2] = btf__add_ptr(t.btf, t.fwd);
	types[3] = t.flt;
	types[4] = btf__add_ptr(t.btf, t.uchr);
	types[5] = btf__add_ptr(t.btf, t.s0);
	fn = add_func(&t, "g", 6, names, types);
	plan(&t, fn, &arg_arch_x86_64, &p);

	/* pointers to pointers, functions and incomplete types: the value itself */
	for (i = 0; i < 3; i++)
		expect(&p.args[i], names[i], ARG_RAW_PTR, FNARG_VALUE, FNARG_REG, i, 8);
	/* no float registers in the plan: not captured, and no register taken */
	expect(&p.args[3], "d", ARG_UNSUPP, FNARG_SKIP, 0, 0, 0);
	/* unsigned char is a byte, not a string */
	expect(&p.args[4], "uc", ARG_PTR, FNARG_PTR, FNARG_REG, 3, 1);
	/* a pointer to something of no size shows as a pointer */
	expect(&p.args[5], "e0", ARG_RAW_PTR, FNARG_VALUE, FNARG_REG, 4, 8);
	btf__free(t.btf);
}

static void test_pair_spills_to_stack(void **state)
{
	struct types t;
	struct func_arg_plan p;
	const char *names[] = { "a", "b", "c", "d", "e", "v", "z" };
	int types[7], fn, i;

	add_types(&t);
	for (i = 0; i < 5; i++)
		types[i] = t.i32;
	types[5] = t.s16;
	types[6] = t.i32;
	fn = add_func(&t, "h", 7, names, types);

	/* x86-64: one register left, the pair goes to the stack, the next int takes it */
	plan(&t, fn, &arg_arch_x86_64, &p);
	expect(&p.args[5], "v", ARG_VALUE, FNARG_VALUE, FNARG_STACK, 8, 16);
	expect(&p.args[6], "z", ARG_VALUE, FNARG_VALUE, FNARG_REG, 5, 4);

	/* arm64: eight registers, the pair fits in x5:x6 */
	plan(&t, fn, &arg_arch_arm64, &p);
	expect(&p.args[5], "v", ARG_VALUE, FNARG_VALUE, FNARG_REG_PAIR, 5, 16);
	expect(&p.args[6], "z", ARG_VALUE, FNARG_VALUE, FNARG_REG, 7, 4);
	btf__free(t.btf);
}

static void test_arm64_rules(void **state)
{
	struct types t;
	struct func_arg_plan p;
	const char *names[] = { "a", "b", "c", "d", "e", "f", "g", "v", "z" };
	int types[9], fn, i;

	add_types(&t);
	for (i = 0; i < 7; i++)
		types[i] = t.i32;
	types[7] = t.s16;
	types[8] = t.i32;
	fn = add_func(&t, "k", 9, names, types);
	plan(&t, fn, &arg_arch_arm64, &p);
	/* a pair that doesn't fit ends register use: z follows it on the stack */
	expect(&p.args[7], "v", ARG_VALUE, FNARG_VALUE, FNARG_STACK, 0, 16);
	expect(&p.args[8], "z", ARG_VALUE, FNARG_VALUE, FNARG_STACK, 16, 4);

	/* composites over 16 bytes go by reference */
	types[0] = t.s24;
	fn = add_func(&t, "r", 1, names, types);
	plan(&t, fn, &arg_arch_arm64, &p);
	expect(&p.args[0], "a", ARG_VALUE_BY_REF, FNARG_PTR, FNARG_REG, 0, 24);
	plan(&t, fn, &arg_arch_x86_64, &p);
	expect(&p.args[0], "a", ARG_VALUE, FNARG_VALUE, FNARG_STACK, 8, 24);
	btf__free(t.btf);
}

static void test_twelve_arg_cap(void **state)
{
	static const char *const names[14] = {
		"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10", "a11", "a12", "a13",
	};
	struct types t;
	struct func_arg_plan p;
	int types[14], fn, i;

	add_types(&t);
	for (i = 0; i < 14; i++)
		types[i] = t.u64;
	fn = add_func(&t, "many", 14, names, types);
	plan(&t, fn, &arg_arch_x86_64, &p);
	assert_int_equal(p.arg_cnt, MAX_FNARGS);
	for (i = 0; i < 6; i++)
		expect(&p.args[i], names[i], ARG_VALUE, FNARG_VALUE, FNARG_REG, i, 8);
	for (i = 6; i < 12; i++)
		expect(&p.args[i], names[i], ARG_VALUE, FNARG_VALUE, FNARG_STACK, 8 + 8 * (i - 6), 8);
	btf__free(t.btf);
}

static void test_stack_limits_and_caps(void **state)
{
	const char *names[] = { "a", "b", "c", "d", "e", "f", "big", "after", "p" };
	struct types t;
	struct func_arg_plan p;
	int types[9], fn, i, s300;

	add_types(&t);
	s300 = btf__add_struct(t.btf, "s300", 300);
	btf__add_field(t.btf, "x", t.u64, 0, 0);
	for (i = 0; i < 6; i++)
		types[i] = t.i32;
	types[6] = s300;
	types[7] = t.i32;
	types[8] = btf__add_ptr(t.btf, t.big);
	fn = add_func(&t, "stacky", 9, names, types);
	plan(&t, fn, &arg_arch_x86_64, &p);
	/* the capture is capped at args.max-sized-arg-size, the placement uses the real size */
	expect(&p.args[6], "big", ARG_VALUE, FNARG_VALUE, FNARG_STACK, 8, 256);
	assert_int_equal(p.args[6].size, 300);
	expect(&p.args[7], "after", ARG_VALUE, FNARG_VALUE, FNARG_STACK, 8 + 304, 4);
	/* pointee capped too */
	expect(&p.args[8], "p", ARG_PTR, FNARG_PTR, FNARG_STACK, 8 + 304 + 8, 256);
	assert_int_equal(p.args[8].size, 600);

	/* a 600-byte struct by value reaches beyond what is read */
	types[6] = t.big;
	fn = add_func(&t, "far", 8, names, types);
	plan(&t, fn, &arg_arch_x86_64, &p);
	expect(&p.args[6], "big", ARG_STACK_TOO_FAR, FNARG_SKIP, 0, 0, 0);
	expect(&p.args[7], "after", ARG_STACK_TOO_FAR, FNARG_SKIP, 0, 0, 0);
	btf__free(t.btf);
}

static void test_printf_like(void **state)
{
	const char *names[] = { "level", "fmt", "" };
	struct types t;
	struct func_arg_plan p;
	int types[3], fn, i;

	add_types(&t);
	types[0] = t.i32;
	types[1] = t.cstr;
	types[2] = 0;
	fn = add_func(&t, "my_printk", 3, names, types);
	plan(&t, fn, &arg_arch_x86_64, &p);
	assert_int_equal(p.arg_cnt, MAX_FNARGS);
	assert_int_equal(p.fmt_idx, 1);
	expect(&p.args[0], "level", ARG_VALUE, FNARG_VALUE, FNARG_REG, 0, 4);
	expect(&p.args[1], "fmt", ARG_STR, FNARG_STR, FNARG_REG, 1, 128);
	expect(&p.args[2], "vararg0", ARG_VARARG, FNARG_VARARG, FNARG_REG, 2, 128);
	expect(&p.args[5], "vararg3", ARG_VARARG, FNARG_VARARG, FNARG_REG, 5, 128);
	for (i = 6; i < 12; i++)
		expect(&p.args[i], p.args[i].name, ARG_VARARG, FNARG_VARARG, FNARG_STACK,
		       8 + 8 * (i - 6), 128);
	assert_string_equal(p.args[11].name, "vararg9");

	/* not const: not printf-like; the "..." itself is shown as such */
	types[1] = t.str;
	fn = add_func(&t, "not_printk", 3, names, types);
	plan(&t, fn, &arg_arch_x86_64, &p);
	assert_int_equal(p.arg_cnt, 3);
	assert_int_equal(p.fmt_idx, -1);
	expect(&p.args[1], "fmt", ARG_STR, FNARG_STR, FNARG_REG, 1, 128);
	expect(&p.args[2], "...", ARG_SKIP_VARARG, FNARG_SKIP, 0, 0, 0);
	btf__free(t.btf);
}

static void test_no_btf_and_bad_ids(void **state)
{
	struct types t;
	struct func_arg_plan p;
	int i;

	assert_int_equal(arg_plan__build(&p, NULL, 0, &arg_arch_x86_64, &lim), 0);
	assert_null(p.btf);
	assert_int_equal(p.arg_cnt, 6);
	for (i = 0; i < 6; i++) {
		char name[16];

		snprintf(name, sizeof(name), "arg%d", i);
		expect(&p.args[i], name, ARG_RAW_REG, FNARG_VALUE, FNARG_REG, i, 8);
	}
	assert_int_equal(arg_plan__build(&p, NULL, 0, &arg_arch_arm64, &lim), 0);
	assert_int_equal(p.arg_cnt, 8);

	add_types(&t);
	/* an id that isn't a FUNC */
	assert_int_equal(arg_plan__build(&p, t.btf, t.i32, &arg_arch_x86_64, &lim), -EINVAL);
	btf__free(t.btf);
}

static void test_u128_and_wire(void **state)
{
	const char *names[] = { "w", "x" };
	struct func_args_spec spec;
	struct types t;
	struct func_arg_plan p;
	int types[2], fn;
	char buf[256];

	add_types(&t);
	types[0] = t.u128;
	types[1] = t.cstr;
	fn = add_func(&t, "wide", 2, names, types);
	plan(&t, fn, &arg_arch_x86_64, &p);
	expect(&p.args[0], "w", ARG_VALUE, FNARG_VALUE, FNARG_REG_PAIR, 0, 16);
	expect(&p.args[1], "x", ARG_STR, FNARG_STR, FNARG_REG, 2, 128);

	arg_plan__wire(&p, &spec);
	assert_int_equal(spec.arg_cnt, 2);
	assert_memory_equal(&spec.args[0], &p.args[0].wire, sizeof(spec.args[0]));
	assert_memory_equal(&spec.args[1], &p.args[1].wire, sizeof(spec.args[1]));
	assert_int_equal(spec.args[2].kind, FNARG_SKIP);

	arg_plan__describe(&p, &arg_arch_x86_64, buf, sizeof(buf));
	assert_string_equal(buf, "w=rdi:rsi:16 x=str(rdx):128");
	btf__free(t.btf);
}

static void test_table(void **state)
{
	struct types t;
	const char *names[] = { "a" };
	int types[1];
	struct func funcs[3] = {};
	struct arg_plans_opts o = { .sz = sizeof(o), .arch = &arg_arch_x86_64, .limits = lim };
	struct arg_plans *ps;

	add_types(&t);
	types[0] = t.i32;
	funcs[0] = (struct func){ .name = "one", .btf = t.btf,
				  .btf_id = add_func(&t, "one", 1, names, types) };
	funcs[1] = (struct func){ .name = "nobtf" };
	/* BTF that isn't a function: planned as raw registers */
	funcs[2] = (struct func){ .name = "bad", .btf = t.btf, .btf_id = t.i32 };
	ps = arg_plans__new(funcs, 3, &o);
	assert_non_null(ps);
	assert_int_equal(arg_plans__cnt(ps), 3);
	assert_int_equal(arg_plans__get(ps, 0)->arg_cnt, 1);
	assert_int_equal(arg_plans__get(ps, 1)->args[0].kind, ARG_RAW_REG);
	assert_int_equal(arg_plans__get(ps, 2)->args[0].kind, ARG_RAW_REG);
	assert_null(arg_plans__get(ps, 3));
	arg_plans__free(ps);

	o.limits.max_str = MAX_FNARG_SIZE + 1;
	assert_null(arg_plans__new(funcs, 3, &o));
	assert_int_equal(errno, EINVAL);
	btf__free(t.btf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds_x86),
		cmocka_unit_test(test_ret_slot),
		cmocka_unit_test(test_ret_slot_by_size),
		cmocka_unit_test(test_raw_pointers_and_unsupported),
		cmocka_unit_test(test_pair_spills_to_stack),
		cmocka_unit_test(test_arm64_rules),
		cmocka_unit_test(test_twelve_arg_cap),
		cmocka_unit_test(test_stack_limits_and_caps),
		cmocka_unit_test(test_printf_like),
		cmocka_unit_test(test_no_btf_and_bad_ids),
		cmocka_unit_test(test_u128_and_wire),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests_name("arg_plan", tests, NULL, NULL);
}
