// SPDX-License-Identifier: BSD-2-Clause
/* BTF-typed bytes as text: integers, enums, structs, unions, arrays, bit fields, cut data. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "unit.h"
#include "arg_dump.h"

struct fixture {
	struct btf *btf;
	int u32, s32, u64, chr, e, attr, ptr, bf, bpfptr, arr3, nested, emptys, e64;
};

static struct fixture fx;

static int setup(void **state)
{
	struct btf *b = btf__new_empty();
	int name_arr, idx, inner, un, vptr, boolean;

	fx.btf = b;
	fx.u32 = btf__add_int(b, "unsigned int", 4, 0);
	fx.s32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	fx.u64 = btf__add_int(b, "long long unsigned int", 8, 0);
	fx.chr = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	idx = fx.u32;
	fx.e = btf__add_enum(b, "map_type", 4);
	btf__add_enum_value(b, "MAP_UNSPEC", 0);
	btf__add_enum_value(b, "MAP_HASH", 1);
	btf__add_enum_value(b, "MAP_PERCPU_ARRAY", 6);
	name_arr = btf__add_array(b, idx, fx.chr, 8);
	/* struct attr { enum map_type type; u32 key_size, value_size, max_entries, flags; char name[8]; int neg; } */
	fx.attr = btf__add_struct(b, "attr", 32);
	btf__add_field(b, "type", fx.e, 0, 0);
	btf__add_field(b, "key_size", fx.u32, 32, 0);
	btf__add_field(b, "value_size", fx.u32, 64, 0);
	btf__add_field(b, "max_entries", fx.u32, 96, 0);
	btf__add_field(b, "flags", fx.u32, 128, 0);
	btf__add_field(b, "name", name_arr, 160, 0);
	btf__add_field(b, "neg", fx.s32, 224, 0);
	vptr = btf__add_ptr(b, 0);
	fx.ptr = vptr;
	/* struct bf { u32 a:3, b:5, c:24; int s:4; } */
	fx.bf = btf__add_struct(b, "bf", 8);
	btf__add_field(b, "a", fx.u32, 0, 3);
	btf__add_field(b, "b", fx.u32, 3, 5);
	btf__add_field(b, "c", fx.u32, 8, 24);
	btf__add_field(b, "s", fx.s32, 32, 4);
	/* struct bpfptr { union { void *kernel; void *user; }; _Bool is_kernel; } */
	boolean = btf__add_int(b, "_Bool", 1, BTF_INT_BOOL);
	un = btf__add_union(b, NULL, 8);
	btf__add_field(b, "kernel", vptr, 0, 0);
	btf__add_field(b, "user", vptr, 0, 0);
	fx.bpfptr = btf__add_struct(b, "bpfptr", 16);
	btf__add_field(b, NULL, un, 0, 0);
	btf__add_field(b, "is_kernel", boolean, 64, 0);
	fx.arr3 = btf__add_array(b, idx, fx.s32, 3);
	/* struct nested { struct inner { u64 x; } in; int a[3]; u64 z; } */
	inner = btf__add_struct(b, "inner", 8);
	btf__add_field(b, "x", fx.u64, 0, 0);
	fx.nested = btf__add_struct(b, "nested", 32);
	btf__add_field(b, "in", inner, 0, 0);
	btf__add_field(b, "a", fx.arr3, 64, 0);
	btf__add_field(b, "z", fx.u64, 192, 0);
	fx.emptys = btf__add_struct(b, "none", 0);
	fx.e64 = btf__add_enum64(b, "big", 8, false);
	btf__add_enum64_value(b, "BIG_ONE", 0x100000000ULL);
	assert_true(fx.e64 > 0);
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	btf__free(fx.btf);
	return 0;
}

static char *dump(__u32 id, const void *data, size_t len, bool verbose, int indent, int *err)
{
	struct arg_dump_opts o = { .sz = sizeof(o), .verbose = verbose, .indent = indent };
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	*err = arg_dump(f, fx.btf, id, data, len, &o);
	fclose(f);
	return buf;
}

#define CHECK(id, data, len, verbose, indent, want, want_err) do {		\
	int __e;								\
	char *__s = dump(id, data, len, verbose, indent, &__e);			\
	assert_string_equal(__s, want);						\
	assert_int_equal(__e, want_err);					\
	free(__s);								\
} while (0)

static void test_ints(void **state)
{
	__u32 u = 4194303;
	__s32 s = -22;
	__u64 big = 4194304;

	CHECK(fx.u32, &u, 4, false, 0, "4194303", 0);
	CHECK(fx.u64, &big, 8, false, 0, "0x400000", 0);
	CHECK(fx.s32, &s, 4, false, 0, "-22", 0);
	/* unsigned: no sign */
	CHECK(fx.u32, &s, 4, false, 0, "0xffffffea", 0);
	/* cut short */
	CHECK(fx.u64, &big, 4, false, 0, "\u2026", -E2BIG);
}

static void test_struct_compact(void **state)
{
	struct { __u32 type, key, value, max, flags; char name[8]; __s32 neg; } a = {
		6, 4, 1048576, 1024, 0, "sim'f", -1,
	};

	CHECK(fx.attr, &a, sizeof(a), false, 0,
	      "{.type=MAP_PERCPU_ARRAY,.key_size=4,.value_size=1048576,.max_entries=1024,"
	      ".name=['s','i','m','\\'','f'],.neg=-1}", 0);
	/* zero fields go, the enum zero too; a name starting with NUL is empty */
	memset(&a, 0, sizeof(a));
	a.key = 8;
	CHECK(fx.attr, &a, sizeof(a), false, 0, "{.key_size=8}", 0);
	memset(&a, 0, sizeof(a));
	CHECK(fx.attr, &a, sizeof(a), false, 0, "{}", 0);
	/* an enum value without a name is a number */
	a.type = 77;
	CHECK(fx.attr, &a, sizeof(a), false, 0, "{.type=77}", 0);
	CHECK(fx.emptys, &a, 0, false, 0, "{}", 0);
}

static void test_cut_data(void **state)
{
	struct { __u32 type, key, value, max, flags; char name[8]; __s32 neg; } a = {
		1, 4, 8, 16, 0, "abcdefgh", 0,
	};

	/* value_size half there */
	CHECK(fx.attr, &a, 10, false, 0, "{.type=MAP_HASH,.key_size=4,.value_size=\u2026", -E2BIG);
	/* nothing of value_size */
	CHECK(fx.attr, &a, 8, false, 0, "{.type=MAP_HASH,.key_size=4,\u2026", -E2BIG);
	/* a char array without NUL runs into the end */
	CHECK(fx.attr, &a, 23, false, 0,
	      "{.type=MAP_HASH,.key_size=4,.value_size=8,.max_entries=16,.name=['a','b','c'\u2026",
	      -E2BIG);
}

static void test_union_bitfields_arrays(void **state)
{
	struct { __u64 p; __u8 is_kernel; __u8 pad[7]; } bp = { 0x7ffc86cfcf90ULL, 0 };
	__u32 bf[2] = { 5 | (0 << 3) | (0x123456u << 8), 0xd };	/* s:4 = 0b1101 = -3 */
	struct { __u64 x; __s32 a[3]; __u32 pad; __u64 z; } n = { 0, { 1, 0, 3 }, 0, 7 };

	/* an anonymous member shows its value only */
	CHECK(fx.bpfptr, &bp, 16, false, 0, "{{.kernel=0x7ffc86cfcf90,.user=0x7ffc86cfcf90}}", 0);
	bp.is_kernel = 1;
	CHECK(fx.bpfptr, &bp, 16, false, 0,
	      "{{.kernel=0x7ffc86cfcf90,.user=0x7ffc86cfcf90},.is_kernel=1}", 0);
	CHECK(fx.bf, bf, 8, false, 0, "{.a=5,.c=1193046,.s=-3}", 0);
	/* zeros inside a non-zero array stay, zero structs go */
	CHECK(fx.nested, &n, sizeof(n), false, 0, "{.a=[1,0,3],.z=7}", 0);
	n.a[0] = n.a[2] = 0;
	CHECK(fx.nested, &n, sizeof(n), false, 0, "{.z=7}", 0);
}

static void test_verbose(void **state)
{
	struct { __u64 p; __u8 is_kernel; __u8 pad[7]; } bp = { 0x1000, 1 };
	struct { __u64 x; __s32 a[3]; __u32 pad; __u64 z; } n = { 9, { 1, 2, 3 }, 0, 0 };

	CHECK(fx.bpfptr, &bp, 16, true, 4, "{\n"
	      "        {\n"
	      "            .kernel = 0x1000,\n"
	      "            .user = 0x1000\n"
	      "        },\n"
	      "        .is_kernel = 1\n"
	      "    }", 0);
	/* arrays of numbers stay on one line */
	CHECK(fx.nested, &n, sizeof(n), true, 0, "{\n"
	      "    .in = {\n"
	      "        .x = 9\n"
	      "    },\n"
	      "    .a = [1,2,3]\n"
	      "}", 0);
}

static void test_enum64_and_errors(void **state)
{
	__u64 v = 0x100000000ULL, w = 5;

	CHECK(fx.e64, &v, 8, false, 0, "BIG_ONE", 0);
	CHECK(fx.e64, &w, 8, false, 0, "5", 0);
	/* not a type with a value */
	CHECK(0, &w, 8, false, 0, "", -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ints),
		cmocka_unit_test(test_struct_compact),
		cmocka_unit_test(test_cut_data),
		cmocka_unit_test(test_union_bitfields_arrays),
		cmocka_unit_test(test_verbose),
		cmocka_unit_test(test_enum64_and_errors),
	};

	return cmocka_run_group_tests_name("arg_dump", tests, setup, teardown);
}
