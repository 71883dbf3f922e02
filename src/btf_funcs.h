/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What function discovery takes from the vmlinux BTF, kept for the boot's later runs: each
 * BTF FUNC's name, id, parameter count and result flags (func_types__flags()), in id order
 * (as discovery's BTF walk takes them).
 *
 * A run that traces kernel functions without -A or -F needs nothing else from the kernel's
 * 5 MB of BTF, which libbpf copies and indexes in full: a warm run's longest read, on the
 * critical path to its first stack, and most of its peak RSS. One run of the boot writes
 * this digest (the boot cache, boot_cache.h); the next ones map it instead.
 *
 * The flags come from this build's rules: a digest names the executable that wrote it
 * (device, inode, size and change time of /proc/self/exe) and another build's is refused.
 */
#ifndef RETSNOOP_BTF_FUNCS_H
#define RETSNOOP_BTF_FUNCS_H

#include <stddef.h>
#include <linux/types.h>

struct btf;

struct btf_funcs_opts {
	size_t sz;		/* sizeof(struct btf_funcs_opts) */
	const char *exe;	/* the build the flags come from; NULL: /proc/self/exe */
};

struct btf_func_facts {
	const char *name;
	__u32 btf_id;
	__u32 flags;		/* func_types__flags() */
	int arg_cnt;		/* func_types__arg_cnt(), 0 where that failed */
};

struct btf_funcs;

/*
 * The digest of @btf's FUNCs (vmlinux' alone: ids from 1 to its type count), as bytes to
 * keep: *@data (malloc()ed) and *@len. 0 or negative errno.
 */
int btf_funcs__build(const struct btf *btf, const struct btf_funcs_opts *opts, void **data,
		     size_t *len);

/*
 * The digest in file @path, mapped. NULL with errno set: ESTALE (another build wrote it),
 * EINVAL (not a digest, or damaged), or the file's own error.
 */
struct btf_funcs *btf_funcs__open(const char *path, const struct btf_funcs_opts *opts);

size_t btf_funcs__cnt(const struct btf_funcs *f);

/* Entry @i (< btf_funcs__cnt()), in BTF id order; the name lives as long as @f. */
void btf_funcs__get(const struct btf_funcs *f, size_t i, struct btf_func_facts *out);

void btf_funcs__free(struct btf_funcs *f);

#endif
