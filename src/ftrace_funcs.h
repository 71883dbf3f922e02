/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tracefs available_filter_functions: the functions ftrace (and so kprobes and fentry) can
 * attach to, one "name" or "name [module]" per line.
 */
#ifndef RETSNOOP_FTRACE_FUNCS_H
#define RETSNOOP_FTRACE_FUNCS_H

#include <stdbool.h>
#include <stddef.h>

struct ftrace_func {
	const char *name;
	const char *module;	/* NULL for vmlinux */
};

struct ftrace_funcs;

/*
 * Find the readable available_filter_functions: /sys/kernel/debug/tracing, then
 * /sys/kernel/tracing; if neither has it, mount tracefs at /sys/kernel/tracing in a mount
 * namespace of this process's own (invisible outside it; *mounted says so: unmount with
 * ftrace_funcs__unmount() after reading). 0 with @path filled, or the negative errno of
 * the most telling failure.
 */
int ftrace_funcs__find_path(char *path, size_t path_sz, bool *mounted);
int ftrace_funcs__unmount(void);

/* Load @path (NULL: ftrace_funcs__find_path()). NULL with errno set on failure. */
struct ftrace_funcs *ftrace_funcs__load(const char *path);
/* Parse file contents; @buf is copied. */
struct ftrace_funcs *ftrace_funcs__parse(const char *buf, size_t len);
void ftrace_funcs__free(struct ftrace_funcs *ff);

/* Entries in file order; placeholders of unknown addresses are already dropped. */
size_t ftrace_funcs__cnt(const struct ftrace_funcs *ff);
const struct ftrace_func *ftrace_funcs__get(const struct ftrace_funcs *ff, size_t idx);

#endif
