/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The boot cache's lists kept per kernel build, across its boots: a boot's first run
 * restores this boot's copies (boot_cache.h) from them instead of reading the kernel's
 * files, which the kernel formats a line at a time (869 ms of instructions for kallsyms and
 * available_filter_functions in a 6.12 guest, most of such a run's start).
 *
 * A build's copies are named after its build ID (sys/kernel/notes) in a root-only
 * directory (/var/cache/retsnoop). What they hold is the same for every boot of that build
 * but for one thing: KASLR moves the kernel's text by another offset each boot, so the
 * kallsyms image is kept with addresses relative to _stext, whose address each boot reads
 * from the first lines of /proc/kallsyms (a few hundred lines where the whole file is
 * 150,000). Loaded modules are part of the key (their names, sizes and build IDs, not
 * where they are): a module's symbols are kept relative to where its code starts
 * (/proc/modules), and each is checked on restore against where sysfs says its .text
 * section is now, so a module whose layout differs is never trusted.
 *
 * Library-like: never prints; errors are negative errno values.
 */
#ifndef RETSNOOP_BUILD_CACHE_H
#define RETSNOOP_BUILD_CACHE_H

#include <stddef.h>
#include <linux/types.h>
#include "boot_cache.h"

/* A loaded module, as /proc/modules has it */
struct build_module {
	const char *name;
	__u64 base;		/* where its code starts, this boot */
};

struct build_cache_opts {
	size_t sz;		/* sizeof(struct build_cache_opts) */
	const char *dir;	/* NULL: /var/cache/retsnoop */
	const char *root;	/* NULL: "": where proc/ and sys/ are */
	/* kernels (each with one set of modules) whose copies are kept; 0: the default */
	unsigned int max_builds;
	/* the loaded modules, and a hash of their names, sizes and build IDs (0 without) */
	const struct build_module *modules;
	size_t module_cnt;
	__u64 modset;
};

/* A developer switching between a few kernels keeps each one's copies (~6 MB each). */
#define BUILD_CACHE_DEFAULT_BUILDS 4

struct build_cache;

/*
 * This build's copies. NULL with errno set: ENOENT (no build ID in sys/kernel/notes),
 * EACCES (the directory can't be made, its parent is missing, or it is not root's alone),
 * EINVAL (bad opts), ENOMEM.
 */
struct build_cache *build_cache__open(const struct build_cache_opts *opts);

/* The copy of @which kept for this build, or NULL (BOOT_CACHE_FEATURES is never kept). */
const char *build_cache__path(const struct build_cache *bc, enum boot_cache_file which);

/*
 * Make @dst (a boot cache path, written beside and renamed: a reader sees all of it or
 * none) from this build's copy of @which; the kallsyms image moved to this boot's _stext
 * and modules. 0, -ENOENT when there is no copy, -EINVAL when it is damaged or another
 * retsnoop's layout, -ESRCH when _stext can't be found (or reads 0: addresses hidden),
 * -ESTALE when a module's .text is not where its copy puts it, other errno.
 */
int build_cache__restore(struct build_cache *bc, enum boot_cache_file which, const char *dst);

/*
 * Keep @src, this boot's copy of @which, as the build's (the kallsyms image made relative
 * to _stext), replacing any; the oldest builds' copies beyond opts.max_builds go.
 */
int build_cache__keep(struct build_cache *bc, enum boot_cache_file which, const char *src);

void build_cache__free(struct build_cache *bc);

#endif
