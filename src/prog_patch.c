// SPDX-License-Identifier: BSD-2-Clause
/* Rewriting instructions of a BPF program before load; see prog_patch.h. */
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

int prog_patch__replace_all(struct bpf_program *prog,
			    bool (*match)(const struct bpf_insn *insn), const struct bpf_insn *insn)
{
	const struct bpf_insn *insns = bpf_program__insns(prog);
	size_t cnt = bpf_program__insn_cnt(prog), i;
	struct bpf_insn *copy = NULL;
	int n = 0, err;

	for (i = 0; i < cnt; i++) {
		/* the second half of a 16-byte load is data, whatever it looks like */
		if (insns[i].code == (BPF_LD | BPF_IMM | BPF_DW)) {
			i++;
			continue;
		}
		if (!match(&insns[i]))
			continue;
		if (!copy) {
			copy = malloc(cnt * sizeof(*copy));
			if (!copy)
				return -ENOMEM;
			memcpy(copy, insns, cnt * sizeof(*copy));
		}
		copy[i] = *insn;
		n++;
	}
	if (!copy)
		return 0;
	err = bpf_program__set_insns(prog, copy, cnt);	/* libbpf copies them */
	free(copy);
	return err ?: n;
}
