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
