// SPDX-License-Identifier: BSD-2-Clause
/* Session programs: their kfunc call, set before load, and the feature probes; see session_prog.h. */
#include <errno.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "prog_patch.h"
#include "kprobe_session.h"
#include "records.h"
#include "session_prog.h"
#include "tracing_multi.h"

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

/* Load r0 = bpf_session_is_return(ctx); r0 = 0; exit: its fd, or negative */
static int probe_fd(enum bpf_prog_type type, int attach_type, __u32 attach_btf_id,
		    __u32 kfunc_id)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_KFUNC_CALL, .imm = kfunc_id },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, po,
		    .expected_attach_type = (enum bpf_attach_type)attach_type,
		    .attach_btf_id = attach_btf_id);
	int fd;

	if (!kfunc_id)
		return -ENOENT;
	/* kfuncs need a GPL-compatible program */
	fd = bpf_prog_load(type, NULL, "GPL", insns, 3, &po);
	return fd < 0 ? -errno : fd;
}

/* Does the probe program load? (closed at once) */
static bool probe_load(enum bpf_prog_type type, int attach_type, __u32 attach_btf_id,
		       __u32 kfunc_id)
{
	int fd = probe_fd(type, attach_type, attach_btf_id, kfunc_id);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

bool session_prog__kprobe_probe(__u32 kfunc_id)
{
	return probe_load(BPF_PROG_TYPE_KPROBE, KPROBE_SESSION_ATTACH_TYPE, 0, kfunc_id);
}

bool session_prog__fsession_probe(__u32 kfunc_id)
{
	return probe_load(BPF_PROG_TYPE_TRACING, FSESSION_ATTACH_TYPE, kfunc_id, kfunc_id);
}

bool session_prog__fsession_multi_probe(__u32 kfunc_id)
{
	int fd = probe_fd(BPF_PROG_TYPE_TRACING, FSESSION_MULTI_ATTACH_TYPE, 0, kfunc_id);
	int err;

	if (fd < 0)
		return false;
	/*
	 * No function: where the kernel builds these links it refuses the empty set
	 * (-EINVAL); where the architecture can't, it says so first (-EOPNOTSUPP).
	 */
	err = tracing_multi__link(fd, FSESSION_MULTI_ATTACH_TYPE, NULL, NULL, 0);
	if (err >= 0)
		close(err);
	close(fd);
	return err == -EINVAL;
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
