// SPDX-License-Identifier: BSD-2-Clause
/* Rewriting one instruction of a BPF program before load; see prog_patch.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "prog_patch.h"

int prog_patch__find_one(const struct bpf_program *prog,
			 bool (*match)(const struct bpf_insn *insn))
{
	const struct bpf_insn *insns = bpf_program__insns(prog);
	size_t cnt = bpf_program__insn_cnt(prog), i;
	int idx = -ENOENT;

	for (i = 0; i < cnt; i++) {
		if (!match(&insns[i]))
			continue;
		if (idx >= 0)
			return -EINVAL;
		idx = i;
	}
	return idx;
}

int prog_patch__set(struct bpf_program *prog, int idx, const struct bpf_insn *insn)
{
	size_t cnt = bpf_program__insn_cnt(prog);
	struct bpf_insn *copy;
	int err;

	if (idx < 0 || (size_t)idx >= cnt)
		return -EINVAL;
	copy = malloc(cnt * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, bpf_program__insns(prog), cnt * sizeof(*copy));
	copy[idx] = *insn;
	err = bpf_program__set_insns(prog, copy, cnt);	/* libbpf copies them */
	free(copy);
	return err;
}
