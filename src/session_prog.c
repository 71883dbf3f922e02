// SPDX-License-Identifier: BSD-2-Clause
/* Session programs' kfunc call, set before load; see session_prog.h. */
#include <errno.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>
#include "prog_patch.h"
#include "records.h"
#include "session_prog.h"

static bool is_mark_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == 0 &&
	       in->imm == SESSION_RET_MARK;
}

int session_prog__prepare(struct bpf_program *prog, __u32 kfunc_id, int attach_type)
{
	struct bpf_insn call;
	int idx, err;

	if (!kfunc_id)
		return -ENOENT;
	idx = prog_patch__find_one(prog, is_mark_call);
	if (idx < 0)
		return idx;
	call = bpf_program__insns(prog)[idx];
	/* a kfunc of vmlinux: its BTF id, no module BTF (off 0) */
	call.src_reg = BPF_PSEUDO_KFUNC_CALL;
	call.off = 0;
	call.imm = kfunc_id;
	err = prog_patch__set(prog, idx, &call);
	if (err)
		return err;
	return bpf_program__set_expected_attach_type(prog, (enum bpf_attach_type)attach_type);
}
