// SPDX-License-Identifier: BSD-2-Clause
/*
 * The search-tree calls that elfutils 0.192's static libelf.a and libdw.a make but neither
 * archive defines (its static libraries were packaged without them; 0.193 has them again),
 * so that a static link (the sidecar, make STATIC=1, make ARCH=arm64) works with it too:
 * without these it stops at "undefined reference to `eu_tsearch'". libbpf.mk links them as
 * an archive after -lelf and -ldw, so the linker takes them only where those archives left
 * the names undefined; with elfutils that has them (or never calls them) none is used.
 *
 * elfutils' tree is a struct whose first member is the tsearch() root; a lock follows only
 * in builds configured for thread safety (Debian's 0.192 has an unused int there). Only the
 * root is touched here: each tree belongs to one Elf or Dwarf handle, which retsnoop never
 * shares between threads, exactly as such a build of elfutils requires.
 */
#define _GNU_SOURCE
#include <search.h>
#include <stddef.h>

struct eu_search_tree {
	void *root;		/* elfutils' search_tree begins with it */
};

typedef int (*eu_cmp_fn)(const void *, const void *);

void *eu_tsearch(const void *key, struct eu_search_tree *tree, eu_cmp_fn cmp);
void *eu_tfind(const void *key, struct eu_search_tree *tree, eu_cmp_fn cmp);
void *eu_tdelete(const void *key, struct eu_search_tree *tree, eu_cmp_fn cmp);
void eu_tdestroy(struct eu_search_tree *tree, void (*free_node)(void *));
void eu_search_tree_init(struct eu_search_tree *tree);
void eu_search_tree_fini(struct eu_search_tree *tree, void (*free_node)(void *));

void *eu_tsearch(const void *key, struct eu_search_tree *tree, eu_cmp_fn cmp)
{
	return tsearch(key, &tree->root, cmp);
}

void *eu_tfind(const void *key, struct eu_search_tree *tree, eu_cmp_fn cmp)
{
	return tfind(key, &tree->root, cmp);
}

void *eu_tdelete(const void *key, struct eu_search_tree *tree, eu_cmp_fn cmp)
{
	return tdelete(key, &tree->root, cmp);
}

void eu_tdestroy(struct eu_search_tree *tree, void (*free_node)(void *))
{
	if (tree->root)
		tdestroy(tree->root, free_node);
	tree->root = NULL;
}

void eu_search_tree_init(struct eu_search_tree *tree)
{
	tree->root = NULL;
}

void eu_search_tree_fini(struct eu_search_tree *tree, void (*free_node)(void *))
{
	eu_tdestroy(tree, free_node);
}
