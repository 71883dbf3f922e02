/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * From the command line's kernel globs to discovered kernel functions: the DWARF image
 * first (":PATH" globs need it), then function discovery. The CLI layer's step between
 * parsing and attaching (retsnoop.c).
 */
#ifndef RETSNOOP_KERNEL_FUNCS_H
#define RETSNOOP_KERNEL_FUNCS_H

#include <stddef.h>
#include "env.h"
#include "func_discovery.h"
#include "log.h"

struct btf;
struct prefetch;
struct progress;
struct vmlinux_dwarf;

struct kernel_funcs_opts {
	size_t sz;
	const struct env *env;		/* the globs, -k/-s, -v, --json, the attach mode */
	log_print_fn print;		/* every failure is said here */
	struct prefetch *pre;		/* kallsyms and ftrace's list read ahead; NULL: read now */
	struct btf *vmlinux_btf;	/* borrowed */
	/* kallsyms' name index kept after discovery (the boot cache's save copies it) */
	bool keep_name_index;
};

/*
 * Open the DWARF image (*@vd, NULL where none is usable and none is required) and run
 * discovery with @dopts (*@d); *@progress is the status line discovery showed (NULL: none;
 * the caller frees it). 0, or a negative errno, said why through opts->print (-EINTR on a
 * stop, said by the caller).
 */
int kernel_funcs__find(const struct kernel_funcs_opts *opts, struct func_discovery_opts *dopts,
		       struct vmlinux_dwarf **vd, struct func_discovery **d,
		       struct progress **progress);

#endif
