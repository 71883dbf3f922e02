/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Extensible options structs, libbpf's way: every opts struct starts with size_t sz, set
 * by the caller to the struct size it was built with. An older caller passes a smaller sz
 * (the fields it doesn't know read as zero); a newer one may pass a larger sz only if the
 * bytes this build doesn't know are all zero. Anything else is refused (-EINVAL). NULL opts
 * mean defaults: a zero field always means "the default".
 */
#ifndef RETSNOOP_OPTS_H
#define RETSNOOP_OPTS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* True if @opts (its sz field first) can be used as a struct of @type_sz bytes; not NULL. */
static inline bool opts__valid(const void *opts, size_t type_sz)
{
	const char *p = opts;
	size_t sz, i;

	if (!opts)
		return false;
	memcpy(&sz, opts, sizeof(sz));
	if (sz < sizeof(size_t))
		return false;
	for (i = type_sz; i < sz; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * Copy the caller's @src into @dst, a struct of @dst_sz bytes: zeroed first, the caller's
 * fields over it, sz set to this build's size. NULL @src means all defaults (every field
 * zero). 0, or -EINVAL for invalid opts (@dst is then all defaults too).
 */
static inline int opts__copy(void *dst, size_t dst_sz, const void *src)
{
	size_t sz;

	memset(dst, 0, dst_sz);
	memcpy(dst, &dst_sz, sizeof(dst_sz));
	if (!src)
		return 0;
	if (!opts__valid(src, dst_sz))
		return -EINVAL;
	memcpy(&sz, src, sizeof(sz));
	memcpy(dst, src, sz < dst_sz ? sz : dst_sz);
	memcpy(dst, &dst_sz, sizeof(dst_sz));
	return 0;
}

/*
 * opts__copy() into *(dst) from the caller's @src of the same type. Every module copies its
 * opts this way before reading any field, so a smaller struct is never read past its sz.
 */
#define OPTS_COPY(dst, src) opts__copy((dst), sizeof(*(dst)), (src))

#endif
