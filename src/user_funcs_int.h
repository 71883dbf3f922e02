/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside user-space function discovery (user_funcs.c: globs, images, the function table;
 * user_funcs_types.c: their types from DWARF): the object and what its files share.
 */
#ifndef RETSNOOP_USER_FUNCS_INT_H
#define RETSNOOP_USER_FUNCS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <bpf/btf.h>
#include "debug_file.h"
#include "elf_funcs.h"
#include "log.h"
#include "user_funcs.h"

struct user_glob {
	struct glob_spec spec;
	enum func_glob_role role;
};

struct user_image {
	char *path;
	struct elf_funcs *elf;
	struct btf *btf;	/* -A: its functions' prototypes from DWARF, NULL without */
	char *dbg_path;		/* stripped: the debug file its functions came from */
	struct debug_file_cache dbg;	/* its debug file, looked for once (.symtab, DWARF) */
	/*
	 * Each name's source-level form where it is mangled (C++, Rust), else NULL; by
	 * elf_funcs__name() index, made at the first glob over the image.
	 */
	char **demangled;
	int code_fd;		/* the image, open for its functions' first bytes; -1: not */
	/* offsets of the functions never probed, said once (aliases, several globs) */
	__u64 *skip_offs;
	size_t skip_cnt;
};

struct user_funcs {
	struct user_funcs_opts o;
	struct user_glob *globs;
	size_t glob_cnt;
	struct user_image *images;
	size_t image_cnt;
	struct func *funcs;
	__u64 *addrs;		/* each function's st_value, for DWARF's low_pc */
	size_t func_cnt, func_cap;
	/* the functions' demangled names (struct func's name), owned here */
	char **names;
	size_t name_cnt;
	bool script_said;	/* the note that -- CMD is a script, said */
	size_t idle_allow_cnt;	/* -a globs that matched nothing (said at -v, counted once) */
};

#define pr(uf, level, ...) log_msg((uf)->o.print, level, __VA_ARGS__)

/* Return types (and with -A prototypes) from each image's DWARF; without DWARF the guess stays. */
int uf__apply_types(struct user_funcs *uf);

#endif
