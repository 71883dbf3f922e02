// SPDX-License-Identifier: BSD-2-Clause
/* Session programs' kfunc call, set before load; see session_prog.h. */
#include <errno.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>
#include "prog_patch.h"
#include "records.h"
#include "session_prog.h"

static bool is_mark_call(const struct bpf_insn *in, __s32 mark)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == 0 && in->imm == mark;
}

static bool is_ret_mark(const struct bpf_insn *in)
{
	return is_mark_call(in, SESSION_RET_MARK);
}

static bool is_cookie_mark(const struct bpf_insn *in)
{
	return is_mark_call(in, SESSION_COOKIE_MARK);
}

/* The call at @idx becomes one of the vmlinux kfunc of BTF id @kfunc_id. */
static int to_kfunc(struct bpf_program *prog, int idx, __u32 kfunc_id)
{
	struct bpf_insn call = bpf_program__insns(prog)[idx];

	/* a kfunc of vmlinux: its BTF id, no module BTF (off 0) */
	call.src_reg = BPF_PSEUDO_KFUNC_CALL;
	call.off = 0;
	call.imm = kfunc_id;
	return prog_patch__set(prog, idx, &call);
}

int session_prog__prepare(struct bpf_program *prog, __u32 kfunc_id, __u32 cookie_kfunc_id,
			  int attach_type)
{
	int idx, err;

	if (!kfunc_id)
		return -ENOENT;
	idx = prog_patch__find_one(prog, is_ret_mark);
	if (idx < 0)
		return idx;
	err = to_kfunc(prog, idx, kfunc_id);
	if (err)
		return err;
	idx = prog_patch__find_one(prog, is_cookie_mark);
	if (idx >= 0)
		err = cookie_kfunc_id ? to_kfunc(prog, idx, cookie_kfunc_id) : -ENOENT;
	else if (idx != -ENOENT)
		err = idx;
	if (err)
		return err;
	return bpf_program__set_expected_attach_type(prog, (enum bpf_attach_type)attach_type);
}
