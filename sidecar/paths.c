// SPDX-License-Identifier: BSD-2-Clause
/* Source path normalization (PROTOCOL.md, "File paths") and its cache. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"

struct path_ent {
	const void *raw;
	const void *dir;
	char *val;
};

/* Kernel top-level source directories; the order decides, as in the original retsnoop. */
static const char *const kernel_dirs[] = {
	"arch/", "block/", "certs/", "crypto/", "drivers/", "fs/", "include/", "init/",
	"io_uring/", "ipc/", "kernel/", "lib/", "mm/", "net/", "rust/", "scripts/",
	"security/", "sound/", "tools/", "usr/", "virt/",
};

void path__collapse(char *path)
{
	char *out = path, *in = path;
	size_t base = 0, olen = 0;

	if (*in == '/') {
		out[olen++] = '/';
		base = 1;
	}
	while (*in) {
		char *seg, *last;
		size_t len;

		while (*in == '/')
			in++;
		if (!*in)
			break;
		seg = in;
		while (*in && *in != '/')
			in++;
		len = in - seg;
		if (len == 1 && seg[0] == '.')
			continue;
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			/* find the start of the previous component */
			last = out + olen;
			while (last > out + base && last[-1] != '/')
				last--;
			if (olen > base && !(out + olen - last == 2 && last[0] == '.' && last[1] == '.')) {
				olen = last - out;
				if (olen > base)
					olen--; /* drop the separator too */
				continue;
			}
		}
		if (olen > base)
			out[olen++] = '/';
		memmove(out + olen, seg, len);
		olen += len;
	}
	out[olen] = '\0';
}

/* Cut an out-of-tree prefix off a kernel path: first directory of kernel_dirs[] found wins. */
static void strip_kernel_prefix(char *path)
{
	size_t i;

	for (i = 0; i < sizeof(kernel_dirs) / sizeof(kernel_dirs[0]); i++) {
		const char *d = kernel_dirs[i], *p = path;

		while ((p = strstr(p, d))) {
			if (p == path || p[-1] == '/') {
				memmove(path, p, strlen(p) + 1);
				return;
			}
			p++;
		}
	}
}

char *path__normalize(const char *raw, const char *comp_dir, bool kernel)
{
	const char *p = raw;
	char *out;
	size_t n;

	if (comp_dir && *comp_dir) {
		n = strlen(comp_dir);
		while (n > 1 && comp_dir[n - 1] == '/')
			n--;
		if (strncmp(p, comp_dir, n) == 0 && p[n] == '/')
			p += n + 1;
	}
	out = strdup(p);
	if (!out)
		return NULL;
	path__collapse(out);
	/* still outside the tree root (absolute, or above it): guess the root */
	if (kernel && (out[0] == '/' || strncmp(out, "../", 3) == 0))
		strip_kernel_prefix(out);
	return out;
}

static size_t ent_hash(const void *raw, const void *dir)
{
	uint64_t h = (uint64_t)(uintptr_t)raw * 0x9e3779b97f4a7c15ULL;

	h ^= (uint64_t)(uintptr_t)dir * 0xc2b2ae3d27d4eb4fULL;
	return (size_t)(h ^ (h >> 29));
}

/* Double the open-addressing table; false if out of memory (the old one stays). */
static bool cache_grow(struct path_cache *c)
{
	size_t ncap = c->cap ? c->cap * 2 : 1024, i, j;
	struct path_ent *nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return false;
	for (j = 0; j < c->cap; j++) {
		struct path_ent *e = &c->ents[j];

		if (!e->raw)
			continue;
		for (i = ent_hash(e->raw, e->dir) & (ncap - 1); nt[i].raw; i = (i + 1) & (ncap - 1))
			;
		nt[i] = *e;
	}
	free(c->ents);
	c->ents = nt;
	c->cap = ncap;
	return true;
}

const char *path_cache__get(struct path_cache *c, const char *raw, const char *comp_dir)
{
	size_t i, mask;
	char *val;

	if (!raw)
		return "??";
	if (c->cnt * 2 >= c->cap && !cache_grow(c))
		return raw;
	mask = c->cap - 1;
	for (i = ent_hash(raw, comp_dir) & mask; c->ents[i].raw; i = (i + 1) & mask) {
		if (c->ents[i].raw == raw && c->ents[i].dir == comp_dir)
			return c->ents[i].val;
	}
	val = path__normalize(raw, comp_dir, c->kernel);
	if (!val)
		return raw;
	c->ents[i] = (struct path_ent){ raw, comp_dir, val };
	c->cnt++;
	return val;
}

void path_cache__free(struct path_cache *c)
{
	size_t i;

	for (i = 0; i < c->cap; i++)
		free(c->ents[i].val);
	free(c->ents);
	c->ents = NULL;
	c->cap = c->cnt = 0;
}
