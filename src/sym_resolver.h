/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The seam through which the sample builder learns about addresses: the symbol covering
 * an address and its source frames. Implemented by the symbolize stage (kallsyms + DWARF)
 * and by capture/replay. Addresses belong to an address space, so user-space stacks can be
 * resolved through the same seam later.
 */
#ifndef RETSNOOP_SYM_RESOLVER_H
#define RETSNOOP_SYM_RESOLVER_H

#include <stdbool.h>
#include <linux/types.h>

enum addr_space_kind {
	ADDR_SPACE_KERNEL,
	ADDR_SPACE_USER,		/* not resolved yet: every lookup answers "unknown" */
};

struct addr_space {
	enum addr_space_kind kind;
	__u32 pid;			/* ADDR_SPACE_USER: the process */
};

static const struct addr_space ADDR_SPACE_KERNEL_INIT = { .kind = ADDR_SPACE_KERNEL };

/* The function symbol covering an address. */
struct sym_hit {
	const char *name;
	__u64 start;
	__u64 size;		/* 0 if unknown */
};

/* One source location; for an address, the function itself first, then inlined callees. */
struct src_frame {
	const char *func;
	const char *file;
	int line;
	int col;
};

#define MAX_SRC_FRAMES 64

/*
 * Any callback may be NULL. Strings in the answers stay valid only until the next call:
 * callers copy what they keep.
 */
struct sym_resolver {
	/* Function symbol containing @addr. */
	bool (*sym)(void *ctx, const struct addr_space *as, __u64 addr, struct sym_hit *hit);
	/*
	 * Source frames of @addr, outermost first; returns the count, 0 if unknown, or
	 * -EINTR if the lookup was cut short (the frames may exist: the caller says so).
	 */
	int (*src)(void *ctx, const struct addr_space *as, __u64 addr, struct src_frame *frames,
		   int max);
	void *ctx;
};

#endif
