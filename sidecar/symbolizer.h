/* SPDX-License-Identifier: BSD-2-Clause */
/* DWARF symbolizer engine of the retsnoop sidecar: address -> inline chain, source glob -> functions. */
#ifndef __SIDECAR_SYMBOLIZER_H
#define __SIDECAR_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* struct src_frame: retsnoop's one source-frame shape (func and file never NULL here) */
#include "../src/code_loc.h"

#define SYMB_MAX_FRAMES MAX_SRC_FRAMES

struct symbolizer;

struct symbolizer_opts {
	size_t sz;		/* sizeof(struct symbolizer_opts) */
	/*
	 * Tests and diagnosis: index DIEs with libdw's walker instead of the own scanner, read
	 * line tables with libdw instead of the own decoder. Answers must not change.
	 */
	bool libdw_dies;
	bool libdw_lines;
};

/* @opts may be NULL (defaults). */
int symbolizer__open(const char *path, const struct symbolizer_opts *opts, struct symbolizer **out);
void symbolizer__close(struct symbolizer *s);

/*
 * Fill frames[] outermost first; the last frame is where addr itself is.
 * Returns the frame count (0 if nothing at all is known), -ERANGE if addr is
 * outside every executable section, other negative errno on failure.
 */
int symbolizer__symbolize(struct symbolizer *s, uint64_t addr, struct src_frame *frames, int max);

typedef int (*symb_func_cb)(void *ctx, const char *func, uint64_t addr, const char *cu_path);

/* Call cb for every function defined in a compile unit whose normalized name matches glob. */
int symbolizer__for_each_func_in(struct symbolizer *s, const char *glob, symb_func_cb cb, void *ctx);

struct symb_stats {
	uint64_t cus_indexed;
	uint64_t index_ns;	/* walking CU DIE trees into range tables */
	uint64_t lines_ns;	/* line-table lookups, including a cold CU's decode */
};

const struct symb_stats *symbolizer__stats(const struct symbolizer *s);
int symbolizer__is_kernel(const struct symbolizer *s);
size_t symbolizer__cu_count(struct symbolizer *s);

#endif /* __SIDECAR_SYMBOLIZER_H */
