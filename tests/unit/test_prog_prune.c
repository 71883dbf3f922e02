// SPDX-License-Identifier: BSD-2-Clause
/*
 * prog_prune__new() on small programs written out here: a branch decided by .rodata
 * (taken, not taken, 32-bit), one left open (a register unknown, two paths with
 * different numbers, an immediate moved in), a subprogram called only from dead code
 * dropped with its function record, a callback's load and the line records renumbered,
 * bad input refused. Then the kernel's word: where BPF can be loaded (root), a socket
 * filter and its pruned copy, both loaded with a frozen read-only map, return the same.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "unit.h"
#include "prog_prune.h"

#define RO_FD	7	/* the fd the "relocated" loads name */

#define LD_RO(dst, off)							\
	{ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = dst, .src_reg = BPF_PSEUDO_MAP_VALUE, \
	  .imm = RO_FD }, { .imm = off }
#define LDX(sz, dst, src, o)						\
	{ .code = BPF_LDX | BPF_MEM | sz, .dst_reg = dst, .src_reg = src, .off = o }
#define JK(op, dst, k, o)	{ .code = BPF_JMP | op | BPF_K, .dst_reg = dst, .imm = k, .off = o }
#define J32K(op, dst, k, o)	{ .code = BPF_JMP32 | op | BPF_K, .dst_reg = dst, .imm = k, .off = o }
#define JX(op, dst, src, o)	{ .code = BPF_JMP | op | BPF_X, .dst_reg = dst, .src_reg = src, .off = o }
#define JA(o)			{ .code = BPF_JMP | BPF_JA, .off = o }
#define MOVK(dst, k)		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = dst, .imm = k }
#define MOVX(dst, src)		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = dst, .src_reg = src }
#define ANDK(dst, k)		{ .code = BPF_ALU64 | BPF_AND | BPF_K, .dst_reg = dst, .imm = k }
#define CALL_PSEUDO(o)		{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL, .imm = o }
#define CALL_HELPER(n)		{ .code = BPF_JMP | BPF_CALL, .imm = n }
#define LD_FUNC(dst, o)							\
	{ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = dst, .src_reg = BPF_PSEUDO_FUNC, \
	  .imm = o }, { 0 }
#define EXIT			{ .code = BPF_JMP | BPF_EXIT }

static struct prog_prune *prune(const struct bpf_insn *insns, size_t cnt, const void *ro,
				size_t ro_sz)
{
	struct prog_text in = { .insns = insns, .insn_cnt = cnt };
	LIBBPF_OPTS(prog_prune_opts, o, .rodata = ro, .rodata_sz = ro_sz, .rodata_fd = RO_FD);

	return prog_prune__new(&in, &o);
}

static void assert_insn(const struct bpf_insn *a, const struct bpf_insn *b)
{
	assert_int_equal(a->code, b->code);
	assert_int_equal(a->dst_reg, b->dst_reg);
	assert_int_equal(a->src_reg, b->src_reg);
	assert_int_equal(a->off, b->off);
	assert_int_equal(a->imm, b->imm);
}

/* if (ro[4] == 0) return 2; return 1; */
static const struct bpf_insn flag_prog[] = {
	LD_RO(BPF_REG_1, 4),			/* 0-1 */
	LDX(BPF_B, BPF_REG_2, BPF_REG_1, 0),	/* 2 */
	JK(BPF_JEQ, BPF_REG_2, 0, 2),		/* 3: to 6 */
	MOVK(BPF_REG_0, 1),			/* 4 */
	EXIT,					/* 5 */
	MOVK(BPF_REG_0, 2),			/* 6 */
	EXIT,					/* 7 */
};

/*
 * ro[4] == 0: the branch is a jump, what it skips goes, and so does the load of ro[4] that
 * only it read (the 16-byte load at 0 stays: a program's first instruction always does).
 */
static void test_taken(void **state)
{
	const __u8 ro[8] = { 0 };
	const struct bpf_insn want[] = {
		flag_prog[0], flag_prog[1], JA(0), flag_prog[6], flag_prog[7],
	};
	struct prog_prune *p = prune(flag_prog, 8, ro, sizeof(ro));
	const struct prog_text *t;
	size_t i;

	(void)state;
	assert_non_null(p);
	t = prog_prune__text(p);
	assert_int_equal(t->insn_cnt, 5);
	for (i = 0; i < 5; i++)
		assert_insn(&t->insns[i], &want[i]);
	assert_int_equal(prog_prune__removed(p), 3);
	assert_int_equal(prog_prune__decided(p), 1);
	assert_int_equal(prog_prune__dead_defs(p), 1);
	assert_int_equal(prog_prune__new_index(p, 2), -1);
	assert_int_equal(prog_prune__new_index(p, 6), 3);
	assert_int_equal(prog_prune__new_index(p, 4), -1);
	prog_prune__free(p);
}

static void test_fall(void **state)
{
	const __u8 ro[8] = { [4] = 1 };
	struct prog_prune *p = prune(flag_prog, 8, ro, sizeof(ro));
	const struct prog_text *t;

	(void)state;
	assert_non_null(p);
	t = prog_prune__text(p);
	/* the branch never taken goes, what only it reached, and the load it read */
	assert_int_equal(t->insn_cnt, 4);
	assert_insn(&t->insns[2], &flag_prog[4]);
	assert_insn(&t->insns[3], &flag_prog[5]);
	assert_int_equal(prog_prune__decided(p), 1);
	assert_int_equal(prog_prune__dead_defs(p), 1);
	assert_int_equal(prog_prune__new_index(p, 3), -1);
	prog_prune__free(p);
}

/* A 32-bit compare sees the low half: ro[0..8) = 0x1_00000000 is 0 to it */
static void test_jmp32(void **state)
{
	const struct bpf_insn prog[] = {
		LD_RO(BPF_REG_1, 0),
		LDX(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
		J32K(BPF_JNE, BPF_REG_2, 0, 2),
		MOVK(BPF_REG_0, 1),
		EXIT,
		MOVK(BPF_REG_0, 2),
		EXIT,
	};
	const __u8 ro[8] = { [4] = 1 };
	struct prog_prune *p = prune(prog, 8, ro, sizeof(ro));

	(void)state;
	assert_non_null(p);
	assert_int_equal(prog_prune__text(p)->insn_cnt, 4);
	assert_int_equal(prog_prune__new_index(p, 6), -1);
	assert_int_equal(prog_prune__new_index(p, 4), 2);
	prog_prune__free(p);
}

/*
 * r3 is ro[0] on one path and ro[1] on the other (the path chosen by the context): the
 * branch on it is decided only where both are the same number.
 */
static const struct bpf_insn merge_prog[] = {
	MOVX(BPF_REG_6, BPF_REG_1),			/* 0 */
	LD_RO(BPF_REG_7, 0),				/* 1-2 */
	LDX(BPF_W, BPF_REG_2, BPF_REG_6, 0),		/* 3: unknown */
	JK(BPF_JEQ, BPF_REG_2, 0, 2),			/* 4: to 7 */
	LDX(BPF_B, BPF_REG_3, BPF_REG_7, 0),		/* 5 */
	JA(1),						/* 6: to 8 */
	LDX(BPF_B, BPF_REG_3, BPF_REG_7, 1),		/* 7 */
	JK(BPF_JEQ, BPF_REG_3, 1, 2),			/* 8: to 11 */
	MOVK(BPF_REG_0, 0),				/* 9 */
	EXIT,						/* 10 */
	MOVK(BPF_REG_0, 1),				/* 11 */
	EXIT,						/* 12 */
};

static void test_merge(void **state)
{
	const __u8 differ[2] = { 1, 2 }, same[2] = { 1, 1 };
	const struct prog_text *t;
	struct prog_prune *p;

	(void)state;
	/*
	 * Open: r3 read, but each load of it is a known number on its own path, moved in as
	 * one; the pointer that only those loads read goes.
	 */
	p = prune(merge_prog, 13, differ, sizeof(differ));
	assert_non_null(p);
	t = prog_prune__text(p);
	assert_int_equal(prog_prune__decided(p), 0);
	assert_int_equal(prog_prune__folded(p), 2);
	assert_int_equal(prog_prune__removed(p), 2);
	assert_int_equal(t->insn_cnt, 11);
	assert_insn(&t->insns[3], &(struct bpf_insn)MOVK(BPF_REG_3, 1));
	assert_insn(&t->insns[5], &(struct bpf_insn)MOVK(BPF_REG_3, 2));
	assert_insn(&t->insns[2], &merge_prog[4]);	/* to 7, still 2 ahead */
	assert_insn(&t->insns[6], &merge_prog[8]);
	prog_prune__free(p);

	/* decided: 9-10 go, and r3's loads with r7's pointer that only they read */
	p = prune(merge_prog, 13, same, sizeof(same));
	assert_non_null(p);
	assert_int_equal(prog_prune__removed(p), 6);
	assert_int_equal(prog_prune__decided(p), 1);
	assert_int_equal(prog_prune__dead_defs(p), 4);
	assert_int_equal(prog_prune__new_index(p, 9), -1);
	assert_int_equal(prog_prune__new_index(p, 5), -1);
	assert_int_equal(prog_prune__new_index(p, 1), -1);
	assert_int_equal(prog_prune__new_index(p, 3), 1);	/* the context's value: read */
	assert_int_equal(prog_prune__new_index(p, 11), 5);
	prog_prune__free(p);
}

/*
 * Facts come from .rodata only: a moved immediate (a clone's function id, written per
 * clone after the template's load) decides nothing; nor does a load through a pointer
 * that isn't ours, or past the end of .rodata. A mask applied to a known byte does. r0's
 * writes that the one at 11 overwrites before the exit read it go as well.
 */
static void test_no_facts(void **state)
{
	const struct bpf_insn prog[] = {
		MOVK(BPF_REG_2, 0),			/* 0 */
		JK(BPF_JEQ, BPF_REG_2, 0, 1),		/* 1: open */
		MOVK(BPF_REG_0, 3),			/* 2 */
		LD_RO(BPF_REG_1, 6),			/* 3-4 */
		LDX(BPF_W, BPF_REG_3, BPF_REG_1, 0),	/* 5: past the end (6 + 4 > 8) */
		JK(BPF_JEQ, BPF_REG_3, 0, 1),		/* 6: open */
		MOVK(BPF_REG_0, 4),			/* 7 */
		LDX(BPF_B, BPF_REG_4, BPF_REG_1, 0),	/* 8: ro[6] = 0xf0 */
		ANDK(BPF_REG_4, 0x0f),			/* 9: 0 */
		JK(BPF_JNE, BPF_REG_4, 0, 1),		/* 10: never */
		MOVK(BPF_REG_0, 5),			/* 11 */
		EXIT,					/* 12 */
	};
	const __u8 ro[8] = { [6] = 0xf0 };
	struct prog_prune *p = prune(prog, 13, ro, sizeof(ro));

	const struct prog_text *t;

	(void)state;
	assert_non_null(p);
	t = prog_prune__text(p);
	assert_int_equal(prog_prune__decided(p), 1);
	assert_int_equal(prog_prune__dead_defs(p), 4);	/* 2, 7, 8, 9 */
	assert_int_equal(prog_prune__new_index(p, 10), -1);
	/* the branches on the moved immediate and the load past the end stay branches */
	assert_int_equal(prog_prune__new_index(p, 1), 1);
	assert_int_equal(t->insns[1].code, BPF_JMP | BPF_JEQ | BPF_K);
	assert_int_equal(prog_prune__new_index(p, 6), 5);
	assert_int_equal(t->insns[5].code, BPF_JMP | BPF_JEQ | BPF_K);
	assert_int_equal(prog_prune__new_index(p, 11), 6);
	assert_int_equal(t->insn_cnt, 8);
	prog_prune__free(p);
}

/*
 * Main calls subprogram A only when ro[0] is set, and hands subprogram B to a helper as a
 * callback always. With ro[0] == 0: A goes with its function record, B's load and the
 * records after it are renumbered, the line records of dropped code go.
 */
static void test_subprogs(void **state)
{
	const struct bpf_insn prog[] = {
		LD_RO(BPF_REG_1, 0),			/* 0-1 */
		LDX(BPF_B, BPF_REG_2, BPF_REG_1, 0),	/* 2 */
		JK(BPF_JEQ, BPF_REG_2, 0, 1),		/* 3: to 5 */
		CALL_PSEUDO(5),				/* 4: A at 10 */
		LD_FUNC(BPF_REG_2, 6),			/* 5-6: B at 12 */
		CALL_HELPER(BPF_FUNC_loop),		/* 7 */
		MOVK(BPF_REG_0, 0),			/* 8 */
		EXIT,					/* 9 */
		MOVK(BPF_REG_0, 1),			/* 10: A */
		EXIT,					/* 11 */
		MOVK(BPF_REG_0, 0),			/* 12: B */
		EXIT,					/* 13 */
	};
	const struct bpf_func_info fi[] = { { 0, 1 }, { 10, 2 }, { 12, 3 } };
	const struct bpf_line_info li[] = {
		{ .insn_off = 0, .line_col = 1 }, { .insn_off = 4, .line_col = 2 },
		{ .insn_off = 5, .line_col = 3 }, { .insn_off = 10, .line_col = 4 },
		{ .insn_off = 12, .line_col = 5 },
	};
	struct prog_text in = {
		.insns = prog, .insn_cnt = 14,
		.func_info = fi, .func_info_rec_size = sizeof(fi[0]), .func_info_cnt = 3,
		.line_info = li, .line_info_rec_size = sizeof(li[0]), .line_info_cnt = 5,
	};
	const __u8 ro[4] = { 0 };
	LIBBPF_OPTS(prog_prune_opts, o, .rodata = ro, .rodata_sz = sizeof(ro), .rodata_fd = RO_FD);
	const struct bpf_func_info *ofi;
	const struct bpf_line_info *oli;
	const struct prog_text *t;
	struct prog_prune *p;

	(void)state;
	p = prog_prune__new(&in, &o);
	assert_non_null(p);
	t = prog_prune__text(p);
	/* 2 (ro[0], read by the branch only), 4 (the call), 10-11 (A) gone; the branch to 5 a jump */
	assert_int_equal(t->insn_cnt, 10);
	assert_int_equal(t->insns[2].code, BPF_JMP | BPF_JA);
	assert_int_equal(t->insns[2].off, 0);
	/* B's load at 3 names B at 8: imm 8 - 3 - 1 */
	assert_int_equal(t->insns[3].src_reg, BPF_PSEUDO_FUNC);
	assert_int_equal(t->insns[3].imm, 4);
	assert_int_equal(t->func_info_cnt, 2);
	ofi = t->func_info;
	assert_int_equal(ofi[0].insn_off, 0);
	assert_int_equal(ofi[1].insn_off, 8);
	assert_int_equal(ofi[1].type_id, 3);
	assert_int_equal(t->line_info_cnt, 3);
	oli = t->line_info;
	assert_int_equal(oli[0].insn_off, 0);
	assert_int_equal(oli[1].insn_off, 3);
	assert_int_equal(oli[1].line_col, 3);
	assert_int_equal(oli[2].insn_off, 8);
	assert_int_equal(oli[2].line_col, 5);
	prog_prune__free(p);
}

static void test_refused(void **state)
{
	const struct bpf_insn odd[] = {
		{ .code = BPF_LD | BPF_IMM | BPF_W },	/* no such instruction */
		EXIT,
	};
	const __u8 ro[8] = { 0 };
	struct prog_text in = { .insns = flag_prog, .insn_cnt = 8 };
	struct prog_prune_opts big = { .sz = sizeof(big) + 8 };
	char buf[sizeof(struct prog_prune_opts) + 8] = { 0 };

	(void)state;
	errno = 0;
	assert_null(prune(odd, 2, ro, sizeof(ro)));
	assert_int_equal(errno, EOPNOTSUPP);
	/* no .rodata: nothing to know */
	errno = 0;
	assert_null(prune(flag_prog, 8, NULL, 0));
	assert_int_equal(errno, EINVAL);
	/* a larger opts struct whose tail isn't zero */
	memcpy(buf, &big, sizeof(big));
	buf[sizeof(big) + 1] = 1;
	errno = 0;
	assert_null(prog_prune__new(&in, (const struct prog_prune_opts *)buf));
	assert_int_equal(errno, EINVAL);
	/* a jump out of the program */
	{
		const struct bpf_insn out[] = { JA(5), EXIT };

		errno = 0;
		assert_null(prune(out, 2, ro, sizeof(ro)));
		assert_int_equal(errno, EINVAL);
	}
}

/*
 * The kernel agrees: the flag program as a socket filter reading a frozen read-only
 * array, loaded whole and pruned, returns the same for both settings of the flag, and
 * the pruned one is what the verifier left of the whole one but for the load of the flag,
 * which the verifier keeps and every run of the program then makes.
 */
static int load_filter(const struct bpf_insn *insns, size_t cnt, int *ret, __u32 *xlated)
{
	LIBBPF_OPTS(bpf_test_run_opts, tr);
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	__u8 pkt[64] = { 0 };
	int fd, err;

	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "prune", "GPL", insns, cnt, NULL);
	if (fd < 0)
		return -errno;
	tr.data_in = pkt;
	tr.data_size_in = sizeof(pkt);
	err = bpf_prog_test_run_opts(fd, &tr);
	if (!err)
		err = bpf_prog_get_info_by_fd(fd, &info, &len);
	*ret = tr.retval;
	*xlated = info.xlated_prog_len / sizeof(struct bpf_insn);
	close(fd);
	return err;
}

static void test_kernel_agrees(void **state)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_RDONLY_PROG);
	struct bpf_insn whole[8];
	__u8 val[8] = { 0 };
	int flag, fd;

	(void)state;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "prune_ro", 4, sizeof(val), 1, &mo);
	if (fd < 0)
		skip();		/* no BPF here (not root): the VM tests load the real programs */
	for (flag = 0; flag < 2; flag++) {
		LIBBPF_OPTS(prog_prune_opts, o, .rodata = val, .rodata_sz = sizeof(val));
		struct prog_text in = { .insns = whole, .insn_cnt = 8 };
		int ret_whole, ret_pruned, k = 0, mfd;
		__u32 x_whole, x_pruned;
		struct prog_prune *p;

		val[4] = flag;
		mfd = flag ? bpf_map_create(BPF_MAP_TYPE_ARRAY, "prune_ro", 4, sizeof(val), 1, &mo) : fd;
		assert_true(mfd >= 0);
		assert_int_equal(bpf_map_update_elem(mfd, &k, val, BPF_ANY), 0);
		assert_int_equal(bpf_map_freeze(mfd), 0);
		memcpy(whole, flag_prog, sizeof(whole));
		whole[0].imm = mfd;
		o.rodata_fd = mfd;
		p = prog_prune__new(&in, &o);
		assert_non_null(p);
		assert_int_equal(load_filter(whole, 8, &ret_whole, &x_whole), 0);
		assert_int_equal(load_filter(prog_prune__text(p)->insns, prog_prune__text(p)->insn_cnt,
					     &ret_pruned, &x_pruned), 0);
		assert_int_equal(ret_whole, flag ? 1 : 2);
		assert_int_equal(ret_pruned, ret_whole);
		assert_true(prog_prune__text(p)->insn_cnt < 8);
		assert_int_equal(x_pruned, x_whole - 1);
		prog_prune__free(p);
		close(mfd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_taken),
		cmocka_unit_test(test_fall),
		cmocka_unit_test(test_jmp32),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_no_facts),
		cmocka_unit_test(test_subprogs),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_kernel_agrees),
	};

	libbpf_set_print(NULL);
	return cmocka_run_group_tests_name("prog_prune", tests, NULL, NULL);
}
