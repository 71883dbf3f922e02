/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A unit's abbreviation table, compiled for the own DIE scanner: every abbreviation knows
 * the size of its attribute values when that is constant (most DIEs of a kernel CU are
 * types, skipped in one step), else a few precompiled skip steps, else nothing (the scanner
 * then reads value by value with sc_form()).
 */
#ifndef __SIDECAR_ABBREV_H
#define __SIDECAR_ABBREV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dwarf_read.h"

/* A cursor in one unit's data, with what sizes its forms have there. */
struct scan {
	const unsigned char *p, *end;
	int offsz, addrsz, version;
	bool bad;
};

DEFINE_DWARF_READERS(sc, struct scan)

static inline void sc_skip(struct scan *r, uint64_t n)
{
	if ((uint64_t)(r->end - r->p) < n) {
		r->bad = true;
		r->p = r->end;
		return;
	}
	r->p += n;
}

/*
 * Skip one attribute value of @form; *ref is its value if it is a CU-relative reference
 * (for DW_AT_sibling). -ENOTSUP for forms it does not know, -EINVAL on an overrun.
 */
int sc_form(struct scan *r, uint64_t form, uint64_t *ref);

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
#define STEP_SHIFT 24
#define STEP_ARG_MAX ((1u << STEP_SHIFT) - 1)
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

/*
 * The abbreviations of the last unit scanned, by code (codes below n without an entry have
 * tag 0). The arrays are reused from unit to unit; units sharing a table (same offset and
 * unit parameters) share the compiled form too.
 */
struct abbrev_table {
	struct abbrev *ab;
	uint64_t *specs;	/* (attribute, form, implicit_const value) triples */
	size_t n, cap, specs_cap;
	uint64_t off;
	int unit[3];		/* offset size, address size, version it was laid out for */
	bool valid;
};

/*
 * Make @t the table at offset @off of .debug_abbrev (@sec, @sz bytes) laid out for the unit
 * @u (offset/address size, version); nothing to do if it already is. -ENOTSUP for what the
 * scanner leaves to libdw, -EINVAL if corrupt, -ENOMEM.
 */
int abbrev_table__load(struct abbrev_table *t, const unsigned char *sec, size_t sz, uint64_t off,
		       const struct scan *u);
void abbrev_table__free(struct abbrev_table *t);

/* Compile @a's layout from its specs (exposed for tests). */
void abbrev__layout(struct abbrev *a, const uint64_t *specs, const struct scan *u);

/* Run a compiled abbreviation's steps over one DIE; its DW_AT_sibling value if any. */
static inline uint64_t abbrev__run_steps(struct scan *r, const struct abbrev *a)
{
	uint64_t sib = 0;
	int i;

	for (i = 0; i < a->nstep; i++) {
		uint32_t arg = a->steps[i] & STEP_ARG_MAX;

		switch (a->steps[i] >> STEP_SHIFT) {
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

#endif /* __SIDECAR_ABBREV_H */
