// SPDX-License-Identifier: BSD-2-Clause
/*
 * After the branches are decided: the instructions that only computed what decided them.
 * The verifier removes a decided branch but keeps the loads of .rodata before it, and the
 * JIT compiles them into every run of the program: a backward register liveness over the
 * pruned flow, where an instruction with no effect but its register counts as a use of
 * nothing unless that register is read later (so what feeds only dead code dies too).
 */
#include <stdlib.h>
#include "prog_prune_int.h"

#define R(n)		((__u16)1 << (n))
#define ARG_REGS	(R(1) | R(2) | R(3) | R(4) | R(5))

/* Registers @x reads and writes, and whether removing it leaves nothing else undone */
static void regs_of(const struct bpf_insn *x, __u16 *use, __u16 *def, bool *pure)
{
	__u8 cls = BPF_CLASS(x->code), op = BPF_OP(x->code), mode = BPF_MODE(x->code);
	__u16 dst = R(x->dst_reg & 0xf), src = R(x->src_reg & 0xf);

	*use = *def = 0;
	*pure = false;
	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		*def = dst;
		*use = (op == BPF_MOV ? 0 : dst) | (BPF_SRC(x->code) == BPF_X && op != BPF_END &&
						    op != BPF_NEG ? src : 0);
		*pure = true;
		return;
	case BPF_LD:
		if (prune__is_ld64(x)) {
			*def = dst;
			/* a callback's address keeps its subprogram called */
			*pure = x->src_reg != BPF_PSEUDO_FUNC;
		} else {	/* packet loads: the context in r6, helpers' registers */
			*use = R(6) | (mode == BPF_IND ? src : 0);
			*def = R(0) | ARG_REGS;
		}
		return;
	case BPF_LDX:
		*def = dst;
		*use = src;
		*pure = mode == BPF_MEM || mode == BPF_MEMSX;
		return;
	case BPF_ST:
		*use = dst;
		return;
	case BPF_STX:
		*use = dst | src;
		if (mode == BPF_ATOMIC && x->imm == BPF_CMPXCHG) {
			*use |= R(0);
			*def = R(0);
		} else if (mode == BPF_ATOMIC && (x->imm & BPF_FETCH)) {
			*def = src;
		}
		return;
	default:
		break;
	}
	/* jumps */
	if (op == BPF_CALL) {
		*use = ARG_REGS;
		*def = R(0) | ARG_REGS;
	} else if (op == BPF_EXIT) {
		*use = R(0);
	} else if (op != BPF_JA && op != BPF_JCOND) {
		*use = dst | (BPF_SRC(x->code) == BPF_X ? src : 0);
	}
}

/* Up to two successors of kept instruction @i in the pruned flow; how many */
static int succs(const struct bpf_insn *insns, size_t i, const __u8 *decision, long s[2])
{
	const struct bpf_insn *x = &insns[i];
	long next = (long)i + 1 + prune__is_ld64(x);
	__u8 op = BPF_OP(x->code);

	if (!prune__has_target(x)) {
		if (BPF_CLASS(x->code) == BPF_JMP && op == BPF_EXIT)
			return 0;
		s[0] = next;
		return 1;
	}
	if (op == BPF_JA) {
		s[0] = prune__target(x, i);
		return 1;
	}
	if (prune__is_cond_jump(x) && decision[i] == D_TAKEN) {
		s[0] = prune__target(x, i);
		return 1;
	}
	if (prune__is_cond_jump(x) && decision[i] == D_FALL) {
		s[0] = next;
		return 1;
	}
	s[0] = next;
	s[1] = prune__target(x, i);
	return 2;
}

/* Registers live after kept instruction @i: live into any of its successors */
static __u16 live_out(const struct bpf_insn *insns, size_t cnt, size_t i, const __u8 *decision,
		      const __u16 *in)
{
	__u16 out = 0;
	long s[2];
	int k, ns;

	ns = succs(insns, i, decision, s);
	for (k = 0; k < ns; k++)
		if (s[k] >= 0 && (size_t)s[k] < cnt)
			out |= in[s[k]];
	return out;
}

size_t prune__dead_defs(const struct bpf_insn *insns, size_t cnt, __u8 *fate,
			const __u8 *decision, const bool *is_start, const bool *half)
{
	__u16 *in = calloc(cnt + 1, sizeof(*in));
	bool changed = true;
	size_t i, n = 0;

	if (!in)
		return 0;	/* only a chance missed */
	/*
	 * Least fixed point from nothing live: a register becomes live only where a kept
	 * instruction reads it, a pure one only when what it writes is live after it.
	 */
	while (changed) {
		changed = false;
		for (i = cnt; i-- > 0;) {
			__u16 out, use, def, v;
			bool pure;

			if (fate[i] == F_GONE)
				continue;
			if (fate[i] == F_PASS || half[i]) {	/* a load's second half is data */
				v = i + 1 < cnt ? in[i + 1] : 0;
			} else {
				out = live_out(insns, cnt, i, decision, in);
				regs_of(&insns[i], &use, &def, &pure);
				/* a decided branch is a jump now: it reads nothing */
				if (prune__is_cond_jump(&insns[i]) && decision[i] != D_OPEN)
					use = 0;
				if (pure && !(out & def) && !is_start[i])
					v = out;
				else
					v = (out & ~def) | use;
			}
			if (v != in[i]) {
				in[i] = v;
				changed = true;
			}
		}
	}
	for (i = 0; i < cnt; i++) {
		__u16 use, def;
		bool pure;

		if (fate[i] != F_KEPT)
			continue;
		regs_of(&insns[i], &use, &def, &pure);
		if (pure && !is_start[i]) {
			if (!(live_out(insns, cnt, i, decision, in) & def)) {
				fate[i] = F_PASS;
				n++;
				if (prune__is_ld64(&insns[i]) && i + 1 < cnt) {
					fate[i + 1] = F_PASS;
					n++;
				}
			}
		}
		i += prune__is_ld64(&insns[i]);
	}
	free(in);
	return n;
}
