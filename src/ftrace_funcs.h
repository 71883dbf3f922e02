/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tracefs available_filter_functions: the functions ftrace (and so kprobes and fentry) can
 * attach to, one "name" or "name [module]" per line.
 */
#ifndef RETSNOOP_FTRACE_FUNCS_H
#define RETSNOOP_FTRACE_FUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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
/*
 * Load @path, text or an image (ftrace_funcs__write_image()), told apart by its first
 * bytes: for the boot cache's copy. NULL with errno set (EINVAL: a damaged image).
 */
struct ftrace_funcs *ftrace_funcs__open(const char *path);
/*
 * The list as an image file that ftrace_funcs__open() maps instead of parsing. -EINVAL
 * for a list that came from an image (the file is copied as it is), -EIO on a write error.
 */
int ftrace_funcs__write_image(const struct ftrace_funcs *ff, FILE *f);
/*
 * 0 if @path starts with this build's image header and is as long as it says (text, a cut
 * or another layout's image: -EINVAL), without reading the rest.
 */
int ftrace_funcs__check_image(const char *path);
/* Parse file contents; @buf is copied. */
struct ftrace_funcs *ftrace_funcs__parse(const char *buf, size_t len);
void ftrace_funcs__free(struct ftrace_funcs *ff);

/*
 * Entries in file order; placeholders of unknown addresses are already dropped. The
 * strings live as long as @ff; the entry of a list from an image is made anew at each
 * call (valid until the next one on @ff).
 */
size_t ftrace_funcs__cnt(const struct ftrace_funcs *ff);
const struct ftrace_func *ftrace_funcs__get(const struct ftrace_funcs *ff, size_t idx);

#endif
