/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A BPF program without the code its frozen .rodata makes dead, before the kernel sees it.
 * The verifier walks only the branches a run's settings take, but the passes before its
 * walk read all of the program (7.x's stack liveness analysis, the most costly part of a
 * 7.2 load of ksession, joins ~80 slots per instruction and edge), and afterwards it
 * removes the dead code again one stretch at a time. Here a constant propagation over the
 * relocated instructions, with .rodata's bytes as the only source of constants, finds the
 * branches decided before the load; the code they never take is dropped, the decided
 * branches become jumps or nothing, subprograms no longer called go too, and the
 * program's function and line records follow the instructions that stay.
 */
#ifndef __RETSNOOP_PROG_PRUNE_H
#define __RETSNOOP_PROG_PRUNE_H

#include <stddef.h>
#include <linux/bpf.h>
#include <linux/types.h>

/* A program as BPF_PROG_LOAD takes it: instructions, and its BTF function and line records */
struct prog_text {
	const struct bpf_insn *insns;
	size_t insn_cnt;
	const void *func_info;		/* records of func_info_rec_size bytes, insn_off first */
	__u32 func_info_rec_size;
	__u32 func_info_cnt;
	const void *line_info;		/* the same for lines */
	__u32 line_info_rec_size;
	__u32 line_info_cnt;
};

struct prog_prune_opts {
	size_t sz;
	const void *rodata;		/* the .rodata map's value, frozen before the load */
	size_t rodata_sz;
	int rodata_fd;			/* the map's fd, as the relocated 16-byte loads name it */
};

struct prog_prune;

/*
 * The program @in without what @opts' .rodata makes dead (@in is not changed, nor kept).
 * NULL with errno: EINVAL (bad opts or program), EOPNOTSUPP (an instruction this pass
 * doesn't model: load @in as it is), ENOMEM.
 */
struct prog_prune *prog_prune__new(const struct prog_text *in, const struct prog_prune_opts *opts);
/* The pruned program, valid until prog_prune__free() */
const struct prog_text *prog_prune__text(const struct prog_prune *p);
/* Instructions (8-byte slots) removed; how many branches were decided */
size_t prog_prune__removed(const struct prog_prune *p);
size_t prog_prune__decided(const struct prog_prune *p);
/* Of the removed: slots whose only effect was a register nothing read (what fed branches) */
size_t prog_prune__dead_defs(const struct prog_prune *p);
/* Loads of .rodata (and arithmetic on them) that became moves of the number they read */
size_t prog_prune__folded(const struct prog_prune *p);
/* Where instruction @old of the input is in the output, -1 if removed or out of range */
long prog_prune__new_index(const struct prog_prune *p, size_t old);
void prog_prune__free(struct prog_prune *p);

#endif /* __RETSNOOP_PROG_PRUNE_H */
