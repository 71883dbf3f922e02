// SPDX-License-Identifier: BSD-2-Clause
/* uprobe.multi-shaped links by the bpf() syscall; see uprobe_link.h. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>
#include "records.h"
#include "uprobe_link.h"

int uprobe_link__create(int prog_fd, int attach_type, const struct uprobe_link_spec *spec)
{
	union bpf_attr attr;
	long fd;

	/* the whole union zeroed: the kernel refuses a non-zero byte it does not know */
	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = prog_fd;
	attr.link_create.attach_type = attach_type;
	attr.link_create.uprobe_multi.path = (unsigned long)spec->path;
	attr.link_create.uprobe_multi.offsets = (unsigned long)spec->offsets;
	attr.link_create.uprobe_multi.cookies = (unsigned long)spec->cookies;
	attr.link_create.uprobe_multi.cnt = spec->cnt;
	attr.link_create.uprobe_multi.flags = spec->flags;
	attr.link_create.uprobe_multi.pid = spec->pid;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : (int)fd;
}

int uprobe_link__prepare_session(struct bpf_program *prog, __u32 kfunc_id)
{
	const struct bpf_insn *insns = bpf_program__insns(prog);
	size_t cnt = bpf_program__insn_cnt(prog), i;
	struct bpf_insn *copy;
	long idx = -ENOENT;
	int err;

	if (!kfunc_id)
		return -ENOENT;
	for (i = 0; i < cnt; i++) {
		if (insns[i].code != (BPF_JMP | BPF_CALL) || insns[i].src_reg != 0 ||
		    insns[i].imm != SESSION_RET_MARK)
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
	/* the kernel links only programs loaded with this attach type into session links */
	return bpf_program__set_expected_attach_type(prog,
			(enum bpf_attach_type)UPROBE_SESSION_ATTACH_TYPE);
}
