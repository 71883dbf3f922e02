// SPDX-License-Identifier: BSD-2-Clause
/*
 * DWARF symbolizer of the retsnoop sidecar, on elfutils libdw.
 *
 * Everything is lazy so that the first reply is cheap: the ELF is mmap()ed by
 * libelf, the address -> CU table is built from .debug_aranges on the first
 * lookup, and a CU's DIE tree is walked once, on the first address that falls
 * into it, into a sorted table of subprogram and inlined-subroutine ranges.
 * The ELF symbol table is only sorted when an address has no DWARF function.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dwarf.h>
#include <gelf.h>
#include <elfutils/libdw.h>

#include "dwarf_read.h"
#include "lines.h"
#include "symbolizer.h"

/* Deeper DIE nesting than this is treated as corrupt input (protects the stack). */
#define MAX_DIE_DEPTH 256

/* One subprogram or inlined-subroutine instance of a CU. */
struct scope {
	const char *name;
	const char *call_file;	/* normalized call site, inlined instances only */
	int call_line;
	int call_col;
	int parent;		/* enclosing scope, -1 for a subprogram */
	int func;		/* subprograms of a lazily expanded CU: index into funcs */
};

/* One address range of a scope; 'up' is the nearest earlier range that encloses it. */
struct srange {
	uint64_t lo, hi;
	int scope;
	int depth;
	int up;
};

struct rtab {
	struct srange *r;
	int n, cap;
};

/* A top-level function whose inlined subroutines are indexed on first use. */
struct func {
	Dwarf_Off off;
	int scope;
	bool expanded;
	struct rtab tab;
};

struct cu {
	Dwarf_Off unit_off;
	Dwarf_Off die_off;
	Dwarf_Die die;
	bool die_ok;
	bool own_tried;		/* own scanner read the CU DIE (or failed to) */
	bool comp_dir_ok;
	bool indexed;
	bool files_ok;
	int lines_state;	/* 0: not loaded, 1: own table, -1: use libdw */
	struct line_table lt;
	char **paths;		/* normalized path per lt file index, lazily */
	const char *comp_dir;
	uint64_t base;		/* DW_AT_low_pc of the CU DIE: base of its range lists */
	bool has_base;
	uint64_t stmt_list;
	bool has_stmt_list;	/* read by the own scanner; else ask libdw */
	Dwarf_Files *files;
	size_t nfiles;
	struct scope *scopes;
	int nscopes, cap_scopes;
	struct rtab all;	/* subprograms; everything in flat mode */
	struct rtab *cur;	/* where add_scope() puts ranges */
	bool flat;		/* libdw walked the whole CU at once */
	struct func *funcs;
	int nfuncs, cap_funcs;
};

struct cu_range {
	uint64_t lo, hi;
	size_t cu;
};

struct sym {
	uint64_t addr;
	const char *name;
	int rank;
};

struct exec_sec {
	uint64_t lo, hi;
};

struct norm_ent {
	const void *raw;
	const void *dir;
	char *val;
};

struct symbolizer {
	int fd;
	Elf *elf;
	Dwarf *dw;
	bool kernel;
	struct line_sects sects;
	struct exec_sec *secs;
	int nsecs;

	struct cu *cus;
	size_t ncus;
	bool cus_loaded;
	struct cu_range *cu_ranges;
	size_t ncu_ranges;
	bool cu_ranges_loaded;

	struct sym *syms;
	size_t nsyms;
	bool syms_loaded;

	struct norm_ent *norm;
	size_t norm_cap, norm_cnt;

	struct symb_stats stats;

	/* abbreviations of the last unit scanned (a function expansion re-scans its CU's) */
	struct abbrev *ab;
	uint64_t *ab_specs;
	size_t nab, ab_cap, ab_specs_cap;
	uint64_t ab_off;
	int ab_unit[3];		/* offset size, address size, version they were laid out for */
	bool ab_valid;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Kernel top-level source directories; the order decides, as in the original retsnoop. */
static const char *const kernel_dirs[] = {
	"arch/", "block/", "certs/", "crypto/", "drivers/", "fs/", "include/", "init/",
	"io_uring/", "ipc/", "kernel/", "lib/", "mm/", "net/", "rust/", "scripts/",
	"security/", "sound/", "tools/", "usr/", "virt/",
};

static void *grow(void *arr, int *cap, int need, size_t elem)
{
	int ncap;
	void *p;

	if (need <= *cap)
		return arr;
	ncap = *cap ? *cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	p = realloc(arr, (size_t)ncap * elem);
	if (!p)
		return NULL;
	*cap = ncap;
	return p;
}

/* Collapse "." and "dir/.." components in place. */
static void collapse_path(char *path)
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

static char *normalize_path(const char *raw, const char *comp_dir, bool kernel)
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
	collapse_path(out);
	/* still outside the tree root (absolute, or above it): guess the root */
	if (kernel && (out[0] == '/' || strncmp(out, "../", 3) == 0))
		strip_kernel_prefix(out);
	return out;
}

static size_t norm_hash(const void *raw, const void *dir)
{
	uint64_t h = (uint64_t)(uintptr_t)raw * 0x9e3779b97f4a7c15ULL;

	h ^= (uint64_t)(uintptr_t)dir * 0xc2b2ae3d27d4eb4fULL;
	return (size_t)(h ^ (h >> 29));
}

/*
 * Normalized form of a libdw-owned path string. libdw's strings live as long
 * as the Dwarf handle, so the raw pointer (plus the comp_dir it is relative to)
 * is a good cache key.
 */
static const char *norm_cached(struct symbolizer *s, const char *raw, const char *comp_dir)
{
	size_t i, mask;
	char *val;

	if (!raw)
		return "??";
	if (s->norm_cnt * 2 >= s->norm_cap) {
		size_t ncap = s->norm_cap ? s->norm_cap * 2 : 1024, j;
		struct norm_ent *nt = calloc(ncap, sizeof(*nt));

		if (!nt)
			return raw;
		for (j = 0; j < s->norm_cap; j++) {
			struct norm_ent *e = &s->norm[j];

			if (!e->raw)
				continue;
			for (i = norm_hash(e->raw, e->dir) & (ncap - 1); nt[i].raw; i = (i + 1) & (ncap - 1))
				;
			nt[i] = *e;
		}
		free(s->norm);
		s->norm = nt;
		s->norm_cap = ncap;
	}
	mask = s->norm_cap - 1;
	for (i = norm_hash(raw, comp_dir) & mask; s->norm[i].raw; i = (i + 1) & mask) {
		if (s->norm[i].raw == raw && s->norm[i].dir == comp_dir)
			return s->norm[i].val;
	}
	val = normalize_path(raw, comp_dir, s->kernel);
	if (!val)
		return raw;
	s->norm[i].raw = raw;
	s->norm[i].dir = comp_dir;
	s->norm[i].val = val;
	s->norm_cnt++;
	return val;
}

static const char *die_name(Dwarf_Die *die)
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

static int die_udata(Dwarf_Die *die, unsigned int at, Dwarf_Word *val)
{
	Dwarf_Attribute attr;

	if (!dwarf_attr(die, at, &attr))
		return -ENOENT;
	return dwarf_formudata(&attr, val) ? -EINVAL : 0;
}

static int load_cus(struct symbolizer *s)
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

/* The values of one DIE that the index needs, read without libdw. */
struct die_vals {
	uint64_t low, high, ranges, stmt_list;
	uint64_t origin;	/* unit-relative abstract_origin, else specification; 0: none */
	uint64_t call_file, call_line, call_col;
	const char *name, *linkage_name, *comp_dir;
	bool has_low, has_high, high_is_off, has_ranges, has_stmt_list;
	bool has_call_file, has_call_line, has_call_col;
};

static int cu_read_own(struct symbolizer *s, struct cu *cu);

/*
 * The CU's DIE and compilation directory. With @own (symbolization) its attributes are read
 * by the own scanner; source globs walk the CU with libdw anyway, which reads them cheaper.
 */
static int cu_load_die(struct symbolizer *s, struct cu *cu, bool own)
{
	Dwarf_Attribute attr;

	if (!cu->die_ok) {
		if (!dwarf_offdie(s->dw, cu->die_off, &cu->die))
			return -EINVAL;
		cu->die_ok = true;
	}
	if (own && !cu->own_tried) {
		cu->own_tried = true;
		if (!cu_read_own(s, cu)) {
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
	err = load_cus(s);
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

static struct cu *find_cu(struct symbolizer *s, uint64_t addr)
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

		if (addr < r->hi) {
			struct cu *cu = &s->cus[r->cu];

			return cu_load_die(s, cu, true) ? NULL : cu;
		}
	}
	return NULL;
}

static bool cu_stmt_list(struct cu *cu, Dwarf_Word *off)
{
	if (cu->has_stmt_list) {
		*off = cu->stmt_list;
		return true;
	}
	return !die_udata(&cu->die, DW_AT_stmt_list, off);
}

/* Own line table of a CU; false when libdw has to be asked instead. */
static bool cu_lines(struct symbolizer *s, struct cu *cu)
{
	Dwarf_Word off;

	if (cu->lines_state)
		return cu->lines_state > 0;
	cu->lines_state = -1;
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

static const char *cu_own_file(struct symbolizer *s, struct cu *cu, uint64_t idx)
{
	char *raw;

	if (idx >= cu->lt.nfiles)
		return "??";
	if (!cu->paths[idx]) {
		raw = line_table__file_path(&cu->lt, idx, cu->comp_dir);
		if (!raw)
			return "??";
		cu->paths[idx] = normalize_path(raw, cu->comp_dir, s->kernel);
		free(raw);
		if (!cu->paths[idx])
			return "??";
	}
	return cu->paths[idx];
}

static const char *cu_file(struct symbolizer *s, struct cu *cu, Dwarf_Word idx)
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
	return norm_cached(s, dwarf_filesrc(cu->files, idx, NULL, NULL), cu->comp_dir);
}

/* One address range of the scope about to be added (index cu->nscopes); empty ones are not. */
static int push_range(struct cu *cu, uint64_t lo, uint64_t hi, int depth, int *nr)
{
	struct srange *r;

	if (lo >= hi)
		return 0;
	r = grow(cu->cur->r, &cu->cur->cap, cu->cur->n + 1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	cu->cur->r = r;
	cu->cur->r[cu->cur->n++] = (struct srange){ lo, hi, cu->nscopes, depth, -1 };
	(*nr)++;
	return 0;
}

/* The scope whose ranges were just pushed; call site left for the caller to fill. */
static struct scope *new_scope(struct cu *cu, const char *name, int parent)
{
	struct scope *sc = grow(cu->scopes, &cu->cap_scopes, cu->nscopes + 1, sizeof(*sc));

	if (!sc)
		return NULL;
	cu->scopes = sc;
	sc = &cu->scopes[cu->nscopes];
	memset(sc, 0, sizeof(*sc));
	sc->name = name ?: "??";
	sc->parent = parent;
	sc->func = -1;
	return sc;
}

/* Record a scope with its address ranges; returns its index, -1 if it has no code. */
static int add_scope(struct symbolizer *s, struct cu *cu, Dwarf_Die *die, int parent, int depth)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	struct scope *sc;
	Dwarf_Word v;
	int nr = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (push_range(cu, lo, hi, depth, &nr))
			return -ENOMEM;
	}
	if (!nr)
		return -1;
	sc = new_scope(cu, die_name(die), parent);
	if (!sc)
		return -ENOMEM;
	if (parent >= 0) {
		sc->call_file = die_udata(die, DW_AT_call_file, &v) ? "??" : cu_file(s, cu, v);
		if (!die_udata(die, DW_AT_call_line, &v))
			sc->call_line = (int)v;
		if (!die_udata(die, DW_AT_call_column, &v))
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
			idx = add_scope(s, cu, &child, -1, depth);
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
			idx = add_scope(s, cu, &child, pscope, depth);
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

/* Steps of a compiled variable-size abbreviation: kind << 24 | argument. */
enum {
	STEP_SKIP = 1,		/* skip argument bytes */
	STEP_ULEB,		/* one LEB128 */
	STEP_BLOCK_ULEB,	/* LEB128 length, then that many bytes */
	STEP_BLOCK1,
	STEP_BLOCK2,
	STEP_BLOCK4,
	STEP_STRING,		/* NUL-terminated */
	STEP_SIB,		/* DW_AT_sibling of argument bytes */
};
#define MAX_STEPS 12

struct abbrev {
	uint64_t tag;
	bool children;
	uint32_t spec, nspec;	/* spec[]: first (attribute, form, implicit value) triple, count */
	int fixed;		/* size of all attribute values if constant, else -1 */
	int sib_pos, sib_size;	/* where DW_AT_sibling's value is in a fixed-size DIE, or -1 */
	bool has_code;		/* DW_AT_low_pc or DW_AT_ranges: can have address ranges */
	/* variable-size DIEs: the values as a few skip steps (STEP_*), nstep 0 if not possible */
	uint8_t nstep;
	uint32_t steps[MAX_STEPS];
};

struct scan {
	const unsigned char *p, *end;
	int offsz, addrsz, version;
	bool bad;
};

DEFINE_DWARF_READERS(sc, struct scan)

static void sc_skip(struct scan *r, uint64_t n)
{
	if ((uint64_t)(r->end - r->p) < n) {
		r->bad = true;
		r->p = r->end;
		return;
	}
	r->p += n;
}

/* Skip one attribute value; its value if it is a CU-relative reference (for DW_AT_sibling). */
static int sc_form(struct scan *r, uint64_t form, uint64_t *ref)
{
	*ref = 0;
	switch (form) {
	case DW_FORM_flag_present:
	case DW_FORM_implicit_const:
		break;
	case DW_FORM_addr:
		sc_skip(r, r->addrsz);
		break;
	case DW_FORM_data1: case DW_FORM_flag: case DW_FORM_strx1: case DW_FORM_addrx1:
		sc_skip(r, 1);
		break;
	case DW_FORM_ref1:
		*ref = sc_u(r, 1);
		break;
	case DW_FORM_data2: case DW_FORM_strx2: case DW_FORM_addrx2:
		sc_skip(r, 2);
		break;
	case DW_FORM_ref2:
		*ref = sc_u(r, 2);
		break;
	case DW_FORM_strx3: case DW_FORM_addrx3:
		sc_skip(r, 3);
		break;
	case DW_FORM_data4: case DW_FORM_strx4: case DW_FORM_addrx4: case DW_FORM_ref_sup4:
		sc_skip(r, 4);
		break;
	case DW_FORM_ref4:
		*ref = sc_u(r, 4);
		break;
	case DW_FORM_data8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
		sc_skip(r, 8);
		break;
	case DW_FORM_ref8:
		*ref = sc_u(r, 8);
		break;
	case DW_FORM_data16:
		sc_skip(r, 16);
		break;
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset: case DW_FORM_strp_sup:
	case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
		sc_skip(r, r->offsz);
		break;
	case DW_FORM_ref_addr:
		sc_skip(r, r->version <= 2 ? r->addrsz : r->offsz);
		break;
	case DW_FORM_string:
		while (r->p < r->end && *r->p)
			r->p++;
		sc_skip(r, 1);
		break;
	case DW_FORM_udata: case DW_FORM_sdata: case DW_FORM_strx: case DW_FORM_addrx:
	case DW_FORM_rnglistx: case DW_FORM_loclistx: case DW_FORM_GNU_addr_index:
	case DW_FORM_GNU_str_index:
		sc_uleb(r);
		break;
	case DW_FORM_ref_udata:
		*ref = sc_uleb(r);
		break;
	case DW_FORM_block1:
		sc_skip(r, sc_u(r, 1));
		break;
	case DW_FORM_block2:
		sc_skip(r, sc_u(r, 2));
		break;
	case DW_FORM_block4:
		sc_skip(r, sc_u(r, 4));
		break;
	case DW_FORM_block:
	case DW_FORM_exprloc:
		sc_skip(r, sc_uleb(r));
		break;
	default:
		return -ENOTSUP;	/* incl. DW_FORM_indirect */
	}
	return r->bad ? -EINVAL : 0;
}

/* Constant size of a form's value in this unit, -1 if it varies. */
static int form_size(uint64_t form, const struct scan *u)
{
	switch (form) {
	case DW_FORM_flag_present: case DW_FORM_implicit_const:
		return 0;
	case DW_FORM_data1: case DW_FORM_flag: case DW_FORM_strx1: case DW_FORM_addrx1:
	case DW_FORM_ref1:
		return 1;
	case DW_FORM_data2: case DW_FORM_strx2: case DW_FORM_addrx2: case DW_FORM_ref2:
		return 2;
	case DW_FORM_strx3: case DW_FORM_addrx3:
		return 3;
	case DW_FORM_data4: case DW_FORM_strx4: case DW_FORM_addrx4: case DW_FORM_ref_sup4:
	case DW_FORM_ref4:
		return 4;
	case DW_FORM_data8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8: case DW_FORM_ref8:
		return 8;
	case DW_FORM_data16:
		return 16;
	case DW_FORM_addr:
		return u->addrsz;
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset: case DW_FORM_strp_sup:
	case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
		return u->offsz;
	case DW_FORM_ref_addr:
		return u->version <= 2 ? u->addrsz : u->offsz;
	default:
		return -1;
	}
}

static bool add_step(struct abbrev *a, int kind, uint32_t arg)
{
	if (kind == STEP_SKIP && a->nstep && a->steps[a->nstep - 1] >> 24 == STEP_SKIP) {
		a->steps[a->nstep - 1] += arg;	/* coalesce constant sizes */
		return true;
	}
	if (a->nstep == MAX_STEPS)
		return false;
	a->steps[a->nstep++] = (uint32_t)kind << 24 | arg;
	return true;
}

/* The few steps that skip the values of a variable-size DIE; nstep 0 if it cannot. */
static void abbrev_steps(struct abbrev *a, const uint64_t *specs, const struct scan *u)
{
	uint32_t i;

	a->nstep = 0;
	for (i = 0; i < a->nspec; i++) {
		uint64_t attr = specs[a->spec + 3 * i], form = specs[a->spec + 3 * i + 1];
		int sz = form_size(form, u), kind = 0;

		if (attr == DW_AT_sibling) {
			if (form < DW_FORM_ref1 || form > DW_FORM_ref8 || sz <= 0)
				goto fail;
			if (!add_step(a, STEP_SIB, sz))
				goto fail;
			continue;
		}
		if (sz >= 0) {
			if (sz && !add_step(a, STEP_SKIP, sz))
				goto fail;
			continue;
		}
		switch (form) {
		case DW_FORM_udata: case DW_FORM_sdata: case DW_FORM_strx: case DW_FORM_addrx:
		case DW_FORM_rnglistx: case DW_FORM_loclistx: case DW_FORM_GNU_addr_index:
		case DW_FORM_GNU_str_index: case DW_FORM_ref_udata:
			kind = STEP_ULEB;
			break;
		case DW_FORM_block: case DW_FORM_exprloc:
			kind = STEP_BLOCK_ULEB;
			break;
		case DW_FORM_block1:
			kind = STEP_BLOCK1;
			break;
		case DW_FORM_block2:
			kind = STEP_BLOCK2;
			break;
		case DW_FORM_block4:
			kind = STEP_BLOCK4;
			break;
		case DW_FORM_string:
			kind = STEP_STRING;
			break;
		default:
			goto fail;	/* DW_FORM_indirect and unknown forms */
		}
		if (!add_step(a, kind, 0))
			goto fail;
	}
	if (a->nstep)
		return;
fail:
	a->nstep = 0;
}

/* Run a compiled abbreviation's steps over one DIE; its DW_AT_sibling value if any. */
static uint64_t run_steps(struct scan *r, const struct abbrev *a)
{
	uint64_t sib = 0;
	int i;

	for (i = 0; i < a->nstep; i++) {
		uint32_t arg = a->steps[i] & 0xffffff;

		switch (a->steps[i] >> 24) {
		case STEP_SKIP:
			sc_skip(r, arg);
			break;
		case STEP_ULEB:
			/* the value does not matter: find the last byte */
			while (r->p < r->end && (*r->p & 0x80))
				r->p++;
			sc_skip(r, 1);
			break;
		case STEP_BLOCK_ULEB:
			sc_skip(r, sc_uleb(r));
			break;
		case STEP_BLOCK1:
			sc_skip(r, sc_u(r, 1));
			break;
		case STEP_BLOCK2:
			sc_skip(r, sc_u(r, 2));
			break;
		case STEP_BLOCK4:
			sc_skip(r, sc_u(r, 4));
			break;
		case STEP_STRING: {
			const unsigned char *nul = memchr(r->p, 0, r->end - r->p);

			if (!nul) {
				r->bad = true;
				r->p = r->end;
			} else {
				r->p = nul + 1;
			}
			break;
		}
		case STEP_SIB:
			sib = sc_u(r, arg);
			break;
		}
	}
	return sib;
}

/* Most DIEs (types) have only constant-size values: skip them in one step. */
static void abbrev_layout(struct abbrev *a, const uint64_t *specs, const struct scan *u)
{
	uint32_t i;

	a->fixed = 0;
	a->sib_pos = -1;
	a->has_code = false;
	for (i = 0; i < a->nspec; i++) {
		uint64_t attr = specs[a->spec + 3 * i], form = specs[a->spec + 3 * i + 1];
		int sz = a->fixed < 0 ? 0 : form_size(form, u);

		if (attr == DW_AT_low_pc || attr == DW_AT_ranges)
			a->has_code = true;
		if (a->fixed < 0)
			continue;
		if (sz < 0) {
			a->fixed = -1;
			continue;
		}
		if (attr == DW_AT_sibling && form >= DW_FORM_ref1 && form <= DW_FORM_ref8) {
			a->sib_pos = a->fixed;
			a->sib_size = sz;
		}
		a->fixed += sz;
	}
	if (a->fixed < 0)
		abbrev_steps(a, specs, u);
}

/*
 * The abbreviation table at @off, indexed by code, into arrays that are reused from unit to
 * unit (*acap, *scap: their capacities); codes below *nabbrevs without an entry have tag 0.
 */
static int load_abbrevs(const struct line_sects *sec, uint64_t off, struct abbrev **abbrevs,
			size_t *acap, size_t *nabbrevs, uint64_t **specs, size_t *scap,
			const struct scan *u)
{
	struct scan r = { sec->abbrev + off, sec->abbrev + sec->abbrev_sz, 0, 0, 0, false };
	size_t n = 0, nspec = 0;
	uint64_t code;

	*nabbrevs = 0;
	if (off >= sec->abbrev_sz)
		return -ENOTSUP;
	while ((code = sc_uleb(&r)) != 0 && !r.bad) {
		struct abbrev *a;
		uint64_t attr, form;

		/* codes are small and dense in practice; refuse anything else */
		if (code > 1000000)
			return -ENOTSUP;
		if (code >= *acap) {
			size_t ncap = *acap ? *acap : 256;
			struct abbrev *na;

			while (ncap <= code)
				ncap *= 2;
			na = realloc(*abbrevs, ncap * sizeof(*na));
			if (!na)
				return -ENOMEM;
			*abbrevs = na;
			*acap = ncap;
		}
		if (code >= n) {
			/* only the tag marks an entry as defined */
			for (; n <= code; n++)
				(*abbrevs)[n].tag = 0;
		}
		a = &(*abbrevs)[code];
		a->tag = sc_uleb(&r);
		a->children = sc_u(&r, 1);
		a->spec = nspec;
		for (;;) {
			attr = sc_uleb(&r);
			form = sc_uleb(&r);
			if (r.bad)
				return -EINVAL;
			if (!attr && !form)
				break;
			if (nspec + 3 > *scap) {
				size_t ncap = *scap ? *scap * 2 : 1024;
				uint64_t *ns = realloc(*specs, ncap * sizeof(*ns));

				if (!ns)
					return -ENOMEM;
				*specs = ns;
				*scap = ncap;
			}
			(*specs)[nspec++] = attr;
			(*specs)[nspec++] = form;
			/* an implicit constant's value lives here, not in the DIE */
			(*specs)[nspec++] = form == DW_FORM_implicit_const ? (uint64_t)sc_sleb(&r) : 0;
		}
		a->nspec = (nspec - a->spec) / 3;
		abbrev_layout(a, *specs, u);
		if (!a->tag)
			return -EINVAL;
	}
	*nabbrevs = n;
	return r.bad ? -EINVAL : 0;
}

/*
 * The DIE at @off of @cu's unit. Dwarf_Die is a public struct: built from the CU DIE, it
 * skips dwarf_offdie()'s search for the CU (a tree lookup per DIE); libdw reads the
 * abbreviation lazily when abbrev is NULL.
 */
static void die_at(struct cu *cu, Dwarf_Off off, Dwarf_Die *die)
{
	*die = cu->die;
	die->addr = (char *)cu->die.addr + (off - cu->die_off);
	die->abbrev = NULL;
}

static int add_func(struct cu *cu, Dwarf_Off off, int scope)
{
	struct func *f = grow(cu->funcs, &cu->cap_funcs, cu->nfuncs + 1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	cu->funcs = f;
	cu->scopes[scope].func = cu->nfuncs;
	cu->funcs[cu->nfuncs++] = (struct func){ .off = off, .scope = scope };
	return 0;
}

/*
 * Position @r at the start of @cu's unit (end, offset and address size, version) and make
 * the symbolizer's abbreviation table the unit's. -ENOTSUP: leave the unit to libdw.
 */
static int unit_open(struct symbolizer *s, struct cu *cu, struct scan *r)
{
	const struct line_sects *sec = &s->sects;
	uint64_t len, abbrev_off;
	int err;

	if (!sec->info || !sec->abbrev || cu->unit_off >= sec->info_sz ||
	    cu->die_off >= sec->info_sz)
		return -ENOTSUP;
	*r = (struct scan){ sec->info + cu->unit_off, sec->info + sec->info_sz, 4, 8, 0, false };
	len = sc_u(r, 4);
	if (len == 0xffffffff) {
		len = sc_u(r, 8);
		r->offsz = 8;
	}
	if (r->bad || len > (uint64_t)(r->end - r->p))
		return -ENOTSUP;
	r->end = r->p + len;
	r->version = sc_u(r, 2);
	if (r->version >= 5) {
		sc_u(r, 1);	/* unit type */
		r->addrsz = sc_u(r, 1);
		abbrev_off = sc_u(r, r->offsz);
	} else if (r->version >= 2) {
		abbrev_off = sc_u(r, r->offsz);
		r->addrsz = sc_u(r, 1);
	} else {
		return -ENOTSUP;
	}
	if (r->bad || (r->addrsz != 4 && r->addrsz != 8) ||
	    (uint64_t)(sec->info + cu->die_off - r->p) > (uint64_t)(r->end - r->p))
		return -ENOTSUP;
	if (!s->ab_valid || s->ab_off != abbrev_off || s->ab_unit[0] != r->offsz ||
	    s->ab_unit[1] != r->addrsz || s->ab_unit[2] != r->version) {
		s->ab_valid = false;
		err = load_abbrevs(sec, abbrev_off, &s->ab, &s->ab_cap, &s->nab, &s->ab_specs,
				   &s->ab_specs_cap, r);
		if (err)
			return err;
		s->ab_valid = true;
		s->ab_off = abbrev_off;
		s->ab_unit[0] = r->offsz;
		s->ab_unit[1] = r->addrsz;
		s->ab_unit[2] = r->version;
	}
	return 0;
}

/* A NUL-terminated string at @off of a string section, NULL if it is not one. */
static const char *sect_cstr(const unsigned char *sec, size_t sz, uint64_t off)
{
	if (!sec || off >= sz || !memchr(sec + off, 0, sz - off))
		return NULL;
	return (const char *)sec + off;
}

/* Read the DIE at .debug_info offset @off of the open unit @u; -ENOTSUP for what libdw must do. */
static int read_die(const struct symbolizer *s, const struct scan *u, uint64_t off,
		    struct die_vals *v)
{
	const struct line_sects *sec = &s->sects;
	struct scan r = *u;
	const struct abbrev *a;
	uint64_t code;
	uint32_t i;

	memset(v, 0, sizeof(*v));
	r.p = sec->info + off;
	if (r.p < u->p || r.p >= u->end)
		return -ENOTSUP;
	code = sc_uleb(&r);
	if (r.bad || !code || code >= s->nab || !s->ab[code].tag)
		return -ENOTSUP;
	a = &s->ab[code];
	for (i = 0; i < a->nspec; i++) {
		const uint64_t *sp = &s->ab_specs[a->spec + 3 * i];
		uint64_t attr = sp[0], form = sp[1], val = 0, ref;
		const char *str = NULL;
		bool is_str = false, is_ref = false, is_const = false, is_addr = false;

		switch (form) {
		case DW_FORM_addr:
			val = sc_u(&r, r.addrsz);
			is_addr = true;
			break;
		case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
			val = sc_u(&r, form == DW_FORM_data1 ? 1 : form == DW_FORM_data2 ? 2 :
				   form == DW_FORM_data4 ? 4 : 8);
			is_const = true;
			break;
		case DW_FORM_udata:
			val = sc_uleb(&r);
			is_const = true;
			break;
		case DW_FORM_implicit_const:
			val = sp[2];
			is_const = true;
			break;
		case DW_FORM_sec_offset:
			val = sc_u(&r, r.offsz);
			break;
		case DW_FORM_ref1: case DW_FORM_ref2: case DW_FORM_ref4: case DW_FORM_ref8:
			val = sc_u(&r, form == DW_FORM_ref1 ? 1 : form == DW_FORM_ref2 ? 2 :
				   form == DW_FORM_ref4 ? 4 : 8);
			is_ref = true;
			break;
		case DW_FORM_ref_udata:
			val = sc_uleb(&r);
			is_ref = true;
			break;
		case DW_FORM_strp:
			str = sect_cstr(sec->str, sec->str_sz, sc_u(&r, r.offsz));
			is_str = true;
			break;
		case DW_FORM_line_strp:
			str = sect_cstr(sec->line_str, sec->line_str_sz, sc_u(&r, r.offsz));
			is_str = true;
			break;
		case DW_FORM_string:
			str = (const char *)r.p;
			if (sc_form(&r, form, &ref))
				return -ENOTSUP;
			is_str = true;
			break;
		default:
			if (sc_form(&r, form, &ref))
				return -ENOTSUP;
			/* any other form of an attribute that matters: libdw knows more */
			switch (attr) {
			case DW_AT_low_pc: case DW_AT_high_pc: case DW_AT_ranges: case DW_AT_name:
			case DW_AT_linkage_name: case DW_AT_MIPS_linkage_name: case DW_AT_abstract_origin:
			case DW_AT_specification: case DW_AT_call_file: case DW_AT_call_line:
			case DW_AT_call_column: case DW_AT_comp_dir: case DW_AT_stmt_list:
				return -ENOTSUP;
			}
			continue;
		}
		if (r.bad)
			return -ENOTSUP;
		switch (attr) {
		case DW_AT_low_pc:
			if (!is_addr)
				return -ENOTSUP;
			v->low = val;
			v->has_low = true;
			break;
		case DW_AT_high_pc:
			if (!is_addr && !is_const)
				return -ENOTSUP;
			v->high = val;
			v->has_high = true;
			v->high_is_off = is_const;
			break;
		case DW_AT_ranges:
		case DW_AT_stmt_list:
			/* section offsets; DWARF 2/3 put them in data4/data8 */
			if (form != DW_FORM_sec_offset &&
			    !(u->version < 4 && (form == DW_FORM_data4 || form == DW_FORM_data8)))
				return -ENOTSUP;
			if (attr == DW_AT_ranges) {
				v->ranges = val;
				v->has_ranges = true;
			} else {
				v->stmt_list = val;
				v->has_stmt_list = true;
			}
			break;
		case DW_AT_name:
		case DW_AT_linkage_name:
		case DW_AT_MIPS_linkage_name:
		case DW_AT_comp_dir:
			if (!is_str || !str)
				return -ENOTSUP;
			if (attr == DW_AT_name)
				v->name = str;
			else if (attr == DW_AT_comp_dir)
				v->comp_dir = str;
			else if (!v->linkage_name)
				v->linkage_name = str;
			break;
		case DW_AT_abstract_origin:
		case DW_AT_specification:
			if (!is_ref || !val)
				return -ENOTSUP;
			if (attr == DW_AT_abstract_origin || !v->origin)
				v->origin = val;
			break;
		case DW_AT_call_file:
		case DW_AT_call_line:
		case DW_AT_call_column:
			if (!is_const)
				return -ENOTSUP;
			if (attr == DW_AT_call_file) {
				v->call_file = val;
				v->has_call_file = true;
			} else if (attr == DW_AT_call_line) {
				v->call_line = val;
				v->has_call_line = true;
			} else {
				v->call_col = val;
				v->has_call_col = true;
			}
			break;
		}
	}
	return 0;
}

/* The CU DIE's attributes; libdw would parse the unit's whole abbreviation table for them. */
static int cu_read_own(struct symbolizer *s, struct cu *cu)
{
	struct die_vals v;
	struct scan u;
	int err;

	err = unit_open(s, cu, &u);
	if (!err)
		err = read_die(s, &u, cu->die_off, &v);
	if (err)
		return err;
	cu->comp_dir = v.comp_dir;
	cu->base = v.low;
	cu->has_base = v.has_low;
	cu->stmt_list = v.stmt_list;
	cu->has_stmt_list = v.has_stmt_list;
	return 0;
}

/*
 * The name of the DIE at @off the way libdw's dwarf_attr_integrate() finds it: DW_AT_name
 * on the DIE or along its abstract_origin/specification chain, else the linkage name.
 */
static int own_die_name(const struct symbolizer *s, const struct scan *u, uint64_t unit_off,
			const struct die_vals *first, const char **name)
{
	const char *linkage = NULL;
	struct die_vals v = *first;
	int hops = 0, err;

	for (;;) {
		if (v.name) {
			*name = v.name;
			return 0;
		}
		if (!linkage)
			linkage = v.linkage_name;
		if (!v.origin)
			break;
		if (++hops > 16)
			return -ENOTSUP;
		err = read_die(s, u, unit_off + v.origin, &v);
		if (err)
			return err;
	}
	/* dwarf_attr_integrate() follows the same chain for the linkage name */
	*name = linkage;
	return 0;
}

/* Append the ranges of a DW_AT_ranges list to the current range table. */
static int own_ranges(struct symbolizer *s, struct cu *cu, const struct scan *u, uint64_t off,
		      int depth, int *nr)
{
	const struct line_sects *sec = &s->sects;
	uint64_t base = cu->base, lo, hi;
	struct scan r = *u;
	int guard = 0;

	if (!cu->has_base)
		return -ENOTSUP;
	if (u->version >= 5) {
		if (!sec->rnglists || off >= sec->rnglists_sz)
			return -ENOTSUP;
		r.p = sec->rnglists + off;
		r.end = sec->rnglists + sec->rnglists_sz;
	} else {
		if (!sec->ranges || off >= sec->ranges_sz)
			return -ENOTSUP;
		r.p = sec->ranges + off;
		r.end = sec->ranges + sec->ranges_sz;
	}
	for (;;) {
		if (++guard > 1000000)
			return -ENOTSUP;
		if (u->version >= 5) {
			unsigned int kind = sc_u(&r, 1);

			if (r.bad)
				return -ENOTSUP;
			if (kind == DW_RLE_end_of_list)
				break;
			switch (kind) {
			case DW_RLE_offset_pair:
				lo = base + sc_uleb(&r);
				hi = base + sc_uleb(&r);
				break;
			case DW_RLE_base_address:
				base = sc_u(&r, r.addrsz);
				continue;
			case DW_RLE_start_end:
				lo = sc_u(&r, r.addrsz);
				hi = sc_u(&r, r.addrsz);
				break;
			case DW_RLE_start_length:
				lo = sc_u(&r, r.addrsz);
				hi = lo + sc_uleb(&r);
				break;
			default:
				return -ENOTSUP;	/* indexed forms need .debug_addr */
			}
		} else {
			uint64_t max = r.addrsz == 8 ? ~(uint64_t)0 : 0xffffffffu;

			lo = sc_u(&r, r.addrsz);
			hi = sc_u(&r, r.addrsz);
			if (!lo && !hi)
				break;
			if (lo == max) {
				base = hi;
				continue;
			}
			lo += base;
			hi += base;
		}
		if (r.bad)
			return -ENOTSUP;
		if (push_range(cu, lo, hi, depth, nr))
			return -ENOMEM;
	}
	return r.bad ? -ENOTSUP : 0;
}

/*
 * add_scope() for the DIE at @off of the open unit @u, reading it with the own scanner;
 * libdw (which parses the unit's abbreviations once more) only for what that cannot read.
 */
static int add_scope_at(struct symbolizer *s, struct cu *cu, const struct scan *u, Dwarf_Off off,
			int parent, int depth)
{
	int nr = 0, saved = cu->cur->n, err;
	struct die_vals v;
	const char *name;
	struct scope *sc;
	Dwarf_Die die;

	err = read_die(s, u, off, &v);
	if (!err) {
		/* as dwarf_ranges(): low/high pc first, else the range list */
		if (v.has_low && v.has_high)
			err = push_range(cu, v.low, v.high_is_off ? v.low + v.high : v.high, depth, &nr);
		else if (v.has_ranges)
			err = own_ranges(s, cu, u, v.ranges, depth, &nr);
	}
	if (!err && nr)
		err = own_die_name(s, u, cu->unit_off, &v, &name);
	if (err == -ENOMEM)
		return err;
	if (err) {
		cu->cur->n = saved;
		die_at(cu, off, &die);
		return add_scope(s, cu, &die, parent, depth);
	}
	if (!nr)
		return -1;
	sc = new_scope(cu, name, parent);
	if (!sc)
		return -ENOMEM;
	if (parent >= 0) {
		sc->call_file = v.has_call_file ? cu_file(s, cu, v.call_file) : "??";
		if (v.has_call_line)
			sc->call_line = (int)v.call_line;
		if (v.has_call_col)
			sc->call_col = (int)v.call_col;
	}
	return cu->nscopes++;
}

/*
 * Fast DIE scan. Walking a CU with dwarf_child/dwarf_siblingof costs an attribute search
 * per DIE (for DW_AT_sibling) plus locking; most DIEs of a kernel CU are types we skip.
 * This reads .debug_info linearly with the CU's abbreviations, skips uninteresting
 * subtrees by DW_AT_sibling when present, and reads subprogram/inline DIEs with
 * read_die() (libdw only for what that cannot read). It makes the same decisions as
 * index_children(); -ENOTSUP falls back to that.
 *
 * Without @fn: the CU's top-level functions, into cu->all and cu->funcs. With @fn: the
 * inlined subroutines of that function, into its own table.
 */
static int scan_cu(struct symbolizer *s, struct cu *cu, struct func *fn)
{
	const struct line_sects *sec = &s->sects;
	struct { int pscope; bool want; } st[MAX_DIE_DEPTH + 1];
	struct abbrev *abbrevs;
	uint64_t *specs;
	size_t nabbrevs;
	struct scan r, unit;
	int depth = 0, err;
	bool root = true;

	err = unit_open(s, cu, &r);
	if (err)
		return err;
	unit = r;	/* unit.p: where DIEs may start */
	abbrevs = s->ab;
	specs = s->ab_specs;
	nabbrevs = s->nab;

	r.p = sec->info + (fn ? fn->off : cu->die_off);
	while (r.p < r.end) {
		Dwarf_Off off = r.p - sec->info;
		uint64_t code = sc_uleb(&r), sib = 0, ref;
		struct abbrev *a;
		bool want = false;
		int pscope = -1, idx;
		uint32_t i;

		if (r.bad) {
			err = -ENOTSUP;
			goto cleanup;
		}
		if (!code) {
			if (--depth <= 0)
				break;	/* end of the CU DIE's children */
			continue;
		}
		if (code >= nabbrevs || !abbrevs[code].tag) {
			err = -ENOTSUP;
			goto cleanup;
		}
		a = &abbrevs[code];
		if (a->fixed >= 0) {
			if (r.end - r.p < a->fixed) {
				err = -ENOTSUP;
				goto cleanup;
			}
			if (a->sib_pos >= 0) {
				struct scan v = { r.p + a->sib_pos, r.end, 0, 0, 0, false };

				sib = sc_u(&v, a->sib_size);
			}
			r.p += a->fixed;
		}
		if (a->fixed < 0 && a->nstep) {
			sib = run_steps(&r, a);
			if (r.bad) {
				err = -ENOTSUP;
				goto cleanup;
			}
		}
		for (i = 0; a->fixed < 0 && !a->nstep && i < a->nspec; i++) {
			uint64_t attr = specs[a->spec + 3 * i], form = specs[a->spec + 3 * i + 1];

			err = sc_form(&r, form, &ref);
			if (err) {
				err = -ENOTSUP;
				goto cleanup;
			}
			if (attr == DW_AT_sibling && ref)
				sib = ref;
		}
		if (root) {
			/* the CU DIE: its children are top level; or the function's DIE */
			root = false;
			if (!a->children)
				break;
			depth = 1;
			st[1].want = true;
			st[1].pscope = fn ? fn->scope : -1;
			continue;
		}
		if (st[depth].want) {
			int ps = st[depth].pscope;

			switch (a->tag) {
			case DW_TAG_subprogram:
				/* declarations and abstract instances: no code, no libdw calls */
				if (ps >= 0 || !a->has_code)
					break;
				idx = add_scope_at(s, cu, &unit, off, -1, depth - 1);
				if (idx == -ENOMEM) {
					err = idx;
					goto cleanup;
				}
				if (idx >= 0) {
					err = add_func(cu, off, idx);
					if (err)
						goto cleanup;
				}
				break;	/* its insides wait until an address needs them */
			case DW_TAG_inlined_subroutine:
				if (ps < 0)
					break;
				idx = -1;
				if (a->has_code) {
					idx = add_scope_at(s, cu, &unit, off, ps, depth);
					if (idx == -ENOMEM) {
						err = idx;
						goto cleanup;
					}
				}
				want = true;
				pscope = idx >= 0 ? idx : ps;
				break;
			case DW_TAG_lexical_block:
				want = ps >= 0;
				pscope = ps;
				break;
			case DW_TAG_namespace:
				want = ps < 0;
				pscope = ps;
				break;
			default:
				break;
			}
		}
		if (!a->children)
			continue;
		if (!want && sib) {
			const unsigned char *to = sec->info + cu->unit_off + sib;

			/* trust DW_AT_sibling only when it points forward inside the unit */
			if (to > r.p && to <= r.end) {
				r.p = to;
				continue;
			}
		}
		if (depth >= MAX_DIE_DEPTH) {
			err = -ENOTSUP;
			goto cleanup;
		}
		depth++;
		st[depth].want = want;
		st[depth].pscope = pscope;
	}
	err = 0;
cleanup:
	return err;
}

static int cmp_srange(const void *a, const void *b)
{
	const struct srange *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1;	/* wider (outer) first */
	return x->depth - y->depth;
}

/* Sort a range table and link every range to the nearest earlier range enclosing its start. */
static int finish_rtab(struct rtab *t)
{
	int *stack, top = 0, i;

	if (t->n)
		qsort(t->r, t->n, sizeof(*t->r), cmp_srange);
	stack = malloc(sizeof(*stack) * (t->n + 1));
	if (!stack)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		struct srange *r = &t->r[i];

		while (top > 0 && t->r[stack[top - 1]].hi <= r->lo)
			top--;
		r->up = top > 0 ? stack[top - 1] : -1;
		stack[top++] = i;
	}
	free(stack);
	return 0;
}

static void reset_index(struct cu *cu)
{
	int i;

	for (i = 0; i < cu->nfuncs; i++)
		free(cu->funcs[i].tab.r);
	cu->nfuncs = 0;
	cu->nscopes = 0;
	cu->all.n = 0;
	cu->cur = &cu->all;
}

/* Something the fast scan doesn't know: index the whole CU with libdw's walk. */
static int index_flat(struct symbolizer *s, struct cu *cu)
{
	int err;

	reset_index(cu);
	cu->flat = true;
	err = index_children(s, cu, &cu->die, -1, 0);
	return err ?: finish_rtab(&cu->all);
}

static int index_cu(struct symbolizer *s, struct cu *cu)
{
	int err;

	if (cu->indexed)
		return 0;
	cu->indexed = true;
	cu->cur = &cu->all;
	err = scan_cu(s, cu, NULL);
	if (err == -ENOTSUP)
		return index_flat(s, cu);
	return err ?: finish_rtab(&cu->all);
}

static int expand_func(struct symbolizer *s, struct cu *cu, struct func *fn)
{
	int err;

	fn->expanded = true;
	cu->cur = &fn->tab;
	err = scan_cu(s, cu, fn);
	cu->cur = &cu->all;
	if (err == -ENOTSUP)
		return index_flat(s, cu);
	return err ?: finish_rtab(&fn->tab);
}

/* Innermost scope of a table whose ranges contain addr, -1 if none. */
static int find_in(const struct rtab *t, uint64_t addr)
{
	int lo = 0, hi = t->n, i;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (t->r[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * Ranges nest; anything containing addr but not the last range starting
	 * before it must enclose that range, so climbing 'up' finds it.
	 */
	for (i = lo - 1; i >= 0; i = t->r[i].up) {
		if (addr < t->r[i].hi)
			return t->r[i].scope;
	}
	return -1;
}

/* Innermost scope at addr: the function, then (indexed on first use) its inlines. */
static int find_scope(struct symbolizer *s, struct cu *cu, uint64_t addr)
{
	int sid = find_in(&cu->all, addr), in, err;
	struct func *fn;

	if (sid < 0 || cu->flat || cu->scopes[sid].func < 0)
		return sid;
	fn = &cu->funcs[cu->scopes[sid].func];
	if (!fn->expanded) {
		err = expand_func(s, cu, fn);
		if (err)
			return err;
		if (cu->flat)
			return find_in(&cu->all, addr);
	}
	in = find_in(&fn->tab, addr);
	return in >= 0 ? in : sid;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->rank - y->rank;
}

static bool in_exec(const struct symbolizer *s, uint64_t addr)
{
	int i;

	for (i = 0; i < s->nsecs; i++) {
		if (addr >= s->secs[i].lo && addr < s->secs[i].hi)
			return true;
	}
	return false;
}

static int load_syms(struct symbolizer *s)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;
	int pass;

	if (s->syms_loaded)
		return 0;
	s->syms_loaded = true;
	/* .symtab if there is one, else .dynsym */
	for (pass = 0; pass < 2 && !s->nsyms; pass++) {
		Elf32_Word want = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;

		scn = NULL;
		while ((scn = elf_nextscn(s->elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *data;
			size_t i, n;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != want || !sh.sh_entsize)
				continue;
			data = elf_getdata(scn, NULL);
			if (!data)
				continue;
			n = sh.sh_size / sh.sh_entsize;
			for (i = 0; i < n; i++) {
				GElf_Sym sym;
				const char *name;
				int type, rank;

				if (!gelf_getsym(data, i, &sym))
					continue;
				type = GELF_ST_TYPE(sym.st_info);
				if (type != STT_FUNC && type != STT_NOTYPE)
					continue;
				if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
					continue;
				if (!in_exec(s, sym.st_value))
					continue;
				name = elf_strptr(s->elf, sh.sh_link, sym.st_name);
				if (!name || !*name)
					continue;
				rank = type == STT_FUNC ? 0 : 2;
				if (GELF_ST_BIND(sym.st_info) == STB_LOCAL)
					rank++;
				if (s->nsyms == cap) {
					struct sym *ns;

					cap = cap ? cap * 2 : 4096;
					ns = realloc(s->syms, cap * sizeof(*ns));
					if (!ns)
						return -ENOMEM;
					s->syms = ns;
				}
				s->syms[s->nsyms++] = (struct sym){ sym.st_value, name, rank };
			}
		}
	}
	if (s->nsyms)
		qsort(s->syms, s->nsyms, sizeof(*s->syms), cmp_sym);
	return 0;
}

static const char *sym_name(struct symbolizer *s, uint64_t addr)
{
	size_t lo = 0, hi;

	if (load_syms(s) || !s->nsyms)
		return NULL;
	hi = s->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	lo--;
	/* best-ranked symbol at that address comes first */
	while (lo > 0 && s->syms[lo - 1].addr == s->syms[lo].addr)
		lo--;
	return s->syms[lo].name;
}

int symbolizer__symbolize(struct symbolizer *s, uint64_t addr, struct symb_frame *frames, int max)
{
	int chain[SYMB_MAX_FRAMES], n = 0, i, sid, err;
	const char *file = "??";
	int line = 0, col = 0;
	struct cu *cu;

	if (max <= 0)
		return -EINVAL;
	if (max > SYMB_MAX_FRAMES)
		max = SYMB_MAX_FRAMES;
	if (!in_exec(s, addr))
		return -ERANGE;

	cu = s->dw ? find_cu(s, addr) : NULL;
	if (cu) {
		uint64_t t0, t1;

		if (!cu->indexed) {
			t1 = now_ns();
			s->stats.cus_indexed++;
			err = index_cu(s, cu);
			s->stats.index_ns += now_ns() - t1;
			if (err)
				return err;
		}
		t0 = now_ns();
		if (cu_lines(s, cu)) {
			const struct line_row *row = line_table__find(&cu->lt, addr);

			if (row) {
				file = cu_own_file(s, cu, row->file);
				line = row->line;
				col = row->col;
			}
		} else {
			Dwarf_Line *dl = dwarf_getsrc_die(&cu->die, addr);

			if (dl) {
				file = norm_cached(s, dwarf_linesrc(dl, NULL, NULL), cu->comp_dir);
				dwarf_lineno(dl, &line);
				dwarf_linecol(dl, &col);
			}
		}
		t1 = now_ns();
		s->stats.lines_ns += t1 - t0;
		sid = find_scope(s, cu, addr);
		if (sid < -1)
			return sid;
		s->stats.index_ns += now_ns() - t1;
		/* innermost first into chain[]; keep the innermost 'max' if deeper */
		for (; sid >= 0 && n < max; sid = cu->scopes[sid].parent)
			chain[n++] = sid;
	}
	if (!n) {
		const char *name = sym_name(s, addr);

		if (!name && !line)
			return 0;
		frames[0] = (struct symb_frame){ name ?: "??", file, line, col };
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct scope *sc = &cu->scopes[chain[n - 1 - i]];
		struct symb_frame *f = &frames[i];

		f->func = sc->name;
		if (i < n - 1) {
			/* where this function calls (inlines) the next, inner one */
			struct scope *in = &cu->scopes[chain[n - 2 - i]];

			f->file = in->call_file ?: "??";
			f->line = in->call_line;
			f->col = in->call_col;
		} else {
			f->file = file;
			f->line = line;
			f->col = col;
		}
	}
	return n;
}

static int die_entry_addr(Dwarf_Die *die, Dwarf_Addr *addr)
{
	Dwarf_Addr base, hi;

	if (dwarf_lowpc(die, addr) == 0 || dwarf_entrypc(die, addr) == 0)
		return 0;
	return dwarf_ranges(die, 0, &base, addr, &hi) > 0 ? 0 : -ENOENT;
}

int symbolizer__for_each_func_in(struct symbolizer *s, const char *glob, symb_func_cb cb, void *ctx)
{
	size_t i;
	int err;

	if (!s->dw)
		return -ENODATA;
	err = load_cus(s);
	if (err)
		return err;
	for (i = 0; i < s->ncus; i++) {
		struct cu *cu = &s->cus[i];
		const char *name, *path;
		Dwarf_Die child;

		if (cu_load_die(s, cu, false))
			continue;
		name = dwarf_diename(&cu->die);
		if (!name)
			continue;
		path = norm_cached(s, name, cu->comp_dir);
		/* no FNM_PATHNAME: '*' crosses '/', like the original */
		if (fnmatch(glob, path, 0) != 0)
			continue;
		if (dwarf_child(&cu->die, &child) != 0)
			continue;
		do {
			Dwarf_Addr addr;
			const char *fn;

			if (dwarf_tag(&child) != DW_TAG_subprogram)
				continue;
			if (dwarf_hasattr(&child, DW_AT_declaration))
				continue;
			if (die_entry_addr(&child, &addr))
				continue;	/* abstract (inline-only) instance, no code */
			fn = die_name(&child);
			if (!fn)
				continue;
			err = cb(ctx, fn, addr, path);
			if (err)
				return err;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return 0;
}

int symbolizer__is_kernel(const struct symbolizer *s)
{
	return s->kernel;
}

const struct symb_stats *symbolizer__stats(const struct symbolizer *s)
{
	return &s->stats;
}

size_t symbolizer__cu_count(struct symbolizer *s)
{
	load_cus(s);
	return s->ncus;
}

/* Raw sections for the own line-table decoder; compressed or big-endian ones go to libdw. */
static void note_debug_sect(struct symbolizer *s, Elf_Scn *scn, GElf_Shdr *sh, const char *name)
{
	const unsigned char **p;
	size_t *sz;
	Elf_Data *d;

	if (strcmp(name, ".debug_line") == 0) {
		p = &s->sects.line;
		sz = &s->sects.line_sz;
	} else if (strcmp(name, ".debug_line_str") == 0) {
		p = &s->sects.line_str;
		sz = &s->sects.line_str_sz;
	} else if (strcmp(name, ".debug_info") == 0) {
		p = &s->sects.info;
		sz = &s->sects.info_sz;
	} else if (strcmp(name, ".debug_abbrev") == 0) {
		p = &s->sects.abbrev;
		sz = &s->sects.abbrev_sz;
	} else if (strcmp(name, ".debug_str") == 0) {
		p = &s->sects.str;
		sz = &s->sects.str_sz;
	} else if (strcmp(name, ".debug_rnglists") == 0) {
		p = &s->sects.rnglists;
		sz = &s->sects.rnglists_sz;
	} else if (strcmp(name, ".debug_ranges") == 0) {
		p = &s->sects.ranges;
		sz = &s->sects.ranges_sz;
	} else {
		return;
	}
	if (sh->sh_type == SHT_NOBITS || (sh->sh_flags & SHF_COMPRESSED))
		return;
	d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf)
		return;
	*p = d->d_buf;
	*sz = d->d_size;
}

int symbolizer__open(const char *path, struct symbolizer **out)
{
	struct symbolizer *s;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int err = 0, cap = 0;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		err = -errno;
		goto cleanup;
	}
	/* mmap, never read the (300+ MB) file whole */
	s->elf = elf_begin(s->fd, ELF_C_READ_MMAP, NULL);
	if (!s->elf || elf_kind(s->elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto cleanup;
	}
	if (elf_getshdrstrndx(s->elf, &shstrndx)) {
		err = -ENOEXEC;
		goto cleanup;
	}
	while ((scn = elf_nextscn(s->elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(s->elf, shstrndx, sh.sh_name);
		if (name && strcmp(name, "__ksymtab_strings") == 0)
			s->kernel = true;
		if (name && strncmp(name, ".debug_", 7) == 0)
			note_debug_sect(s, scn, &sh, name);
		if (!(sh.sh_flags & SHF_ALLOC) || !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
			continue;
		if (sh.sh_type == SHT_NOBITS)
			continue;
		s->secs = grow(s->secs, &cap, s->nsecs + 1, sizeof(*s->secs));
		if (!s->secs) {
			err = -ENOMEM;
			goto cleanup;
		}
		s->secs[s->nsecs++] = (struct exec_sec){ sh.sh_addr, sh.sh_addr + sh.sh_size };
	}
	if (elf_getident(s->elf, NULL)[EI_DATA] != ELFDATA2LSB)
		memset(&s->sects, 0, sizeof(s->sects));
	/* no DWARF is not fatal: the symbol table still names functions */
	s->dw = dwarf_begin_elf(s->elf, DWARF_C_READ, NULL);
	*out = s;
	return 0;

cleanup:
	symbolizer__close(s);
	return err;
}

void symbolizer__close(struct symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->ncus; i++) {
		struct cu *cu = &s->cus[i];

		if (cu->paths) {
			size_t j;

			for (j = 0; j < cu->lt.nfiles; j++)
				free(cu->paths[j]);
			free(cu->paths);
		}
		line_table__free(&cu->lt);
		reset_index(cu);
		free(cu->funcs);
		free(cu->scopes);
		free(cu->all.r);
	}
	free(s->cus);
	free(s->cu_ranges);
	free(s->ab);
	free(s->ab_specs);
	free(s->syms);
	for (i = 0; i < s->norm_cap; i++)
		free(s->norm[i].val);
	free(s->norm);
	free(s->secs);
	if (s->dw)
		dwarf_end(s->dw);
	if (s->elf)
		elf_end(s->elf);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}
