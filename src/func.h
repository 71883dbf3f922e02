/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * struct func: one traced function, as discovery finds it: kernel functions first, then
 * user-space ones (uprobes). The same table (indexed
 * by function id, the order of discovery) is read by the attacher, the BPF set-up, the
 * sample builder and every sink; nothing copies it into a shape of its own.
 */
#ifndef RETSNOOP_FUNC_H
#define RETSNOOP_FUNC_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct btf;

struct func {
	const char *name;
	const char *module;		/* NULL for vmlinux */
	__u64 addr;			/* kernel address of the function's start */
	__u64 size;			/* to the next kallsyms function, 0 if unknown */
	const struct btf *btf;		/* vmlinux or module BTF, NULL without */
	int btf_id;			/* BTF FUNC id in @btf, 0 without BTF */
	int arg_cnt;			/* from BTF (user space: DWARF), 0 without */
	__u32 flags;			/* enum func_flags (records.h), FUNC_IS_ENTRY included */
	/*
	 * -F only: fentry/fexit can't attach here (see fentry_why), so a kprobe pair traces
	 * it in the same run.
	 */
	bool kprobe_fallback;
	const char *fentry_why;
	/*
	 * User-space functions (FUNC_USER in flags): the binary or library (its real path)
	 * and the file offset of the function's first instruction, where its uprobe goes.
	 * NULL and 0 for kernel functions; addr is 0 for user functions.
	 */
	const char *image;
	__u64 image_off;
};

/* The function with id @id of a table of @cnt, or a stand-in named "<unknown>". */
static inline const struct func *func__get(const struct func *funcs, size_t cnt, __u32 id)
{
	static const struct func unknown = { .name = "<unknown>" };

	return id < cnt ? &funcs[id] : &unknown;
}

#endif
