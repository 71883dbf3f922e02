// SPDX-License-Identifier: BSD-2-Clause
/*
 * prog_patch__replace_all() on retsnoop's own BPF object, opened (not loaded): where the
 * session table is off, the fetching atomics it holds (compare-and-swap, exchange) become
 * jumps to the next instruction, or 5.10 refuses every program (tracer_maps.c). The
 * rewrite must reach each one, keep the instruction count (jumps and relocations stay
 * right) and never take the second half of a 16-byte load for an instruction.
 */
#include <linux/bpf.h>
#include <bpf/libbpf.h>
#include "unit.h"
#include "prog_patch.h"
#include "retsnoop.skel.h"

static bool is_fetch_atomic(const struct bpf_insn *in)
{
	return BPF_CLASS(in->code) == BPF_STX && BPF_MODE(in->code) == BPF_ATOMIC &&
	       in->imm != BPF_ADD && in->imm != BPF_AND && in->imm != BPF_OR && in->imm != BPF_XOR;
}

/* Fetching atomics among @prog's instructions, 16-byte loads stepped over. */
static int count_fetch(const struct bpf_program *prog)
{
	const struct bpf_insn *in = bpf_program__insns(prog);
	size_t cnt = bpf_program__insn_cnt(prog), i;
	int n = 0;

	for (i = 0; i < cnt; i++) {
		if (in[i].code == (BPF_LD | BPF_IMM | BPF_DW))
			i++;
		else
			n += is_fetch_atomic(&in[i]);
	}
	return n;
}

static void test_table_atomics(void **state)
{
	const struct bpf_insn nop = { .code = BPF_JMP | BPF_JA };
	struct retsnoop *skel = retsnoop__open();
	struct bpf_program *prog;
	size_t cnt;
	int before, n;

	(void)state;
	assert_non_null(skel);
	prog = skel->progs.ksession;
	cnt = bpf_program__insn_cnt(prog);
	before = count_fetch(prog);
	/* the table's claim (compare-and-swap) and release (exchange) are inlined in it */
	assert_true(before >= 2);
	n = prog_patch__replace_all(prog, is_fetch_atomic, &nop);
	assert_int_equal(n, before);
	assert_int_equal(count_fetch(prog), 0);
	assert_int_equal(bpf_program__insn_cnt(prog), cnt);
	/* nothing left to match: nothing rewritten, nothing copied */
	assert_int_equal(prog_patch__replace_all(prog, is_fetch_atomic, &nop), 0);
	retsnoop__destroy(skel);
}

/* A 16-byte load whose second half looks like an exchange is not rewritten. */
static bool is_any(const struct bpf_insn *in)
{
	(void)in;
	return true;
}

static void test_ld_imm64_halves(void **state)
{
	const struct bpf_insn nop = { .code = BPF_JMP | BPF_JA };
	struct retsnoop *skel = retsnoop__open();
	const struct bpf_insn *in;
	struct bpf_program *prog;
	size_t cnt, i, loads = 0;
	int n;

	(void)state;
	assert_non_null(skel);
	prog = skel->progs.kentry;
	cnt = bpf_program__insn_cnt(prog);
	in = bpf_program__insns(prog);
	for (i = 0; i < cnt; i++)
		if (in[i].code == (BPF_LD | BPF_IMM | BPF_DW))
			loads++, i++;
	assert_true(loads > 0);	/* its maps and read-only settings */
	n = prog_patch__replace_all(prog, is_any, &nop);
	/* every instruction but the loads' second halves (and the loads themselves) */
	assert_int_equal((size_t)n, cnt - 2 * loads);
	in = bpf_program__insns(prog);
	for (i = 0; i < cnt; i++) {
		if (in[i].code == (BPF_LD | BPF_IMM | BPF_DW)) {
			i++;
			continue;
		}
		assert_int_equal(in[i].code, BPF_JMP | BPF_JA);
	}
	retsnoop__destroy(skel);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_atomics),
		cmocka_unit_test(test_ld_imm64_halves),
	};

	libbpf_set_print(NULL);
	return cmocka_run_group_tests_name("prog_patch", tests, NULL, NULL);
}
