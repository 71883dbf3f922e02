/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What DWARF says about a user-space image's functions: each function's return type (as
 * FUNC_* result flags, the same rule the kernel's BTF gives) and the source file it is
 * defined in (for ":SRC [IMAGE]" globs). The DWARF comes from the image itself, else from
 * its separate debug file (debug_file.h: by build ID or .gnu_debuglink, checked to belong
 * to the image).
 */
#ifndef RETSNOOP_USER_DWARF_H
#define RETSNOOP_USER_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "elf_funcs.h"

struct debug_file_cache;

struct user_dwarf_func {
	const char *name;
	__u64 addr;		/* DW_AT_low_pc: the ELF symbol's address */
	const char *file;	/* DW_AT_decl_file, as the compiler recorded it */
	__u32 ret_flags;	/* FUNC_RET_PTR, FUNC_NEEDS_SIGN_EXT, FUNC_CANT_FAIL, ... */
	void *priv;		/* the walk's, for user_dwarf__func_btf() */
};

struct btf;

/*
 * During a user_dwarf__for_each_func() callback: add @f's prototype (its parameters'
 * types, for -A) to @btf as a FUNC named @name (user_dwarf_btf.h); the FUNC's id or
 * -errno. Types met again in the same walk and @btf are added once.
 */
int user_dwarf__func_btf(const struct user_dwarf_func *f, struct btf *btf, const char *name);
/* During a callback: @f's named parameters (varargs not counted). */
int user_dwarf__func_param_cnt(const struct user_dwarf_func *f);

/*
 * Call @cb for every function with code that the DWARF of image @path (read before as
 * @e) describes; strings are valid during the call. Returns 0, -ENODATA when no DWARF
 * was found (the caller goes on without types), the first non-zero @cb result, or a
 * negative errno. @dwarf_path (may be NULL) gets the file the DWARF came from. Without
 * DWARF of its own, the image's debug file is the one @dbg found or finds (NULL: looked
 * for here, uncached).
 */
int user_dwarf__for_each_func(const char *path, const struct elf_funcs *e,
			      struct debug_file_cache *dbg, int (*cb)(const struct user_dwarf_func *f, void *ctx), void *ctx,
			      char *dwarf_path, size_t dwarf_path_sz);

#endif
