// SPDX-License-Identifier: BSD-2-Clause
/*
 * Pruning before the load (src/prog_prune.c). Input: 16 bytes of .rodata, then 8-byte BPF
 * instructions (loads naming map fd 7 read it), line records at every 4th instruction.
 * Whatever the instructions, the pass returns a program or refuses with a documented
 * errno, and a program it returns holds together: no more instructions than it was given,
 * the count removed adding up, every jump, call and callback load landing inside it and
 * on an instruction (not a 16-byte load's second half), the instructions kept in order,
 * its line records ascending and inside it.
 */
#include <errno.h>
#include <stdbool.h>
#include <linux/bpf.h>
#include "fuzz.h"
#include "prog_prune.h"

#define RO_SZ	16
#define RO_FD	7

static bool is_ld64(const struct bpf_insn *x)
{
	return x->code == (BPF_LD | BPF_IMM | BPF_DW);
}

static void check(const struct prog_text *in, const struct prog_prune *p)
{
	const struct prog_text *t = prog_prune__text(p);
	const struct bpf_line_info *li = t->line_info;
	bool *half = calloc(t->insn_cnt + 1, sizeof(*half));
	long prev = -1, n;
	size_t i;

	if (!half)
		abort();
	FUZZ_CHECK(t->insn_cnt >= 1 && t->insn_cnt <= in->insn_cnt);
	FUZZ_CHECK(prog_prune__removed(p) == in->insn_cnt - t->insn_cnt);
	for (i = 0; i < in->insn_cnt; i++) {
		n = prog_prune__new_index(p, i);
		if (n < 0)
			continue;
		FUZZ_CHECK(n > prev && (size_t)n < t->insn_cnt);
		prev = n;
	}
	for (i = 0; i < t->insn_cnt; i++)
		if (is_ld64(&t->insns[i]) && i + 1 < t->insn_cnt)
			half[++i] = true;
	for (i = 0; i < t->insn_cnt; i++) {
		const struct bpf_insn *x = &t->insns[i];
		__u8 cls = BPF_CLASS(x->code), op = BPF_OP(x->code);
		long to = -1;

		if (half[i])
			continue;
		if (is_ld64(x) && x->src_reg == BPF_PSEUDO_FUNC)
			to = (long)i + x->imm + 1;
		else if ((cls == BPF_JMP || cls == BPF_JMP32) && op == BPF_CALL)
			to = x->src_reg == BPF_PSEUDO_CALL ? (long)i + x->imm + 1 : -1;
		else if ((cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_EXIT)
			to = x->code == (BPF_JMP32 | BPF_JA) ? (long)i + x->imm + 1 : (long)i + x->off + 1;
		if (to != -1)
			FUZZ_CHECK(to >= 0 && (size_t)to < t->insn_cnt && !half[to]);
	}
	for (i = 0; i < t->line_info_cnt; i++) {
		FUZZ_CHECK(li[i].insn_off < t->insn_cnt);
		FUZZ_CHECK(i == 0 || li[i].insn_off > li[i - 1].insn_off);
	}
	free(half);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prog_prune_opts o = { .sz = sizeof(o), .rodata_sz = RO_SZ, .rodata_fd = RO_FD };
	struct bpf_line_info *li;
	struct prog_text in = {};
	struct bpf_insn *insns;
	struct prog_prune *p;
	size_t cnt, i;

	if (size < RO_SZ + sizeof(struct bpf_insn))
		return 0;
	cnt = (size - RO_SZ) / sizeof(struct bpf_insn);
	o.rodata = data;
	/* copies: aligned, and the pass must not write its input */
	insns = malloc(cnt * sizeof(*insns));
	li = calloc(cnt / 4 + 1, sizeof(*li));
	if (!insns || !li)
		abort();
	memcpy(insns, data + RO_SZ, cnt * sizeof(*insns));
	for (i = 0; i < cnt; i += 4)
		li[i / 4] = (struct bpf_line_info){ .insn_off = i, .line_col = i };
	in = (struct prog_text){ .insns = insns, .insn_cnt = cnt, .line_info = li,
				 .line_info_rec_size = sizeof(*li), .line_info_cnt = (cnt + 3) / 4 };
	errno = 0;
	p = prog_prune__new(&in, &o);
	if (!p) {
		FUZZ_CHECK(errno == EINVAL || errno == EOPNOTSUPP || errno == ENOMEM);
	} else {
		FUZZ_CHECK(memcmp(insns, data + RO_SZ, cnt * sizeof(*insns)) == 0);
		check(&in, p);
		prog_prune__free(p);
	}
	free(insns);
	free(li);
	return 0;
}
