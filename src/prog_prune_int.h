/* SPDX-License-Identifier: BSD-2-Clause */
/* The parts of prog_prune.c's pass shared by its files (prog_prune_live.c). */
#ifndef __RETSNOOP_PROG_PRUNE_INT_H
#define __RETSNOOP_PROG_PRUNE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/types.h>

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
 * Pass through every kept instruction (@fate, @cnt of @insns; @decision for the kept
 * conditional jumps, @is_start for subprograms' first instructions, which stay) whose only
 * effect is a register no later instruction reads: the loads of .rodata that fed branches
 * now decided, and what only they needed. Returns how many 8-byte slots went.
 */
size_t prune__dead_defs(const struct bpf_insn *insns, size_t cnt, __u8 *fate,
			const __u8 *decision, const bool *is_start);

#endif /* __RETSNOOP_PROG_PRUNE_INT_H */
