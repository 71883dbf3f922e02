/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uprobe.multi-shaped links made with the bpf() syscall directly: one link over many
 * offsets of one image, a cookie each. libbpf 1.4.6 fills these fields only for
 * BPF_TRACE_UPROBE_MULTI; for a uprobe session link (Linux 6.13+, one program run at entry
 * and at return) its bpf_link_create() passes none of them, so the kernel would get an
 * empty link. This makes both kinds the same way.
 */
#ifndef RETSNOOP_UPROBE_LINK_H
#define RETSNOOP_UPROBE_LINK_H

#include <stddef.h>
#include <linux/types.h>

struct bpf_program;

/* enum bpf_attach_type's value in Linux 6.13+ (newer than our uapi headers) */
#define UPROBE_SESSION_ATTACH_TYPE	57
/* the program's return value at entry that tells the kernel not to run it at return */
#define UPROBE_SESSION_SKIP_RETURN	1

struct uprobe_link_spec {
	const char *path;		/* the image (binary or library) */
	const unsigned long *offsets;	/* file offsets of its functions */
	const __u64 *cookies;		/* one each */
	size_t cnt;
	__u32 flags;			/* BPF_F_UPROBE_MULTI_RETURN, or 0 */
	int pid;			/* only this process's breakpoints; 0: every process */
};

/*
 * Link @prog_fd (loaded with @attach_type as its expected attach type) over @spec's
 * functions. @attach_type: BPF_TRACE_UPROBE_MULTI or UPROBE_SESSION_ATTACH_TYPE.
 * Returns the link's fd, or a negative errno.
 */
int uprobe_link__create(int prog_fd, int attach_type, const struct uprobe_link_spec *spec);

#endif
