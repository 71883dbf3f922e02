// SPDX-License-Identifier: BSD-2-Clause
/*
 * The own DIE scanner. Walking a CU with dwarf_child/dwarf_siblingof costs an attribute
 * search per DIE (for DW_AT_sibling) plus locking, and most DIEs of a kernel CU are types
 * we skip. This reads .debug_info linearly with the unit's compiled abbreviations
 * (abbrev.c) and reads the few DIEs that matter (the CU DIE, subprograms and inlined
 * subroutines with code, their abstract origins, range lists) itself. Anything it does not
 * know goes to libdw: one DIE through die_walk_add_scope(), or the whole CU (-ENOTSUP).
 *
 * Every offset read from the file is checked against its section before it becomes a
 * pointer: corrupt DWARF must not make pointer arithmetic leave the mapped buffer.
 */
#include <errno.h>
#include <string.h>
#include <dwarf.h>

#include "symbolizer_int.h"

/* The values of one DIE that the index needs, read without libdw. */
struct die_vals {
	uint64_t low, high, ranges, stmt_list;
	uint64_t origin;	/* unit-relative abstract_origin, else specification; 0: none */
	uint64_t call_file, call_line, call_col;
	const char *name, *linkage_name, *comp_dir;
	bool has_low, has_high, high_is_off, has_ranges, has_stmt_list;
	bool has_call_file, has_call_line, has_call_col;
};

/*
 * Position @r at the start of @cu's unit (end, offset and address size, version) and make
 * the symbolizer's abbreviation table the unit's. -ENOTSUP: leave the unit to libdw.
 */
static int unit_open(struct symbolizer *s, struct cu *cu, struct scan *r)
{
	const struct line_sects *sec = &s->sects;
	uint64_t len, abbrev_off;

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
	return abbrev_table__load(&s->abbrevs, sec->abbrev, sec->abbrev_sz, abbrev_off, r);
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
	const struct abbrev_table *ab = &s->abbrevs;
	const struct line_sects *sec = &s->sects;
	struct scan r = *u;
	const struct abbrev *a;
	uint64_t code;
	uint32_t i;

	memset(v, 0, sizeof(*v));
	/* @off may come from a reference in the file: inside the unit's DIEs, or no pointer */
	if (off < (uint64_t)(u->p - sec->info) || off >= (uint64_t)(u->end - sec->info))
		return -ENOTSUP;
	r.p = sec->info + off;
	code = sc_uleb(&r);
	if (r.bad || !code || code >= ab->n || !ab->ab[code].tag)
		return -ENOTSUP;
	a = &ab->ab[code];
	for (i = 0; i < a->nspec; i++) {
		const uint64_t *sp = &ab->specs[a->spec + 3 * i];
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
int scan_cu_die(struct symbolizer *s, struct cu *cu)
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
		if (scope_push_range(cu, lo, hi, depth, nr))
			return -ENOMEM;
	}
	return r.bad ? -ENOTSUP : 0;
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

/*
 * A scope for the DIE at @off of the open unit @u, read with the own scanner; libdw (which
 * parses the unit's abbreviations once more) only for what that cannot read.
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
			err = scope_push_range(cu, v.low, v.high_is_off ? v.low + v.high : v.high, depth, &nr);
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
		return die_walk_add_scope(s, cu, &die, parent, depth);
	}
	if (!nr)
		return -1;
	sc = scope_new(cu, name, parent);
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
 * The linear scan: skips uninteresting subtrees by DW_AT_sibling when present, reads
 * subprogram/inline DIEs with read_die(). It makes the same decisions as die_walk.c's
 * index_children(), which tests/sidecar/test_walkers.c checks.
 */
int scan_cu(struct symbolizer *s, struct cu *cu, struct func *fn)
{
	const struct line_sects *sec = &s->sects;
	struct { int pscope; bool want; } st[MAX_DIE_DEPTH + 1];
	const struct abbrev *abbrevs;
	const uint64_t *specs;
	size_t nabbrevs;
	const unsigned char *unit_start;
	struct scan r, unit;
	int depth = 0, err;
	uint64_t unit_len;
	bool root = true;

	err = unit_open(s, cu, &r);
	if (err)
		return err;
	unit = r;	/* unit.p: where DIEs may start */
	unit_start = sec->info + cu->unit_off;
	unit_len = r.end - unit_start;
	abbrevs = s->abbrevs.ab;
	specs = s->abbrevs.specs;
	nabbrevs = s->abbrevs.n;

	r.p = sec->info + (fn ? fn->off : cu->die_off);
	while (r.p < r.end) {
		Dwarf_Off off = r.p - sec->info;
		uint64_t code = sc_uleb(&r), sib = 0, ref;
		const struct abbrev *a;
		bool want = false;
		int pscope = -1, idx;
		uint32_t i;

		if (r.bad) {
			return -ENOTSUP;
		}
		if (!code) {
			if (--depth <= 0)
				break;	/* end of the CU DIE's children */
			continue;
		}
		if (code >= nabbrevs || !abbrevs[code].tag) {
			return -ENOTSUP;
		}
		a = &abbrevs[code];
		if (a->fixed >= 0) {
			if (r.end - r.p < a->fixed) {
				return -ENOTSUP;
			}
			if (a->sib_pos >= 0) {
				struct scan v = { r.p + a->sib_pos, r.end, 0, 0, 0, false };

				sib = sc_u(&v, a->sib_size);
			}
			r.p += a->fixed;
		}
		if (a->fixed < 0 && a->nstep) {
			sib = abbrev__run_steps(&r, a);
			if (r.bad) {
				return -ENOTSUP;
			}
		}
		for (i = 0; a->fixed < 0 && !a->nstep && i < a->nspec; i++) {
			uint64_t attr = specs[a->spec + 3 * i], form = specs[a->spec + 3 * i + 1];

			err = sc_form(&r, form, &ref);
			if (err) {
				return -ENOTSUP;
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
					return idx;
				}
				if (idx >= 0) {
					err = scope_add_func(cu, off, idx);
					if (err)
						return err;
				}
				break;	/* its insides wait until an address needs them */
			case DW_TAG_inlined_subroutine:
				if (ps < 0)
					break;
				idx = -1;
				if (a->has_code) {
					idx = add_scope_at(s, cu, &unit, off, ps, depth);
					if (idx == -ENOMEM) {
						return idx;
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
		/*
		 * Trust DW_AT_sibling only when it points forward inside the unit, and check
		 * that on offsets: a pointer past the buffer is undefined behaviour already.
		 */
		if (!want && sib && sib <= unit_len && sib > (uint64_t)(r.p - unit_start)) {
			r.p = unit_start + sib;
			continue;
		}
		if (depth >= MAX_DIE_DEPTH) {
			return -ENOTSUP;
		}
		depth++;
		st[depth].want = want;
		st[depth].pscope = pscope;
	}
	return 0;
}

