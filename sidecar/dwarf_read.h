/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bounds-checked little-endian DWARF readers shared by the line-table decoder and the DIE
 * scanner. Each keeps its own cursor struct (with 'p', 'end' and 'bad' members); this
 * macro defines PREFIX_u() and PREFIX_uleb() for it. An overrun sets 'bad' and yields 0.
 */
#ifndef RETSNOOP_SIDECAR_DWARF_READ_H
#define RETSNOOP_SIDECAR_DWARF_READ_H

#include <stdint.h>

#define DEFINE_DWARF_READERS(prefix, type)					\
static uint64_t prefix##_u(type *r, int n)					\
{										\
	uint64_t v = 0;								\
	int i;									\
										\
	if (r->end - r->p < n) {						\
		r->bad = true;							\
		r->p = r->end;							\
		return 0;							\
	}									\
	for (i = 0; i < n; i++)							\
		v |= (uint64_t)r->p[i] << (8 * i);				\
	r->p += n;								\
	return v;								\
}										\
										\
static uint64_t prefix##_uleb(type *r)						\
{										\
	uint64_t v = 0;								\
	int shift = 0;								\
										\
	while (r->p < r->end) {							\
		unsigned char b = *r->p++;					\
										\
		if (shift < 64)							\
			v |= (uint64_t)(b & 0x7f) << shift;			\
		shift += 7;							\
		if (!(b & 0x80))						\
			return v;						\
	}									\
	r->bad = true;								\
	return 0;								\
}

#endif
