/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Captured bytes of a BTF-typed value as text, the way retsnoop shows arguments:
 *
 *   {.map_type=BPF_MAP_TYPE_ARRAY,.key_size=4,.value_size=1048576,.name=['x','y']}
 *
 * Fields that are zero are left out below the top level, integers are decimal below
 * 4194304 (and when negative) and hex above, enums print by name, char arrays as 'c'
 * items up to their NUL. Bytes that run out before the type does end the text with "…".
 *
 * libbpf's btf_dump__dump_type_data() renders the same data, but as C initializers
 * (".value_size = (__u32)1048576," with type casts, spaces and trailing commas, every
 * integer in decimal, no indent for nested lines), and none of that is configurable; this
 * is the equivalent for retsnoop's format.
 */
#ifndef RETSNOOP_ARG_DUMP_H
#define RETSNOOP_ARG_DUMP_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

struct btf;

struct arg_dump_opts {
	size_t sz;		/* sizeof(struct arg_dump_opts) */
	bool verbose;		/* members one per line (".f = v"), 4 more columns per level */
	int indent;		/* verbose: columns before every line after the first */
};

/*
 * Print the value of type @type_id in @btf held in @data (@len bytes, which may be fewer
 * than the type's size) to @out. Returns 0, -E2BIG when the bytes ran out (the text then
 * ends with "…"), or -EINVAL for a type it can't print.
 */
int arg_dump(FILE *out, const struct btf *btf, __u32 type_id, const void *data, size_t len,
	     const struct arg_dump_opts *opts);

/* An integer as retsnoop prints them: decimal below 4194304 or when negative, else hex. */
void arg_dump__int(FILE *out, __u64 v, bool is_signed);

#endif
