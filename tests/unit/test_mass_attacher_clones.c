// SPDX-License-Identifier: BSD-2-Clause
/*
 * The fentry/fexit clones' subprogram starts (ma__subprog_starts()), which their template's
 * func_info is put on: a wrong start would make the kernel refuse every clone, or verify a
 * global function as the wrong one.
 */
#include <linux/bpf.h>
#include "unit.h"
#include "mass_attacher_int.h"

#define CALL_SUB(off)	{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL, .imm = (off) }
#define CALL_HELPER(id)	{ .code = BPF_JMP | BPF_CALL, .imm = (id) }
#define CALL_KFUNC(id)	{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_KFUNC_CALL, .imm = (id) }
#define LD_FUNC(off)	{ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = 2, .src_reg = BPF_PSEUDO_FUNC, \
			  .imm = (off) }, { 0 }
#define LD_MAP		{ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = 1, .src_reg = BPF_PSEUDO_MAP_FD, \
			  .imm = 6 }, { 0 }
#define EXIT		{ .code = BPF_JMP | BPF_EXIT }

static void test_starts(void **state)
{
	const struct bpf_insn insns[] = {
		/* 0 */ CALL_SUB(8),	/* -> 9 */
		/* 1 */ LD_FUNC(9),	/* -> 11; its second half (2) is no instruction */
		/* 3 */ CALL_HELPER(1),
		/* 4 */ CALL_KFUNC(100),
		/* 5 */ LD_MAP,		/* map fd 6: no target */
		/* 7 */ CALL_SUB(3),	/* -> 11 again: counted once */
		/* 8 */ EXIT,
		/* 9 */ CALL_SUB(-7),	/* -> 3: a start before its caller */
		/* 10 */ EXIT,
		/* 11 */ EXIT,
	};
	__u32 starts[8] = {}, n;

	(void)state;
	n = ma__subprog_starts(insns, sizeof(insns) / sizeof(insns[0]), starts, 8);
	assert_int_equal(n, 4);
	assert_int_equal(starts[0], 0);
	assert_int_equal(starts[1], 3);
	assert_int_equal(starts[2], 9);
	assert_int_equal(starts[3], 11);
	/* more than @max: said so, not written past */
	starts[2] = 77;
	assert_int_equal(ma__subprog_starts(insns, sizeof(insns) / sizeof(insns[0]), starts, 2), 3);
	/* no call at all: the main program alone */
	assert_int_equal(ma__subprog_starts(insns + 8, 1, starts, 8), 1);
	assert_int_equal(starts[0], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_starts),
	};

	return cmocka_run_group_tests_name("mass_attacher_clones", tests, NULL, NULL);
}
