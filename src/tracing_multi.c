// SPDX-License-Identifier: BSD-2-Clause
/* Tracing multi-links; see tracing_multi.h. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include "tracing_multi.h"

/*
 * link_create.tracing_multi of the 7.x UAPI: { __u64 ids; __u64 cookies; __u32 cnt; },
 * where the other link kinds' attributes are (libbpf 1.4's union has no name for it).
 */
struct tracing_multi_attr {
	__u64 ids;
	__u64 cookies;
	__u32 cnt;
};

int tracing_multi__link(int prog_fd, int attach_type, const __u32 *ids, const __u64 *cookies,
			size_t cnt)
{
	struct tracing_multi_attr tm = {
		.ids = (__u64)(unsigned long)ids,
		.cookies = (__u64)(unsigned long)cookies,
		.cnt = cnt,
	};
	union bpf_attr attr;
	int fd;

	if (cnt > (__u32)-1 || (cnt && !ids))
		return -EINVAL;
	_Static_assert(sizeof(tm) <= sizeof(attr.link_create.kprobe_multi),
		       "tracing_multi fits where kprobe_multi is");
	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = prog_fd;
	attr.link_create.attach_type = attach_type;
	memcpy(&attr.link_create.kprobe_multi, &tm, sizeof(tm));
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}
