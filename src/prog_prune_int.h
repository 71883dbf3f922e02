/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The pass of prog_prune.h in three files: the propagation (prog_prune.c), the output
 * (prog_prune_emit.c), the registers nothing reads (prog_prune_live.c).
 */
#ifndef __RETSNOOP_PROG_PRUNE_INT_H
#define __RETSNOOP_PROG_PRUNE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/types.h>
#include "prog_prune.h"

/* a conditional jump: not reached yet, either way, always, never */
enum decision { D_UNSET, D_OPEN, D_TAKEN, D_FALL };

/*
 * Each input instruction's fate in the output: gone (never run), kept, or passed through
 * (removed, control falling to the next instruction, as a branch never taken does).
 */
enum fate { F_GONE, F_KEPT, F_PASS };

static inline bool prune__is_ld64(const struct bpf_insn *in)
{
	return in->code == (BPF_LD | BPF_IMM | BPF_DW);
}

/* A jump with a target: not call, exit */
static inline bool prune__has_target(const struct bpf_insn *in)
{
	__u8 cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

	return (cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_CALL && op != BPF_EXIT;
}

static inline long prune__target(const struct bpf_insn *in, size_t i)
{
	if (in->code == (BPF_JMP32 | BPF_JA))
		return (long)i + in->imm + 1;
	return (long)i + in->off + 1;
}

static inline bool prune__is_cond_jump(const struct bpf_insn *in)
{
	__u8 op = BPF_OP(in->code);

	return prune__has_target(in) && op != BPF_JA && op != BPF_JCOND;
}

/*
 * What a register holds at an instruction, over all the paths found so far to reach it:
 * a number known before the load (from .rodata), a pointer into .rodata, or anything.
 * Only .rodata makes knowns: immediates moved into registers stay unknown, as the mass
 * attacher writes a function id over one in each clone of a template loaded once.
 */
enum val_kind { V_UNK, V_CONST, V_RODATA };

struct val {
	__u8 kind;
	__u64 v;	/* the number, or the offset into .rodata */
};

/* One instruction's state: its registers on entry; seen: reached at all */
struct insn_state {
	struct val r[MAX_BPF_REG];
	bool seen;
};


struct prog_prune {
	struct prog_text out;
	struct bpf_insn *insns;
	void *func_info, *line_info;
	long *new_idx;
	size_t in_cnt, removed, decided, dead_defs, folded;
};

struct pass {
	const struct prog_text *in;
	struct prog_prune_opts o;
	struct insn_state *st;
	__u8 *decision;
	__u32 *work;
	size_t work_cnt;
	bool *queued;
	bool *half;		/* the second halves of 16-byte loads */
};

static inline bool prune__is_pseudo_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL;
}

static inline bool prune__is_func_ref(const struct bpf_insn *in)
{
	return prune__is_ld64(in) && in->src_reg == BPF_PSEUDO_FUNC;
}

/*
 * Instruction @i of @p's program on register state @r (changed in place into its
 * successors' state): its successors in @succ (at most 2; -1 for none), the branch
 * decided or not in *@dec. -EOPNOTSUPP for an instruction not modelled (prog_prune.c).
 */
int prune__step(const struct pass *p, size_t i, struct val *r, long succ[2], __u8 *dec);
/* The subprogram (its rank in @starts, @n of them) instruction @i is in */
size_t prune__subprog_of(const __u32 *starts, size_t n, size_t i);
/*
 * The pruned program into @pp from the propagation's @p: @nsub subprograms at @starts,
 * @used the ones kept (prog_prune_emit.c). 0, -ENOMEM or -EINVAL (a jump out of reach).
 */
int prune__emit(struct prog_prune *pp, const struct pass *p, const __u32 *starts, size_t nsub,
		const bool *used);

/*
 * Pass through every kept instruction (@fate, @cnt of @insns; @decision for the kept
 * conditional jumps, @is_start for subprograms' first instructions, which stay, @half
 * for 16-byte loads' second halves) whose only
 * effect is a register no later instruction reads: the loads of .rodata that fed branches
 * now decided, and what only they needed. Returns how many 8-byte slots went.
 */
size_t prune__dead_defs(const struct bpf_insn *insns, size_t cnt, __u8 *fate,
			const __u8 *decision, const bool *is_start, const bool *half);

#endif /* __RETSNOOP_PROG_PRUNE_INT_H */
