/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The seam through which the sample builder learns about addresses: the symbol covering
 * an address and its source frames. Implemented by the symbolize stage (kallsyms + DWARF)
 * and by capture/replay. Every address belongs to an address space (code_loc.h).
 */
#ifndef RETSNOOP_SYM_RESOLVER_H
#define RETSNOOP_SYM_RESOLVER_H

#include <stdbool.h>
#include <linux/types.h>
#include "code_loc.h"

/* What a symbols source knows about an address besides its source lines. */
struct sym_hit {
	const char *name;	/* the function symbol covering the address; NULL if none */
	__u64 start;
	__u64 size;		/* 0 if unknown */
	struct code_image image;	/* .path NULL if not known */
};

/*
 * Any callback may be NULL. Strings in the answers stay valid only until the next call:
 * callers copy what they keep.
 */
/* code_loc.src_note of a location whose source lookup was cut short (-EINTR) */
#define SRC_NOTE_CUT "source lookup cut short"
/* code_loc.src_note of a user frame in anonymous executable memory */
#define SRC_NOTE_JIT "JIT-compiled code: no file"

struct sym_resolver {
	/*
	 * What covers @addr: true if a symbol or at least the image is known (hit->name
	 * tells which).
	 */
	bool (*sym)(void *ctx, const struct addr_space *as, __u64 addr, struct sym_hit *hit);
	/*
	 * Source frames of @addr (struct src_frame's order); returns the count, 0 if unknown,
	 * or -EINTR if the lookup was cut short (the frames may exist: the sample builder
	 * notes SRC_NOTE_CUT).
	 * With 0, *note may be set to why (see struct code_loc.src_note); @note may be NULL.
	 */
	int (*src)(void *ctx, const struct addr_space *as, __u64 addr, struct src_frame *frames,
		   int max, const char **note);
	/*
	 * The same for file offset @file_off of the user-space ELF file at @path, for
	 * locations known by image rather than address (traced user functions: uprobes
	 * don't report where the image is mapped).
	 */
	int (*image_src)(void *ctx, const char *path, __u64 file_off, struct src_frame *frames,
			 int max, const char **note);
	void *ctx;
};

#endif
