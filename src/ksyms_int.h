/* SPDX-License-Identifier: BSD-2-Clause */
/* The symbol table's insides, for the modules that build one other than by parsing. */
#ifndef RETSNOOP_KSYMS_INT_H
#define RETSNOOP_KSYMS_INT_H

#include "ksyms.h"

struct ksyms {
	char *buf;			/* names and modules point into it */
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
};

/* by_name, name_hashes and by_addr from syms[0, cnt), and the function symbols' sizes */
int ksyms__build_indexes(struct ksyms *ks);
/*
 * by_addr sorted again (by address, then file order) and the function symbols' sizes from
 * it: ksyms__build_indexes()'s last step, and what a table whose addresses moved needs.
 */
void ksyms__order_by_addr(struct ksyms *ks);

#endif
