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

/*
 * @opts may be NULL (defaults). NULL with errno set on failure: the file's open() errno,
 * ENOEXEC not an ELF file, ENOMEM, EINVAL invalid opts.
 */
struct symbolizer *symbolizer__open(const char *path, const struct symbolizer_opts *opts);
/* The same on an open file, which the symbolizer owns from then on (closed even on failure). */
struct symbolizer *symbolizer__open_fd(int fd, const struct symbolizer_opts *opts);
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

/* elf_ids.c: what identifies the file and ties it to a separate debug file. */
/* The GNU build ID; 0 with *len 0 if there is none, -EBADMSG if it is malformed. */
int symbolizer__build_id(struct symbolizer *s, const uint8_t **id, size_t *len);
/* .gnu_debuglink: the debug file's base name and CRC32; -ENOENT if none, -EBADMSG. */
int symbolizer__debuglink(struct symbolizer *s, const char **name, uint32_t *crc);
/* CRC32 (zlib's, as .gnu_debuglink uses) of the whole file. */
int symbolizer__file_crc(struct symbolizer *s, uint32_t *crc);
/* The link-time address file offset @off is loaded at (PT_LOAD); -ERANGE if none. */
int symbolizer__file_addr(struct symbolizer *s, uint64_t off, uint64_t *addr);
bool symbolizer__has_dwarf(const struct symbolizer *s);
/*
 * The ELF function symbol covering code address @addr (.symtab, else .dynsym), with its
 * value and size (0: unknown); NULL if none.
 */
const char *symbolizer__sym(struct symbolizer *s, uint64_t addr, uint64_t *start,
			    uint64_t *size);
/* True if the symbols come from a full .symtab, not only the exported .dynsym. */
bool symbolizer__has_symtab(struct symbolizer *s);
int symbolizer__is_kernel(const struct symbolizer *s);
size_t symbolizer__cu_count(struct symbolizer *s);

#endif /* __SIDECAR_SYMBOLIZER_H */
