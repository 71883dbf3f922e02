// SPDX-License-Identifier: BSD-2-Clause
/* kprobe.multi session links; see kprobe_session.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kprobe_session.h"
#include "records.h"

/*
 * libbpf 1.4's bpf_link_create() fills link_create.kprobe_multi only for the
 * BPF_TRACE_KPROBE_MULTI attach type (1.5 added the session type): the syscall, made here.
 */
int kprobe_session__link(int prog_fd, const unsigned long *addrs, const char *const *syms,
			 const __u64 *cookies, size_t cnt)
{
	union bpf_attr attr;
	int fd;

	if (!cnt || cnt > (__u32)-1 || (!addrs && !syms))
		return -EINVAL;
	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = prog_fd;
	attr.link_create.attach_type = KPROBE_SESSION_ATTACH_TYPE;
	attr.link_create.kprobe_multi.cnt = cnt;
	if (addrs)
		attr.link_create.kprobe_multi.addrs = (__u64)(unsigned long)addrs;
	else
		attr.link_create.kprobe_multi.syms = (__u64)(unsigned long)syms;
	attr.link_create.kprobe_multi.cookies = (__u64)(unsigned long)cookies;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}

bool kprobe_session__probe(__u32 kfunc_id)
{
	/* r0 = bpf_session_is_return(ctx: r1 as the program got it); r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_KFUNC_CALL, .imm = kfunc_id },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, po,
		    .expected_attach_type = (enum bpf_attach_type)KPROBE_SESSION_ATTACH_TYPE);
	int fd;

	if (!kfunc_id)
		return false;
	/* kfuncs need a GPL-compatible program */
	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 3, &po);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}
