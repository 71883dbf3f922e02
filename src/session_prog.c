// SPDX-License-Identifier: BSD-2-Clause
/* Session programs' kfunc call, set before load; see session_prog.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>
#include "records.h"
#include "session_prog.h"

static bool is_mark_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == 0 &&
	       in->imm == SESSION_RET_MARK;
}

int session_prog__prepare(struct bpf_program *prog, __u32 kfunc_id, int attach_type)
{
	const struct bpf_insn *insns = bpf_program__insns(prog);
	size_t cnt = bpf_program__insn_cnt(prog), i;
	struct bpf_insn *copy;
	long idx = -ENOENT;
	int err;

	if (!kfunc_id)
		return -ENOENT;
	for (i = 0; i < cnt; i++) {
		if (!is_mark_call(&insns[i]))
			continue;
		if (idx >= 0)
			return -EINVAL;
		idx = i;
	}
	if (idx < 0)
		return idx;
	copy = malloc(cnt * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, insns, cnt * sizeof(*copy));
	/* a kfunc of vmlinux: its BTF id, no module BTF (off 0) */
	copy[idx].src_reg = BPF_PSEUDO_KFUNC_CALL;
	copy[idx].off = 0;
	copy[idx].imm = kfunc_id;
	err = bpf_program__set_insns(prog, copy, cnt);	/* libbpf copies them */
	free(copy);
	if (err)
		return err;
	return bpf_program__set_expected_attach_type(prog, (enum bpf_attach_type)attach_type);
}
