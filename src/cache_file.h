/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The files of retsnoop's caches (boot_cache.h, build_cache.h): root's alone, in a
 * directory root's alone, replaced whole. They hold kernel addresses, which kptr_restrict
 * hides from other users, and a reader must never see half of one.
 *
 * Library-like: never prints; errors are negative errno values.
 */
#ifndef RETSNOOP_CACHE_FILE_H
#define RETSNOOP_CACHE_FILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * @dir made (mode 0700; its parent must exist) or there, and ours alone: owned by us, not a
 * symlink, nobody else may write to or read it.
 */
bool cache_file__private_dir(const char *dir);

/* @path is a non-empty regular file, ours alone. */
bool cache_file__private(const char *path);

/* Writes a file's contents to @f: 0 or negative errno. */
typedef int (*cache_file_write_fn)(FILE *f, const void *ctx);

/*
 * Write @path through @write into a file beside it (mode 0600), synced, then rename it
 * over @path. On any error nothing is left behind. 0 or negative errno.
 */
int cache_file__replace(const char *path, cache_file_write_fn write, const void *ctx);

/*
 * A file of a few bytes (a boot id, a build-ID note, a sysfs address) into @buf, read
 * once and NUL-terminated: its length, or negative errno. Not file_buf__read(): its
 * megabyte buffer, an mmap() and munmap() per file, would be paid per module at every start.
 */
ssize_t cache_file__read_small(const char *path, char *buf, size_t sz);

/* Copy the file @src to @f as it is: a cache_file_write_fn, @ctx the path. */
int cache_file__copy(FILE *f, const void *src);

#endif
