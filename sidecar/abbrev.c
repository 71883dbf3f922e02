// SPDX-License-Identifier: BSD-2-Clause
/* Abbreviation tables compiled for the own DIE scanner (abbrev.h). */
#include <errno.h>
#include <stdlib.h>
#include <dwarf.h>

#include "abbrev.h"

/* Abbreviation codes are small and dense in practice; anything above is left to libdw. */
#define MAX_ABBREV_CODE 1000000

int sc_form(struct scan *r, uint64_t form, uint64_t *ref)
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
static inline int form_size(uint64_t form, const struct scan *u)
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

/*
 * Append a step; false when it does not fit. Constant sizes coalesce into the previous skip
 * only while the sum fits the argument field: a carry would change the step's kind.
 */
static inline bool add_step(struct abbrev *a, int kind, uint32_t arg)
{
	uint32_t *last = a->nstep ? &a->steps[a->nstep - 1] : NULL;

	if (arg > STEP_ARG_MAX)
		return false;
	if (kind == STEP_SKIP && last && *last >> STEP_SHIFT == STEP_SKIP &&
	    (*last & STEP_ARG_MAX) + arg <= STEP_ARG_MAX) {
		*last += arg;
		return true;
	}
	if (a->nstep == MAX_STEPS)
		return false;
	a->steps[a->nstep++] = (uint32_t)kind << STEP_SHIFT | arg;
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

/*
 * Most DIEs (types) have only constant-size values: skip them in one step. A constant size
 * above STEP_ARG_MAX (only corrupt data has one) counts as variable, so no size the scanner
 * adds to a pointer or an int can overflow; 64 bits cannot overflow on the way there.
 */
static inline void layout(struct abbrev *a, const uint64_t *specs, const struct scan *u)
{
	int64_t fixed = 0;
	uint32_t i;

	a->sib_pos = -1;
	a->has_code = false;
	for (i = 0; i < a->nspec; i++) {
		uint64_t attr = specs[a->spec + 3 * i], form = specs[a->spec + 3 * i + 1];
		int sz;

		if (attr == DW_AT_low_pc || attr == DW_AT_ranges)
			a->has_code = true;
		if (fixed < 0)
			continue;
		sz = form_size(form, u);
		if (sz < 0) {
			fixed = -1;
			continue;
		}
		if (attr == DW_AT_sibling && form >= DW_FORM_ref1 && form <= DW_FORM_ref8) {
			a->sib_pos = fixed;
			a->sib_size = sz;
		}
		fixed += sz;
	}
	a->fixed = fixed > STEP_ARG_MAX ? -1 : fixed;
	if (a->fixed < 0)
		abbrev_steps(a, specs, u);
}

void abbrev__layout(struct abbrev *a, const uint64_t *specs, const struct scan *u)
{
	layout(a, specs, u);
}

static int table_load(struct abbrev_table *t, const unsigned char *sec, size_t sz, uint64_t off,
		      const struct scan *u)
{
	struct scan r;
	size_t n = 0, nspec = 0;
	uint64_t code;

	t->n = 0;
	/* check the offset before pointing anywhere near it */
	if (!sec || off >= sz)
		return -ENOTSUP;
	r = (struct scan){ sec + off, sec + sz, 0, 0, 0, false };
	while ((code = sc_uleb(&r)) != 0 && !r.bad) {
		struct abbrev *a;
		uint64_t attr, form;

		if (code > MAX_ABBREV_CODE)
			return -ENOTSUP;
		if (code >= t->cap) {
			size_t ncap = t->cap ? t->cap : 256;
			struct abbrev *na;

			while (ncap <= code)
				ncap *= 2;
			na = realloc(t->ab, ncap * sizeof(*na));
			if (!na)
				return -ENOMEM;
			t->ab = na;
			t->cap = ncap;
		}
		if (code >= n) {
			/* only the tag marks an entry as defined */
			for (; n <= code; n++)
				t->ab[n].tag = 0;
		}
		a = &t->ab[code];
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
			if (nspec + 3 > t->specs_cap) {
				size_t ncap = t->specs_cap ? t->specs_cap * 2 : 1024;
				uint64_t *ns;

				/* spec indexes are 32-bit: a table this large is no compiler's */
				if (ncap > UINT32_MAX)
					return -ENOTSUP;
				ns = realloc(t->specs, ncap * sizeof(*ns));
				if (!ns)
					return -ENOMEM;
				t->specs = ns;
				t->specs_cap = ncap;
			}
			t->specs[nspec++] = attr;
			t->specs[nspec++] = form;
			/* an implicit constant's value lives here, not in the DIE */
			t->specs[nspec++] = form == DW_FORM_implicit_const ? (uint64_t)sc_sleb(&r) : 0;
		}
		a->nspec = (nspec - a->spec) / 3;
		layout(a, t->specs, u);
		if (!a->tag)
			return -EINVAL;
	}
	t->n = n;
	return r.bad ? -EINVAL : 0;
}

int abbrev_table__load(struct abbrev_table *t, const unsigned char *sec, size_t sz, uint64_t off,
		       const struct scan *u)
{
	int err;

	if (t->valid && t->off == off && t->unit[0] == u->offsz && t->unit[1] == u->addrsz &&
	    t->unit[2] == u->version)
		return 0;
	t->valid = false;
	err = table_load(t, sec, sz, off, u);
	if (err)
		return err;
	t->valid = true;
	t->off = off;
	t->unit[0] = u->offsz;
	t->unit[1] = u->addrsz;
	t->unit[2] = u->version;
	return 0;
}

void abbrev_table__free(struct abbrev_table *t)
{
	free(t->ab);
	free(t->specs);
	memset(t, 0, sizeof(*t));
}
