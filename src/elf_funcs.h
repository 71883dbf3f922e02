/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The functions of one user-space ELF image (an executable, PIE or not, or a shared
 * library), as uprobes need them: each function's file offset. Read with libelf from
 * .symtab, or from .dynsym where the image is stripped; every alias of one address is
 * kept as a name of one function, so a function is traced once whatever name matched.
 *
 * The image is untrusted input (any user's binary, read while retsnoop runs as root):
 * every offset and index is checked against the file; a malformed image is -EBADF or
 * yields the functions that could be read, never a crash.
 */
#ifndef RETSNOOP_ELF_FUNCS_H
#define RETSNOOP_ELF_FUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "log.h"

struct elf_func {
	const char *name;	/* the preferred alias: global over weak over local */
	__u64 addr;		/* st_value: address in the image's own layout */
	__u64 offset;		/* file offset of the first instruction: the uprobe's */
	__u64 size;		/* st_size, 0 if unknown */
};

/* One name a function is known by (aliases are several of these). */
struct elf_func_name {
	const char *name;
	__u32 func;		/* index of its function, see elf_funcs__func() */
};

struct elf_funcs_opts {
	size_t sz;
	log_print_fn print;	/* NULL: silent */
};

struct elf_funcs;

/* NULL with errno: ENOENT/EACCES/..., EBADF not an ELF image or unreadable headers. */
struct elf_funcs *elf_funcs__open(const char *path, const struct elf_funcs_opts *opts);
/* The same from a copy of an image in memory (fuzzing, tests); @buf is borrowed. */
struct elf_funcs *elf_funcs__open_mem(const void *buf, size_t sz,
				      const struct elf_funcs_opts *opts);
void elf_funcs__free(struct elf_funcs *e);

/* Functions, sorted by file offset, one per address. */
size_t elf_funcs__func_cnt(const struct elf_funcs *e);
const struct elf_func *elf_funcs__func(const struct elf_funcs *e, size_t idx);
/* Every name (aliases included), sorted by name. */
size_t elf_funcs__name_cnt(const struct elf_funcs *e);
const struct elf_func_name *elf_funcs__name(const struct elf_funcs *e, size_t idx);
/* The function starting at address @addr (st_value), or NULL. */
const struct elf_func *elf_funcs__find_addr(const struct elf_funcs *e, __u64 addr);
/* The function with this exact name, or NULL. */
const struct elf_func *elf_funcs__find(const struct elf_funcs *e, const char *name);

/* Where the functions came from. */
enum elf_funcs_source {
	ELF_FUNCS_NONE,		/* no table with a function in it */
	ELF_FUNCS_SYMTAB,	/* the image's .symtab */
	ELF_FUNCS_DYNSYM,	/* stripped: .dynsym, only what it exports */
	ELF_FUNCS_DEBUG_SYMTAB,	/* stripped: its separate debug file's .symtab */
};

enum elf_funcs_source elf_funcs__source(const struct elf_funcs *e);
/* The image has a .symtab of its own (even one without functions): it is not stripped. */
bool elf_funcs__has_symtab(const struct elf_funcs *e);
/*
 * A stripped image: take its functions from the .symtab of @debug_path, its separate debug
 * file (debug_file.h finds it and checks that it belongs to the image), which a distribution's
 * debug package or `objcopy --only-keep-debug` keeps the whole table in. File offsets still
 * come from the image's own segments. 0; -EEXIST if the image has its own .symtab;
 * -ENODATA if the file has no function symbols (the image's table is kept then); -errno.
 */
int elf_funcs__use_debug_symtab(struct elf_funcs *e, const char *debug_path);
/* ET_DYN: a PIE executable or a shared library (loaded at a random base). */
bool elf_funcs__is_dyn(const struct elf_funcs *e);
/*
 * A Go binary (it has Go's build info or build ID): return probes corrupt its stacks,
 * since Go moves goroutine stacks and checks return addresses.
 */
bool elf_funcs__is_go(const struct elf_funcs *e);
/*
 * The ELF header's entry point (e_entry) in the image's own addresses, 0 if none: where
 * exec() jumps (_start), with argc on the stack where a called function's return address
 * would be.
 */
__u64 elf_funcs__entry_addr(const struct elf_funcs *e);
/*
 * Its code catches C++ exceptions or cleans up after them (.gcc_except_table, and C++'s
 * personality routine named in its symbols when it has any): an exception unwinding
 * through a function with a return probe aborts the program, since the unwinder finds the
 * kernel's trampoline where the return address was. A C program's exception tables
 * (static glibc's, for thread cancellation) don't count.
 */
bool elf_funcs__has_eh_table(const struct elf_funcs *e);
/* The build ID from .note.gnu.build-id as hex (NULL without one). */
const char *elf_funcs__build_id(const struct elf_funcs *e);
/* The .gnu_debuglink file name and its CRC (NULL without one). */
const char *elf_funcs__debuglink(const struct elf_funcs *e, __u32 *crc);

#endif
