// SPDX-License-Identifier: BSD-2-Clause
/*
 * What feature detection reads from a vmlinux BTF, on a small BTF built here: types by
 * name and kind, enum and enum64 values, member paths through anonymous unions and
 * nested structs, and the answers for what the BTF lacks. (The answers for real kernels
 * are proven in the test VM, where -V -v prints them.)
 */
#include <errno.h>
#include <bpf/btf.h>
#include "unit.h"
#include "kernel_features.h"

/*
 * A BTF shaped like the parts of a kernel's that detection reads; @task: with task_struct;
 * @kfunc_id (may be NULL): where the BTF ids of its kfuncs bpf_session_is_return and
 * bpf_session_cookie go.
 */
static struct btf *fake_vmlinux(bool task, int *kfunc_id)
{
	struct btf *b = btf__new_empty();
	int i32, ptr, chr, comm, anon, ts, kp, rp, tk, ids, proto, kfunc, cookie;

	assert_non_null(b);
	i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	ptr = btf__add_ptr(b, 0);
	chr = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	comm = btf__add_array(b, i32, chr, 16);
	assert_true(i32 > 0 && ptr > 0 && chr > 0 && comm > 0);

	/* stack inside an anonymous union at byte 16, as members hide in kernels' structs */
	anon = btf__add_union(b, NULL, 8);
	assert_int_equal(btf__add_field(b, "stack", ptr, 0, 0), 0);
	assert_int_equal(btf__add_field(b, "stack_alt", i32, 0, 0), 0);
	if (task) {
		ts = btf__add_struct(b, "task_struct", 64);
		assert_int_equal(btf__add_field(b, "pid", i32, 32, 0), 0);
		assert_int_equal(btf__add_field(b, NULL, anon, 128, 0), 0);
		assert_int_equal(btf__add_field(b, "group_leader", ptr, 192, 0), 0);
		assert_int_equal(btf__add_field(b, "comm", comm, 256, 0), 0);
		assert_int_equal(btf__add_field(b, "exit_code", i32, 384, 0), 0);
		assert_true(ts > 0);
	}

	/* trace_kprobe.rp.kp.addr: 8 + 4 + 16 bytes in */
	kp = btf__add_struct(b, "kprobe", 24);
	assert_int_equal(btf__add_field(b, "addr", ptr, 128, 0), 0);
	rp = btf__add_struct(b, "kretprobe", 32);
	assert_int_equal(btf__add_field(b, "kp", kp, 32, 0), 0);
	tk = btf__add_struct(b, "trace_kprobe", 48);
	assert_int_equal(btf__add_field(b, "flags", i32, 0, 0), 0);
	assert_int_equal(btf__add_field(b, "rp", rp, 64, 0), 0);
	assert_true(tk > 0);

	ids = btf__add_enum(b, "bpf_func_id", 4);
	assert_true(ids > 0);
	assert_int_equal(btf__add_enum_value(b, "BPF_FUNC_get_func_ip", 173), 0);
	assert_int_equal(btf__add_enum_value(b, "BPF_FUNC_task_storage_get", 156), 0);
	/* an enum64 is the same enum to CO-RE */
	assert_true(btf__add_enum64(b, "bpf_map_type", 8, false) > 0);
	assert_int_equal(btf__add_enum64_value(b, "BPF_MAP_TYPE_RINGBUF", 27), 0);
	/* the right name of the wrong kind is not the type */
	assert_true(btf__add_union(b, "bpf_tramp_image", 8) > 0);
	assert_true(btf__add_struct(b, "bpf_kprobe_multi_link", 0) > 0);
	/* kfuncs are functions: a struct of the kfunc's name is not it, the FUNC after it is */
	assert_true(btf__add_struct(b, "bpf_session_is_return", 0) > 0);
	proto = btf__add_func_proto(b, i32);
	assert_true(proto > 0);
	/* a function of a name that only starts like theirs is neither */
	assert_true(btf__add_func(b, "bpf_session_cookies", BTF_FUNC_STATIC, proto) > 0);
	cookie = btf__add_func(b, "bpf_session_cookie", BTF_FUNC_STATIC, proto);
	assert_true(cookie > 0);
	kfunc = btf__add_func(b, "bpf_session_is_return", BTF_FUNC_STATIC, proto);
	assert_true(kfunc > 0);
	if (kfunc_id) {
		kfunc_id[0] = kfunc;
		kfunc_id[1] = cookie;
	}
	return b;
}

static void test_facts(void **state)
{
	struct kernel_features f = {};
	int kfunc_id[2] = {};
	struct btf *b = fake_vmlinux(true, kfunc_id);

	(void)state;
	assert_int_equal(kernel_features__from_btf(&f, b), 0);
	assert_int_equal(f.session_kfunc_id, kfunc_id[0]);
	assert_int_equal(f.session_cookie_kfunc_id, kfunc_id[1]);
	assert_false(f.has_kprobe_session);	/* a program load says, not the BTF */
	assert_true(f.has_ringbuf);
	assert_true(f.has_func_ip);
	assert_true(f.has_kprobe_multi);
	assert_int_equal(f.task_pid_off, 4);
	assert_int_equal(f.task_stack_off, 16);
	assert_int_equal(f.task_group_leader_off, 24);
	assert_int_equal(f.task_comm_off, 32);
	assert_int_equal(f.task_exit_code_off, 48);
	assert_int_equal(f.trace_kprobe_addr_off, 8 + 4 + 16);
	/* not in this BTF: no, and no offset */
	assert_false(f.has_branch_snapshot);
	assert_false(f.has_cookie);
	assert_false(f.has_rawtp_cookie);
	assert_false(f.has_fexit_sleep_fix);	/* a union of that name */
	assert_false(f.has_fentry_protection);
	assert_false(f.has_fgraph_fprobe);
	assert_false(f.has_task_stack);
	/* task_storage_get without get_current_task_btf: no way to name the task */
	assert_false(f.has_task_storage);
	btf__free(b);
}

static void test_not_vmlinux(void **state)
{
	struct kernel_features f = {};
	struct btf *b = fake_vmlinux(false, NULL);

	(void)state;
	assert_int_equal(kernel_features__from_btf(&f, b), -ENODATA);
	assert_int_equal(kernel_features__from_btf(&f, NULL), -EINVAL);
	btf__free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_not_vmlinux),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
