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
