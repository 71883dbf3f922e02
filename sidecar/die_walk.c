// SPDX-License-Identifier: BSD-2-Clause
/*
 * The libdw walker: indexes a whole CU through dwarf_child()/dwarf_siblingof(). It is the
 * fallback for whatever the own scanner (die_scan.c) does not read, and the reference that
 * scanner is tested against (tests/sidecar/test_walkers.c): both must find the same scopes.
 */
#include <errno.h>
#include <dwarf.h>

#include "symbolizer_int.h"

const char *die_walk_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = NULL;

	/* _integrate follows DW_AT_abstract_origin/specification to the named DIE */
	if (dwarf_attr_integrate(die, DW_AT_name, &attr))
		name = dwarf_formstring(&attr);
	if (!name && dwarf_attr_integrate(die, DW_AT_linkage_name, &attr))
		name = dwarf_formstring(&attr);
	return name;
}

int die_walk_udata(Dwarf_Die *die, unsigned int at, Dwarf_Word *val)
{
	Dwarf_Attribute attr;

	if (!dwarf_attr(die, at, &attr))
		return -ENOENT;
	return dwarf_formudata(&attr, val) ? -EINVAL : 0;
}

int die_walk_entry_addr(Dwarf_Die *die, Dwarf_Addr *addr)
{
	Dwarf_Addr base, hi;

	if (dwarf_lowpc(die, addr) == 0 || dwarf_entrypc(die, addr) == 0)
		return 0;
	return dwarf_ranges(die, 0, &base, addr, &hi) > 0 ? 0 : -ENOENT;
}

int die_walk_add_scope(struct symbolizer *s, struct cu *cu, Dwarf_Die *die, int parent, int depth)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	struct scope *sc;
	Dwarf_Word v;
	int nr = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (scope_push_range(cu, lo, hi, depth, &nr))
			return -ENOMEM;
	}
	if (!nr)
		return -1;
	sc = scope_new(cu, die_walk_name(die), parent);
	if (!sc)
		return -ENOMEM;
	if (parent >= 0) {
		sc->call_file = die_walk_udata(die, DW_AT_call_file, &v) ? "??" : cu_file(s, cu, v);
		if (!die_walk_udata(die, DW_AT_call_line, &v))
			sc->call_line = (int)v;
		if (!die_walk_udata(die, DW_AT_call_column, &v))
			sc->call_col = (int)v;
	}
	return cu->nscopes++;
}

static int index_children(struct symbolizer *s, struct cu *cu, Dwarf_Die *parent, int pscope,
			  int depth)
{
	Dwarf_Die child;
	int idx, err;

	if (depth > MAX_DIE_DEPTH)
		return 0;
	if (dwarf_child(parent, &child) != 0)
		return 0;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			/* C has no nested functions; a subprogram in a scope is a declaration */
			if (pscope >= 0)
				break;
			idx = die_walk_add_scope(s, cu, &child, -1, depth);
			if (idx == -ENOMEM)
				return idx;
			if (idx >= 0) {
				err = index_children(s, cu, &child, idx, depth + 1);
				if (err)
					return err;
			}
			break;
		case DW_TAG_inlined_subroutine:
			if (pscope < 0)
				break;
			idx = die_walk_add_scope(s, cu, &child, pscope, depth);
			if (idx == -ENOMEM)
				return idx;
			err = index_children(s, cu, &child, idx >= 0 ? idx : pscope, depth + 1);
			if (err)
				return err;
			break;
		case DW_TAG_lexical_block:
			if (pscope < 0)
				break;
			err = index_children(s, cu, &child, pscope, depth + 1);
			if (err)
				return err;
			break;
		case DW_TAG_namespace:
			if (pscope >= 0)
				break;
			err = index_children(s, cu, &child, pscope, depth + 1);
			if (err)
				return err;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int die_walk_cu(struct symbolizer *s, struct cu *cu)
{
	return index_children(s, cu, &cu->die, -1, 0);
}
