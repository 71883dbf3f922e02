// SPDX-License-Identifier: BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include "func_types.h"
#include "arg_dump.h"
#include "opts.h"

#define ELLIPSIS "\u2026"
/* decimal below this, hex from here on: small counts read better, flags and addresses worse */
#define DEC_LIMIT 4194304ULL

struct dumper {
	FILE *out;
	const struct btf *btf;
	const __u8 *end;	/* first byte not captured */
	bool verbose;
	int indent;
};

void arg_dump__int(FILE *out, __u64 v, bool is_signed)
{
	if (is_signed && (__s64)v < 0)
		fprintf(out, "%lld", (long long)v);
	else if (v < DEC_LIMIT)
		fprintf(out, "%llu", (unsigned long long)v);
	else
		fprintf(out, "0x%llx", (unsigned long long)v);
}

/* Bytes a value of @t at @bit_off (bit_sz bits, 0: the whole type) occupies. */
static size_t span(const struct btf *btf, __u32 id, int bit_off, int bit_sz)
{
	__s64 sz;

	if (bit_sz)
		return (bit_off + bit_sz + 7) / 8;
	sz = btf__resolve_size(btf, id);
	return sz > 0 ? sz : 0;
}

static bool captured(const struct dumper *d, const __u8 *p, size_t n)
{
	return p <= d->end && (size_t)(d->end - p) >= n;
}

/* A little-endian bit field of up to 64 bits, @bit_off < 8. */
static __u64 bits(const __u8 *p, int bit_off, int bit_sz)
{
	unsigned __int128 v = 0;
	int i, n = (bit_off + bit_sz + 7) / 8;

	for (i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	v >>= bit_off;
	return bit_sz >= 64 ? (__u64)v : (__u64)v & ((1ULL << bit_sz) - 1);
}

static __u64 sign_extend(__u64 v, int nbits)
{
	return nbits >= 64 ? v : (__u64)((__s64)(v << (64 - nbits)) >> (64 - nbits));
}

/* An integer or enum of @size bytes at @p (bit field if @bit_sz). */
static __u64 load(const __u8 *p, int size, int bit_off, int bit_sz, bool is_signed)
{
	__u64 v = 0;

	if (bit_sz)
		return is_signed ? sign_extend(bits(p, bit_off, bit_sz), bit_sz) :
				   bits(p, bit_off, bit_sz);
	memcpy(&v, p, size > 8 ? 8 : size);
	return is_signed ? sign_extend(v, size * 8) : v;
}

static bool enum_signed(const struct btf_type *t)
{
	return btf_kflag(t);
}

/* Is the value zero? Not fully captured counts as not zero: it gets shown (and cut). */
static bool is_zero(const struct dumper *d, __u32 id, const __u8 *p, int bit_off, int bit_sz)
{
	const struct btf_type *t = func_types__skip_mods(d->btf, id, &id);
	size_t i, n = span(d->btf, id, bit_off, bit_sz);

	if (!t || !captured(d, p, n))
		return false;
	if (btf_is_composite(t)) {
		const struct btf_member *m = btf_members(t);

		for (i = 0; i < btf_vlen(t); i++) {
			__u32 off = btf_member_bit_offset(t, i);

			if (!is_zero(d, m[i].type, p + off / 8, off % 8,
				     btf_member_bitfield_size(t, i)))
				return false;
		}
		return true;
	}
	if (btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);
		__s64 esz = btf__resolve_size(d->btf, a->type);

		/* a string that starts with its NUL is empty */
		if (func_types__is_char(d->btf, func_types__skip_mods(d->btf, a->type, NULL)))
			return a->nelems == 0 || p[0] == 0;
		for (i = 0; esz > 0 && i < a->nelems; i++)
			if (!is_zero(d, a->type, p + i * esz, 0, 0))
				return false;
		return true;
	}
	if (bit_sz)
		return bits(p, bit_off, bit_sz) == 0;
	for (i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static void newline(const struct dumper *d, int level)
{
	fprintf(d->out, "\n%*s", d->indent + 4 * level, "");
}

static int dump(struct dumper *d, __u32 id, const __u8 *p, int bit_off, int bit_sz, int level);

static int truncated(struct dumper *d)
{
	fputs(ELLIPSIS, d->out);
	return -E2BIG;
}

static void print_char(FILE *out, __u8 c)
{
	if (c == '\'' || c == '\\')
		fprintf(out, "'\\%c'", c);
	else if (isprint(c))
		fprintf(out, "'%c'", c);
	else
		arg_dump__int(out, c, false);
}

static int dump_array(struct dumper *d, const struct btf_type *t, const __u8 *p, int level)
{
	const struct btf_array *a = btf_array(t);
	const struct btf_type *et = func_types__skip_mods(d->btf, a->type, NULL);
	__s64 esz = btf__resolve_size(d->btf, a->type);
	bool chars = func_types__is_char(d->btf, et), spread = d->verbose && et && btf_is_composite(et);
	__u32 i;
	int err;

	if (esz <= 0)
		return -EINVAL;
	fputc('[', d->out);
	for (i = 0; i < a->nelems; i++, p += esz) {
		if (chars) {
			if (!captured(d, p, 1))
				return truncated(d);
			if (!*p)
				break;
		}
		if (i)
			fputc(',', d->out);
		if (spread)
			newline(d, level + 1);
		if (chars) {
			print_char(d->out, *p);
			continue;
		}
		err = dump(d, a->type, p, 0, 0, level + 1);
		if (err)
			return err;
	}
	if (spread && i)
		newline(d, level);
	fputc(']', d->out);
	return 0;
}

static int dump_composite(struct dumper *d, const struct btf_type *t, const __u8 *p, int level)
{
	const struct btf_member *m = btf_members(t);
	bool first = true;
	int i, err;

	fputc('{', d->out);
	for (i = 0; i < btf_vlen(t); i++) {
		__u32 off = btf_member_bit_offset(t, i);
		int bsz = btf_member_bitfield_size(t, i);
		const __u8 *mp = p + off / 8;
		const char *name = btf__name_by_offset(d->btf, m[i].name_off);

		if (is_zero(d, m[i].type, mp, off % 8, bsz))
			continue;
		if (!first)
			fputc(',', d->out);
		first = false;
		if (d->verbose)
			newline(d, level + 1);
		/* nothing of this member was captured: say so before naming it */
		if (!captured(d, mp, 1))
			return truncated(d);
		if (name && *name)
			fprintf(d->out, d->verbose ? ".%s = " : ".%s=", name);
		err = dump(d, m[i].type, mp, off % 8, bsz, level + 1);
		if (err)
			return err;
	}
	if (d->verbose && !first)
		newline(d, level);
	fputc('}', d->out);
	return 0;
}

static int dump_enum(struct dumper *d, const struct btf_type *t, __u64 v)
{
	int i, n = btf_vlen(t);
	bool sign = enum_signed(t);

	for (i = 0; i < n; i++) {
		const char *name;
		__u64 ev;

		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t) + i;

			/* compare as the enum's width: a negative value was sign-extended */
			ev = (__u32)e->val;
			name = btf__name_by_offset(d->btf, e->name_off);
			if (ev == (v & 0xffffffffULL) || (__s64)(__s32)e->val == (__s64)v)
				goto found;
		} else {
			const struct btf_enum64 *e = btf_enum64(t) + i;

			ev = btf_enum64_value(e);
			name = btf__name_by_offset(d->btf, e->name_off);
			if (ev == v)
				goto found;
		}
		continue;
found:
		fputs(name, d->out);
		return 0;
	}
	arg_dump__int(d->out, v, sign);
	return 0;
}

static int dump_int(struct dumper *d, const struct btf_type *t, const __u8 *p, int bit_off,
		    int bit_sz)
{
	bool sign = btf_int_encoding(t) & BTF_INT_SIGNED;
	__u64 lo, hi;

	if (t->size == 16 && !bit_sz) {
		memcpy(&lo, p, 8);
		memcpy(&hi, p + 8, 8);
		if (hi)
			fprintf(d->out, "0x%llx%016llx", (unsigned long long)hi,
				(unsigned long long)lo);
		else
			fprintf(d->out, "0x%llx", (unsigned long long)lo);
		return 0;
	}
	if (t->size > 8 || !t->size)
		return -EINVAL;
	arg_dump__int(d->out, load(p, t->size, bit_off, bit_sz, sign), sign);
	return 0;
}

static int dump_float(struct dumper *d, const struct btf_type *t, const __u8 *p)
{
	float f;
	double v;

	if (t->size == 4) {
		memcpy(&f, p, 4);
		fprintf(d->out, "%g", f);
	} else if (t->size == 8) {
		memcpy(&v, p, 8);
		fprintf(d->out, "%g", v);
	} else {
		return -EINVAL;
	}
	return 0;
}

static int dump(struct dumper *d, __u32 id, const __u8 *p, int bit_off, int bit_sz, int level)
{
	const struct btf_type *t = func_types__skip_mods(d->btf, id, &id);
	__u64 v;

	if (!t)
		return -EINVAL;
	if (!btf_is_composite(t) && !btf_is_array(t) && !captured(d, p, span(d->btf, id, bit_off, bit_sz)))
		return truncated(d);
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		return dump_int(d, t, p, bit_off, bit_sz);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		if (t->size > 8 || !t->size)
			return -EINVAL;
		v = load(p, t->size, bit_off, bit_sz, enum_signed(t));
		return dump_enum(d, t, v);
	case BTF_KIND_PTR:
		memcpy(&v, p, 8);
		fprintf(d->out, "0x%llx", (unsigned long long)v);
		return 0;
	case BTF_KIND_FLOAT:
		return dump_float(d, t, p);
	case BTF_KIND_ARRAY:
		return dump_array(d, t, p, level);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return dump_composite(d, t, p, level);
	default:
		return -EINVAL;
	}
}

int arg_dump(FILE *out, const struct btf *btf, __u32 type_id, const void *data, size_t len,
	     const struct arg_dump_opts *opts)
{
	struct dumper d = {
		.out = out, .btf = btf, .end = (const __u8 *)data + len,
	};
	struct arg_dump_opts o;

	if (OPTS_COPY(&o, opts) || !btf)
		return -EINVAL;
	d.verbose = o.verbose;
	d.indent = o.indent;
	return dump(&d, type_id, data, 0, 0, 0);
}
