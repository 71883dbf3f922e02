// SPDX-License-Identifier: BSD-2-Clause
/*
 * Compile units: the list of units (libdw's unit headers), the address -> CU table (from
 * .debug_aranges on the first lookup), each CU's DIE and comp_dir, and its line table with
 * normalized file names, all loaded on first use.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>

#include "symbolizer_int.h"

int cus_load(struct symbolizer *s)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;

	if (s->cus_loaded)
		return 0;
	s->cus_loaded = true;
	if (!s->dw)
		return 0;
	while (dwarf_nextcu(s->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (s->ncus == cap) {
			struct cu *nc;

			cap = cap ? cap * 2 : 1024;
			nc = realloc(s->cus, cap * sizeof(*nc));
			if (!nc)
				return -ENOMEM;
			s->cus = nc;
		}
		memset(&s->cus[s->ncus], 0, sizeof(s->cus[0]));
		s->cus[s->ncus].unit_off = off;
		s->cus[s->ncus++].die_off = off + hsize;
		off = next;
	}
	return 0;
}

static struct cu *cu_by_die_off(struct symbolizer *s, Dwarf_Off off)
{
	size_t lo = 0, hi = s->ncus;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->cus[mid].die_off == off)
			return &s->cus[mid];
		if (s->cus[mid].die_off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * With @own (symbolization) the CU DIE's attributes are read by the own scanner; source
 * globs walk the CU with libdw anyway, which reads them cheaper.
 */
int cu_load_die(struct symbolizer *s, struct cu *cu, bool own)
{
	Dwarf_Attribute attr;

	if (!cu->die_ok) {
		if (!dwarf_offdie(s->dw, cu->die_off, &cu->die))
			return -EINVAL;
		cu->die_ok = true;
	}
	if (own && !cu->own_tried && !s->opts.libdw_dies) {
		cu->own_tried = true;
		if (!scan_cu_die(s, cu)) {
			cu->comp_dir_ok = true;
			return 0;
		}
	}
	if (!cu->comp_dir_ok) {
		cu->comp_dir_ok = true;
		if (dwarf_attr(&cu->die, DW_AT_comp_dir, &attr))
			cu->comp_dir = dwarf_formstring(&attr);
	}
	return 0;
}

static int cmp_cu_range(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return 0;
}

static int add_cu_range(struct symbolizer *s, size_t *cap, uint64_t lo, uint64_t hi, size_t cu)
{
	if (lo >= hi)
		return 0;
	if (s->ncu_ranges == *cap) {
		struct cu_range *nr;

		*cap = *cap ? *cap * 2 : 4096;
		nr = realloc(s->cu_ranges, *cap * sizeof(*nr));
		if (!nr)
			return -ENOMEM;
		s->cu_ranges = nr;
	}
	s->cu_ranges[s->ncu_ranges++] = (struct cu_range){ lo, hi, cu };
	return 0;
}

/* Address -> CU table, from .debug_aranges, or from the CU DIEs' ranges when that is absent. */
static int load_cu_ranges(struct symbolizer *s)
{
	Dwarf_Aranges *ar;
	size_t i, n = 0, cap = 0;
	int err;

	if (s->cu_ranges_loaded)
		return 0;
	s->cu_ranges_loaded = true;
	err = cus_load(s);
	if (err || !s->dw)
		return err;

	if (dwarf_getaranges(s->dw, &ar, &n) == 0 && n > 0) {
		for (i = 0; i < n; i++) {
			Dwarf_Arange *a = dwarf_onearange(ar, i);
			Dwarf_Addr start;
			Dwarf_Word len;
			Dwarf_Off off;
			struct cu *cu;

			if (!a || dwarf_getarangeinfo(a, &start, &len, &off))
				continue;
			cu = cu_by_die_off(s, off);
			if (!cu)
				continue;
			err = add_cu_range(s, &cap, start, start + len, cu - s->cus);
			if (err)
				return err;
		}
	} else {
		for (i = 0; i < s->ncus; i++) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;

			if (cu_load_die(s, &s->cus[i], false))
				continue;
			while ((off = dwarf_ranges(&s->cus[i].die, off, &base, &lo, &hi)) > 0) {
				err = add_cu_range(s, &cap, lo, hi, i);
				if (err)
					return err;
			}
		}
	}
	if (s->ncu_ranges)
		qsort(s->cu_ranges, s->ncu_ranges, sizeof(*s->cu_ranges), cmp_cu_range);
	return 0;
}

bool cu_has_addr(struct cu *cu, uint64_t addr)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(&cu->die, off, &base, &lo, &hi)) > 0) {
		if (addr >= lo && addr < hi)
			return true;
	}
	return false;
}

struct cu *cu_at(struct symbolizer *s, uint64_t addr)
{
	size_t lo = 0, hi, i, k;

	if (load_cu_ranges(s) || !s->ncu_ranges)
		return NULL;
	/* last range starting at or before addr */
	hi = s->ncu_ranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->cu_ranges[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* CU ranges should not overlap; look back a little in case they do */
	for (i = lo, k = 0; i > 0 && k < 8; i--, k++) {
		struct cu_range *r = &s->cu_ranges[i - 1];

		if (addr < r->hi)
			return &s->cus[r->cu];
	}
	return NULL;
}

struct cu *cu_find(struct symbolizer *s, uint64_t addr)
{
	struct cu *cu = cu_at(s, addr);

	return cu && !cu_load_die(s, cu, true) ? cu : NULL;
}

static bool cu_stmt_list(struct cu *cu, Dwarf_Word *off)
{
	if (cu->has_stmt_list) {
		*off = cu->stmt_list;
		return true;
	}
	return !die_walk_udata(&cu->die, DW_AT_stmt_list, off);
}

bool cu_lines(struct symbolizer *s, struct cu *cu)
{
	Dwarf_Word off;

	if (cu->lines_state)
		return cu->lines_state > 0;
	cu->lines_state = -1;
	if (s->opts.libdw_lines)
		return false;
	if (!cu_stmt_list(cu, &off) || line_table__load(&cu->lt, &s->sects, off))
		return false;
	cu->paths = calloc(cu->lt.nfiles ? cu->lt.nfiles : 1, sizeof(*cu->paths));
	if (!cu->paths) {
		line_table__free(&cu->lt);
		return false;
	}
	cu->lines_state = 1;
	return true;
}

const char *cu_own_file(struct symbolizer *s, struct cu *cu, uint64_t idx)
{
	char *raw;

	if (idx >= cu->lt.nfiles)
		return "??";
	if (!cu->paths[idx]) {
		raw = line_table__file_path(&cu->lt, idx, cu->comp_dir);
		if (!raw)
			return "??";
		cu->paths[idx] = path__normalize(raw, cu->comp_dir, s->kernel);
		free(raw);
		if (!cu->paths[idx])
			return "??";
	}
	return cu->paths[idx];
}

const char *cu_file(struct symbolizer *s, struct cu *cu, uint64_t idx)
{
	if (cu_lines(s, cu))
		return cu_own_file(s, cu, idx);
	if (!cu->files_ok) {
		cu->files_ok = true;
		if (dwarf_getsrcfiles(&cu->die, &cu->files, &cu->nfiles))
			cu->files = NULL;
	}
	if (!cu->files || idx >= cu->nfiles)
		return "??";
	return path_cache__get(&s->paths, dwarf_filesrc(cu->files, idx, NULL, NULL), cu->comp_dir);
}

void cu_free(struct cu *cu)
{
	size_t j;

	if (cu->paths) {
		for (j = 0; j < cu->lt.nfiles; j++)
			free(cu->paths[j]);
		free(cu->paths);
	}
	line_table__free(&cu->lt);
	scopes_reset(cu);
	free(cu->funcs);
	free(cu->scopes);
	free(cu->all.r);
}
