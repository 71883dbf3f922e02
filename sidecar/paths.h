/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Source paths as the sidecar reports them: relative to the source tree root (PROTOCOL.md,
 * "File paths"), and a cache of normalized forms of strings that live as long as the file.
 */
#ifndef __SIDECAR_PATHS_H
#define __SIDECAR_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * @raw without the @comp_dir prefix, with "." and "dir/.." collapsed and, for a kernel
 * image, cut before the first top-level kernel directory if it still leads outside the
 * tree; malloc()ed, NULL on ENOMEM.
 */
char *path__normalize(const char *raw, const char *comp_dir, bool kernel);

/* Collapse "." and "dir/.." components in place. */
void path__collapse(char *path);

struct path_ent;

/*
 * Normalized paths keyed by the addresses of the raw string and its comp_dir: both are
 * strings of the mapped file (or libdw's), valid as long as it is open.
 */
struct path_cache {
	struct path_ent *ents;
	size_t cap, cnt;
	bool kernel;
};

/* The normalized form of @raw ("??" for NULL); @raw itself if out of memory. */
const char *path_cache__get(struct path_cache *c, const char *raw, const char *comp_dir);
void path_cache__free(struct path_cache *c);

#endif /* __SIDECAR_PATHS_H */
