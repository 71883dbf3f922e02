/* SPDX-License-Identifier: BSD-2-Clause */
/* The symbol table's insides, for the modules that build one other than by parsing. */
#ifndef RETSNOOP_KSYMS_INT_H
#define RETSNOOP_KSYMS_INT_H

#include "ksyms.h"

/* An image's symbol record (ksyms_image.c), in the host's byte order */
struct ksym_rec {
	__u64 addr;
	__u64 size;
	__u32 name;	/* offset into the names */
	__u32 module;	/* offset into the names plus one; 0: vmlinux */
	char type;
	char pad[7];
};

struct ksyms {
	char *buf;			/* names and modules point into it */
	/* a table from an image: syms[i] filled from recs[i] when first handed out */
	struct ksym *syms;
	size_t cnt;
	const struct ksym **by_name;	/* function symbols by (name hash, name, module, addr) */
	__u32 *name_hashes;		/* by_name[i]'s name hash, for the binary search */
	const struct ksym **by_addr;	/* function symbols by address */
	size_t func_cnt;
	/* ksyms__load_funcs_except(): functions only, none in [skip_start, skip_end) */
	bool funcs_only;
	bool static_only;		/* ksyms__load_static_funcs(): no dynamic symbol */
	__u64 skip_start, skip_end;
	/*
	 * ksyms__load_image(): the image file, mapped read-only; buf and name_hashes point
	 * into it (tmpfs pages: no copy into fresh, zeroed memory). NULL otherwise.
	 */
	void *map;
	size_t map_len;
	/*
	 * ksyms__load_image(): the records and both orders (indexes into them) as the map has
	 * them, searched there; by_name and by_addr stay NULL, and a symbol becomes a struct
	 * ksym in syms (zeroed until then) only when handed out: converting all 100k of them
	 * and both orders (5.6% of a warm 7.2 start's samples in a profile, with the fresh
	 * memory's zeroing) served the few that discovery and symbolization ever ask for.
	 * NULL for a parsed table.
	 */
	const struct ksym_rec *recs;
	size_t syms_map_len;		/* syms is mapped (an image's), not allocated */
	const __u32 *rec_by_addr, *rec_by_name;
	/* an image's ksyms__find_funcs() answer: pointers to its symbols, until the next */
	const struct ksym **found;
	size_t found_cap;
	/* ksyms__text_bounds()' answer, once looked up (by name, before the index goes) */
	bool text_looked;
	__u64 text_start, text_end;
};

/*
 * Symbol @i in file order, filled from its record first in a table from an image. Tables
 * are read by one thread at a time (discovery's, then the main loop's symbolization).
 */
const struct ksym *ksyms__sym_at(const struct ksyms *ks, size_t i);

/* by_name, name_hashes and by_addr from syms[0, cnt), and the function symbols' sizes */
int ksyms__build_indexes(struct ksyms *ks);
/*
 * by_addr sorted again (by address, then file order) and the function symbols' sizes from
 * it: ksyms__build_indexes()'s last step, and what a table whose addresses moved needs.
 */
void ksyms__order_by_addr(struct ksyms *ks);

#endif
