/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Instructions of a BPF program rewritten before load: a marker the BPF side leaves where
 * user space knows the value only at run time (a function id, a kfunc's BTF id), or ones
 * the kernel would refuse in code that never runs there.
 */
#ifndef __RETSNOOP_PROG_PATCH_H
#define __RETSNOOP_PROG_PATCH_H

#include <stdbool.h>
#include <linux/bpf.h>

struct bpf_program;

/*
 * The index of the one instruction of @prog that @match accepts: -ENOENT if none, -EINVAL
 * if more than one (then which to rewrite can't be told).
 */
int prog_patch__find_one(const struct bpf_program *prog,
			 bool (*match)(const struct bpf_insn *insn));

/* Replace instruction @idx of @prog with @insn (libbpf keeps a copy): 0 or libbpf's error. */
int prog_patch__set(struct bpf_program *prog, int idx, const struct bpf_insn *insn);

/*
 * Replace every instruction of @prog that @match accepts with @insn (one instruction, not
 * the second half of a 16-byte load): how many, or libbpf's error.
 */
int prog_patch__replace_all(struct bpf_program *prog,
			    bool (*match)(const struct bpf_insn *insn), const struct bpf_insn *insn);

#endif /* __RETSNOOP_PROG_PATCH_H */
