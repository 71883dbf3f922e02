/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which files a user-space glob's bracket names: "[./prog]" is that file, "[libssl.so*]"
 * every shared library whose file name matches, found where the traced program would
 * load it from:
 *   1. the mappings of the traced process (/proc/PID/maps; -p);
 *   2. the libraries the loader would map for the traced program's binary before it runs
 *      (`-- CMD` is held before exec): its DT_NEEDED and theirs, each found as ld.so(8)
 *      does (DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH, /etc/ld.so.conf's directories, the
 *      default ones), matched by DT_NEEDED name or file name;
 *   3. libraries it may dlopen(): files in its RUNPATH/RPATH ($ORIGIN expanded), in
 *      LD_LIBRARY_PATH, in the dynamic loader's directories (/etc/ld.so.conf and its
 *      includes, the multiarch and plain /lib, /usr/lib directories).
 * Each file is listed once by its real path, whatever symlinks led to it.
 */
#ifndef RETSNOOP_USER_IMAGES_H
#define RETSNOOP_USER_IMAGES_H

#include <stddef.h>
#include "glob.h"
#include "log.h"

/* Which of the sources above had a glob's files (the first that had any) */
enum user_image_from {
	USER_IMAGE_PATH,	/* the bracket is a path */
	USER_IMAGE_MAPS,	/* 1: the process maps them */
	USER_IMAGE_NEEDED,	/* 2: the program loads them when it starts */
	USER_IMAGE_SEARCH,	/* 3: the program doesn't load them when it starts */
};

struct user_images_opts {
	size_t sz;
	int pid;		/* a traced process whose maps come first (0: none) */
	const char *binary;	/* the traced program's binary for RUNPATH (NULL: none) */
	const char *root;	/* prefix of every loader directory (tests; NULL: "/") */
	const char *ld_library_path;	/* what the program's loader gets (NULL: none) */
	log_print_fn print;
	/* out: where the files were found, set when user_images__resolve() found any */
	enum user_image_from *from;
};

/*
 * Call @cb with the real path of each file @spec's image names, in the order above.
 * Returns 0 after at least one, -ENOENT when nothing matches (a missing path, a library
 * glob matching no file), or the first non-zero @cb result.
 */
int user_images__resolve(const struct glob_spec *spec, const struct user_images_opts *opts,
			 int (*cb)(const char *path, void *ctx), void *ctx);

#endif
