// SPDX-License-Identifier: BSD-2-Clause
/*
 * Injected probes' context plans (-J -A) from BTF written with libbpf's BTF writer: a
 * kprobe's registers, a tracepoint's record fields (a __data_loc string, an array, a
 * pointer, the header and the variable-size tail left out), a raw tracepoint's arguments
 * named by its iterator, and probes BTF doesn't describe.
 */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include "unit.h"
#include "probe_ctx.h"

static const struct arg_limits lim = { .max_sized = 256, .max_str = 128 };

static struct btf *kernel_btf(void)
{
	struct btf *b = btf__new_empty();
	int u64, u32, u16, i32, chr, comm, ent, task, ptask, pchr, pvoid, tail, proto;

	assert_non_null(b);
	u64 = btf__add_int(b, "long unsigned int", 8, 0);
	u32 = btf__add_int(b, "unsigned int", 4, 0);
	u16 = btf__add_int(b, "short unsigned int", 2, 0);
	i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	chr = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	comm = btf__add_array(b, u32, chr, 16);
	btf__add_struct(b, "pt_regs", 24);
	btf__add_field(b, "di", u64, 0, 0);
	btf__add_field(b, "si", u64, 64, 0);
	btf__add_field(b, "ip", u64, 128, 0);
	ent = btf__add_struct(b, "trace_entry", 8);
	btf__add_field(b, "type", u16, 0, 0);
	btf__add_field(b, "pid", i32, 32, 0);
	task = btf__add_struct(b, "task_struct", 16);
	btf__add_field(b, "pid", i32, 0, 0);
	/* (types made between a struct's or prototype's members would end its member list) */
	ptask = btf__add_ptr(b, task);
	pchr = btf__add_ptr(b, chr);
	pvoid = btf__add_ptr(b, 0);
	tail = btf__add_array(b, u32, chr, 0);
	/* struct trace_event_raw_my_exec: ent, a string, a pid, a bitfield, comm, a pointer */
	btf__add_struct(b, "trace_event_raw_my_exec", 48);
	btf__add_field(b, "ent", ent, 0, 0);
	btf__add_field(b, "__data_loc_filename", u32, 64, 0);
	btf__add_field(b, "pid", i32, 96, 0);
	btf__add_field(b, "flag", u32, 128, 1);
	btf__add_field(b, "comm", comm, 160, 0);
	btf__add_field(b, "task", ptask, 320, 0);
	btf__add_field(b, "__data", tail, 384, 0);
	/* int __traceiter_my_exec(void *__data, struct task_struct *p, int old_pid, char *n) */
	proto = btf__add_func_proto(b, i32);
	assert_int_equal(btf__add_func_param(b, "__data", pvoid), 0);
	assert_int_equal(btf__add_func_param(b, "p", ptask), 0);
	assert_int_equal(btf__add_func_param(b, "old_pid", i32), 0);
	assert_int_equal(btf__add_func_param(b, "n", pchr), 0);
	assert_true(btf__add_func(b, "__traceiter_my_exec", BTF_FUNC_GLOBAL, proto) > 0);
	return b;
}

static struct func_arg_plan plan(const char *spec, const struct btf *btf, int want_err)
{
	struct probe_spec p;
	struct func_arg_plan fp;

	assert_int_equal(probe_spec__parse(spec, &p), 0);
	assert_int_equal(probe_ctx__plan(&p, btf, &lim, &fp), want_err);
	probe_spec__free(&p);
	return fp;
}

static void check_piece(const struct arg_plan *a, const char *name, enum arg_kind kind,
			__u8 loc, __u16 off, __u16 len)
{
	assert_string_equal(a->name, name);
	assert_int_equal(a->kind, kind);
	assert_int_equal(a->wire.loc, loc);
	assert_int_equal(a->wire.off, off);
	assert_int_equal(a->wire.len, len);
}

static void test_kprobe_regs(void **state)
{
	struct btf *btf = kernel_btf();
	struct func_arg_plan p = plan("kprobe:do_thing+4", btf, 0);

	assert_int_equal(p.arg_cnt, 1);
	assert_ptr_equal(p.btf, btf);
	check_piece(&p.args[0], "regs", ARG_VALUE, FNARG_CTX, 0, 24);
	assert_int_equal(p.args[0].type_id, btf__find_by_name_kind(btf, "pt_regs", BTF_KIND_STRUCT));
	p = plan("kretprobe:do_thing", btf, 0);
	check_piece(&p.args[0], "regs", ARG_VALUE, FNARG_CTX, 0, 24);
	btf__free(btf);
}

static void test_tracepoint_fields(void **state)
{
	struct btf *btf = kernel_btf();
	struct func_arg_plan p = plan("tp:sched:my_exec", btf, 0);

	/* ent, the bitfield and __data are left out */
	assert_int_equal(p.arg_cnt, 4);
	check_piece(&p.args[0], "filename", ARG_STR, FNARG_CTX_DATALOC, 8, 128);
	assert_int_equal(p.args[0].wire.kind, FNARG_STR);
	check_piece(&p.args[1], "pid", ARG_VALUE, FNARG_CTX, 12, 4);
	check_piece(&p.args[2], "comm", ARG_VALUE, FNARG_CTX, 20, 16);
	/* a pointer to a struct: the struct, read through the pointer in the record */
	check_piece(&p.args[3], "task", ARG_PTR, FNARG_CTX, 40, 16);
	assert_int_equal(p.args[3].wire.kind, FNARG_PTR);
	btf__free(btf);
}

static void test_raw_tracepoint_args(void **state)
{
	struct btf *btf = kernel_btf();
	struct func_arg_plan p = plan("rawtp:my_exec", btf, 0);

	/* the iterator's __data is not an argument: the context holds the others, 8 bytes each */
	assert_int_equal(p.arg_cnt, 3);
	check_piece(&p.args[0], "p", ARG_PTR, FNARG_CTX, 0, 16);
	check_piece(&p.args[1], "old_pid", ARG_VALUE, FNARG_CTX, 8, 4);
	check_piece(&p.args[2], "n", ARG_STR, FNARG_CTX, 16, 128);
	btf__free(btf);
}

static void test_undescribed(void **state)
{
	struct btf *btf = kernel_btf();
	struct func_arg_plan p;
	struct probe_spec specs[2];
	struct arg_plans *ps;

	/* no such event in BTF (nor, under this name, in tracefs) */
	p = plan("tp:no_such_category_x:no_such_event_x", btf, -ENOENT);
	assert_int_equal(p.arg_cnt, 0);
	assert_null(p.btf);
	p = plan("rawtp:no_such_event_x", btf, -ENOENT);
	assert_int_equal(p.arg_cnt, 0);
	p = plan("kprobe:x", NULL, -ENOENT);
	assert_null(p.btf);

	/* all of a run's probes: the undescribed one has an empty plan */
	assert_int_equal(probe_spec__parse("rawtp:no_such_event_x", &specs[0]), 0);
	assert_int_equal(probe_spec__parse("kprobe:x", &specs[1]), 0);
	ps = probe_ctx__plans(specs, 2, btf, &lim);
	assert_non_null(ps);
	assert_null(arg_plans__get(ps, 0)->btf);
	assert_int_equal(arg_plans__get(ps, 1)->arg_cnt, 1);
	arg_plans__free(ps);
	probe_spec__free(&specs[0]);
	probe_spec__free(&specs[1]);
	btf__free(btf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kprobe_regs),
		cmocka_unit_test(test_tracepoint_fields),
		cmocka_unit_test(test_raw_tracepoint_args),
		cmocka_unit_test(test_undescribed),
	};

	return cmocka_run_group_tests_name("probe_ctx", tests, NULL, NULL);
}
