// SPDX-License-Identifier: BSD-2-Clause
/*
 * DWARF -> BTF for -A on user functions (user_dwarf_btf.c), on the uprobe test program
 * built with -O2 -g at test time ($UPROG_DIR/uprog, tests/uprobe/uprobe.mk): each
 * parameter's BTF type, written out as a string, is what the C source declares
 * (tests/uprobe/uprog.c), pointers below the first one as void *, the double the plan
 * can't place as the unsupported type; types below a parameter's own pointer, and
 * structs, are added once however often they are met. (x86-64: char is signed.)
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "unit.h"
#include "user_dwarf_btf.h"

struct prog {
	int fd;
	Dwarf *dw;
};

static void open_prog(struct prog *p)
{
	const char *d = getenv("UPROG_DIR");
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/uprog", d ?: ".");
	p->fd = d ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (p->fd < 0) {
		print_message("no %s: run through make test-unit (UPROG_DIR)\n", path);
		skip();
	}
	p->dw = dwarf_begin(p->fd, DWARF_C_READ);
	assert_non_null(p->dw);
}

static void close_prog(struct prog *p)
{
	dwarf_end(p->dw);
	close(p->fd);
}

/* The defining DW_TAG_subprogram of @name (one with code), in any CU. */
static bool find_fn(Dwarf *dw, const char *name, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsz;

	while (dwarf_nextcu(dw, off, &next, &hsz, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;
		int r;

		if (dwarf_offdie(dw, off + hsz, &cu)) {
			for (r = dwarf_child(&cu, &c); r == 0; r = dwarf_siblingof(&c, &c)) {
				Dwarf_Addr lo;
				const char *n = dwarf_diename(&c);

				if (dwarf_tag(&c) == DW_TAG_subprogram && n && strcmp(n, name) == 0 &&
				    dwarf_lowpc(&c, &lo) == 0) {
					*out = c;
					return true;
				}
			}
		}
		off = next;
	}
	return false;
}

/* @id as C-like text: "int:4s", "ptr(const char:1s)", "struct uprog_pt{x:int:4s,...}". */
static void type_str(const struct btf *btf, __u32 id, char *buf, size_t sz, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *name;
	size_t len;
	int i;

	if (!id) {
		snprintf(buf, sz, "void");
		return;
	}
	assert_non_null(t);
	name = btf__name_by_offset(btf, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		snprintf(buf, sz, "%s:%u%s", name, t->size,
			 btf_int_encoding(t) & BTF_INT_SIGNED ? "s" : "u");
		return;
	case BTF_KIND_PTR:
	case BTF_KIND_CONST:
	case BTF_KIND_TYPEDEF:
		len = snprintf(buf, sz, "%s%s%s(", btf_is_ptr(t) ? "ptr" :
			       btf_is_const(t) ? "const" : "typedef ", btf_is_typedef(t) ? name : "",
			       "");
		type_str(btf, t->type, buf + len, sz - len, depth + 1);
		strncat(buf, ")", sz - strlen(buf) - 1);
		return;
	case BTF_KIND_STRUCT:
		len = snprintf(buf, sz, "struct %s:%u{", name, t->size);
		for (i = 0; i < btf_vlen(t) && depth < 4; i++) {
			const struct btf_member *m = &btf_members(t)[i];

			len += snprintf(buf + len, sz - len, "%s%s@%u:", i ? "," : "",
					btf__name_by_offset(btf, m->name_off), btf_member_bit_offset(t, i));
			type_str(btf, m->type, buf + len, sz - len, depth + 1);
			len = strlen(buf);
		}
		strncat(buf, "}", sz - strlen(buf) - 1);
		return;
	case BTF_KIND_FWD:
		snprintf(buf, sz, "fwd %s", name);
		return;
	default:
		snprintf(buf, sz, "kind %u", btf_kind(t));
	}
}

/* FUNC @id: "name(param type, ...) -> ret" */
static void func_str(const struct btf *btf, int id, char *buf, size_t sz)
{
	const struct btf_type *f = btf__type_by_id(btf, id), *p;
	const struct btf_param *ps;
	size_t len;
	int i;

	assert_non_null(f);
	assert_true(btf_is_func(f));
	p = btf__type_by_id(btf, f->type);
	assert_true(btf_is_func_proto(p));
	ps = btf_params(p);
	len = snprintf(buf, sz, "%s(", btf__name_by_offset(btf, f->name_off));
	for (i = 0; i < btf_vlen(p); i++) {
		len += snprintf(buf + len, sz - len, "%s%s ", i ? ", " : "",
				btf__name_by_offset(btf, ps[i].name_off));
		type_str(btf, ps[i].type, buf + len, sz - len, 0);
		len = strlen(buf);
	}
	len += snprintf(buf + len, sz - len, ") -> ");
	type_str(btf, p->type, buf + len, sz - len, 0);
}

static int add(struct dwarf_btf *db, Dwarf *dw, const char *name)
{
	Dwarf_Die fn;
	int id;

	assert_true(find_fn(dw, name, &fn));
	id = dwarf_btf__add_func(db, &fn, name);
	assert_true(id > 0);
	return id;
}

/* Every kind check_args' parameters have, as uprog.c declares them. */
static void test_check_args(void **state)
{
	struct btf *btf = btf__new_empty();
	struct dwarf_btf *db;
	struct prog p;
	char buf[1024];

	open_prog(&p);
	assert_non_null(btf);
	db = dwarf_btf__new(btf);
	assert_non_null(db);
	assert_ptr_equal(dwarf_btf__btf(db), btf);
	func_str(btf, add(db, p.dw, "check_args"), buf, sizeof(buf));
	assert_string_equal(buf, "check_args("
		"n int:4s, "
		"neg long int:8s, "
		"pt struct uprog_pt:8{x@0:int:4s,y@32:int:4s}, "
		"cfg ptr(const(struct uprog_cfg:16{name@0:ptr(void),limit@64:long int:8s})), "
		"name ptr(const(char:1s)), "
		"ratio fwd __unsupported, "
		"u7 short unsigned int:2u, "
		"s8 int:4s) -> long int:8s");
	dwarf_btf__free(db);
	btf__free(btf);
	close_prog(&p);
}

/* The id of parameter @i's type of FUNC @fn, @peel modifiers and pointers down. */
static __u32 param_type(const struct btf *btf, int fn, int i, int peel)
{
	const struct btf_type *p = btf__type_by_id(btf, btf__type_by_id(btf, fn)->type);
	__u32 id = btf_params(p)[i].type;

	while (peel-- > 0)
		id = btf__type_by_id(btf, id)->type;
	return id;
}

/*
 * Types met twice are added once: what a parameter's own pointer points to, structs and
 * the like. (A parameter's own pointer and qualifiers are added per function: below its
 * first pointer the same DIE is converted as void *.)
 */
static void test_types_added_once(void **state)
{
	struct btf *btf = btf__new_empty();
	struct dwarf_btf *db = dwarf_btf__new(btf);
	struct prog p;
	char buf[256];
	int ida, idb, c1, c2;

	open_prog(&p);
	ida = add(db, p.dw, "do_work");
	idb = add(db, p.dw, "open_config");
	func_str(btf, ida, buf, sizeof(buf));
	assert_string_equal(buf, "do_work(path ptr(const(char:1s))) -> int:4s");
	func_str(btf, idb, buf, sizeof(buf));
	assert_string_equal(buf, "open_config(path ptr(const(char:1s))) -> int:4s");
	/* const char *path: ptr -> const -> char, the char once */
	assert_int_equal(param_type(btf, ida, 0, 2), param_type(btf, idb, 0, 2));
	c1 = add(db, p.dw, "check_args");
	c2 = add(db, p.dw, "check_args");
	/* struct uprog_pt by value, struct uprog_cfg behind const * */
	assert_int_equal(param_type(btf, c1, 2, 0), param_type(btf, c2, 2, 0));
	assert_int_equal(param_type(btf, c1, 3, 2), param_type(btf, c2, 3, 2));
	assert_true(btf_is_struct(btf__type_by_id(btf, param_type(btf, c2, 3, 2))));
	dwarf_btf__free(db);
	btf__free(btf);
	close_prog(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_args),
		cmocka_unit_test(test_types_added_once),
	};

	return cmocka_run_group_tests_name("user_dwarf_btf", tests, NULL, NULL);
}
