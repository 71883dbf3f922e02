/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What is known about a code address, in one shape for every view (stack, LBR, JSON,
 * capture/replay) and every address space: the kernel (vmlinux and modules) and any
 * process's user space (its executable and shared libraries). The sample model, the
 * symbols object (sym_resolver.h), the sidecar client and the sidecar itself all speak
 * in these structs.
 */
#ifndef RETSNOOP_CODE_LOC_H
#define RETSNOOP_CODE_LOC_H

#include <linux/types.h>

/*
 * One source location. For an address: the function itself first, then each inlined
 * callee outer to inner; every frame but the last is at the call site of the next one.
 */
struct src_frame {
	const char *func;	/* NULL or "??": unknown */
	const char *file;	/* kernel: relative to the source tree root; user: as DWARF says */
	int line;		/* 0: unknown */
	int col;		/* 0: unknown or none (assembly) */
};

/* Longest inline chain kept for one address. */
#define MAX_SRC_FRAMES 64

enum addr_space_kind {
	ADDR_SPACE_KERNEL,
	ADDR_SPACE_USER,
};

struct addr_space {
	enum addr_space_kind kind;
	__u32 pid;		/* ADDR_SPACE_USER: the process (tgid) */
};

static const struct addr_space ADDR_SPACE_KERNEL_INIT = { .kind = ADDR_SPACE_KERNEL };

/* The file (or kernel image) an address' code comes from. */
struct code_image {
	/*
	 * ADDR_SPACE_KERNEL: "vmlinux" or the module's name; ADDR_SPACE_USER: the mapped
	 * file's path as the process's maps name it. NULL: not known.
	 */
	const char *path;
	const char *build_id;	/* lowercase hex of the GNU build ID; NULL if not known */
	__u64 file_off;		/* ADDR_SPACE_USER: the address' offset in @path's file */
};

/* A code address with what is known about it. */
struct code_loc {
	struct addr_space as;
	__u64 addr;
	struct code_image image;
	const char *sym;	/* function symbol covering addr, NULL if none */
	__u64 sym_start;
	__u64 sym_size;		/* 0 if unknown */
	/*
	 * Source frames (struct src_frame's order). For a stack entry (a return address)
	 * they describe the call instruction before it.
	 */
	int src_cnt;
	const struct src_frame *src;
	/*
	 * Why there are no source frames where some were expected (no debug info, a debug
	 * file whose build ID does not match, the symbolizer gone): NULL if none is known.
	 */
	const char *src_note;
	/*
	 * User stack entries: the return address was found by following the frame pointer,
	 * the frame below having no unwind information: it is code, but maybe no caller.
	 */
	bool fp_guess;
};

#endif
