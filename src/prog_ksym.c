// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include "prog_ksym.h"

int prog_ksym__get(int prog_fd, const char *func, struct prog_ksym *k)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info), flen = 0;
	__u64 addr = 0;
	char tag[2 * BPF_TAG_SIZE + 1];
	int err, i;

	memset(&info, 0, sizeof(info));
	/* the first entries only: the main function comes first, subprograms after it */
	info.nr_jited_ksyms = 1;
	info.jited_ksyms = (__u64)(unsigned long)&addr;
	info.nr_jited_func_lens = 1;
	info.jited_func_lens = (__u64)(unsigned long)&flen;
	err = bpf_prog_get_info_by_fd(prog_fd, &info, &len);
	if (err)
		return err;
	if (!info.nr_jited_ksyms || !info.nr_jited_func_lens || !addr || !flen)
		return -ENODATA;
	for (i = 0; i < BPF_TAG_SIZE; i++)
		snprintf(tag + 2 * i, 3, "%02x", info.tag[i]);
	k->addr = addr;
	k->size = flen;
	snprintf(k->name, sizeof(k->name), "bpf_prog_%s_%s", tag, func);
	return 0;
}
