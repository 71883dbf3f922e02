/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bounds-checked little-endian DWARF readers shared by the line-table decoder and the DIE
 * scanner. Each keeps its own cursor struct (with 'p', 'end' and 'bad' members); this
 * macro defines PREFIX_u(), PREFIX_uleb() and PREFIX_sleb() for it. An overrun sets 'bad'
 * and yields 0. LEB128 values below 128 (most of them) take one byte and no loop.
 */
#ifndef RETSNOOP_SIDECAR_DWARF_READ_H
#define RETSNOOP_SIDECAR_DWARF_READ_H

#include <stdint.h>

#define DEFINE_DWARF_READERS(prefix, type)					\
static inline uint64_t prefix##_u(type *r, int n)				\
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
/* the raw LEB128 bits, and the shift past the last byte (0: overrun) */	\
static inline uint64_t prefix##_leb(type *r, int *shift, unsigned char *last)	\
{										\
	uint64_t v = 0;								\
										\
	*shift = 0;								\
	while (r->p < r->end) {							\
		unsigned char b = *r->p++;					\
										\
		if (*shift < 64)						\
			v |= (uint64_t)(b & 0x7f) << *shift;			\
		*shift += 7;							\
		if (!(b & 0x80)) {						\
			*last = b;						\
			return v;						\
		}								\
	}									\
	r->bad = true;								\
	*shift = 0;								\
	return 0;								\
}										\
										\
static inline uint64_t prefix##_uleb(type *r)					\
{										\
	unsigned char last;							\
	int shift;								\
										\
	if (r->p < r->end && *r->p < 0x80)					\
		return *r->p++;							\
	return prefix##_leb(r, &shift, &last);					\
}										\
										\
static inline int64_t prefix##_sleb(type *r)					\
{										\
	unsigned char last;							\
	uint64_t v;								\
	int shift;								\
										\
	if (r->p < r->end && *r->p < 0x80) {					\
		unsigned char b = *r->p++;					\
										\
		return b & 0x40 ? (int64_t)b - 0x80 : b;			\
	}									\
	v = prefix##_leb(r, &shift, &last);					\
	if (shift && shift < 64 && (last & 0x40))				\
		v |= ~(uint64_t)0 << shift;					\
	return (int64_t)v;							\
}

#endif
