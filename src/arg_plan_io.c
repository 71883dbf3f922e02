// SPDX-License-Identifier: BSD-2-Clause
/*
 * A capture plan as bytes, for capture files: the plan with names, plus the types its
 * arguments are rendered with, copied out of the kernel's BTF into a small BTF of their
 * own. Pointers inside those types only ever print as numbers, so the copy stops at them
 * (they become void *); what a capture holds stays small however big the kernel's types.
 *
 * Layout: struct plan_hdr, arg_cnt x struct plan_arg, names (NUL-terminated), raw BTF.
 */
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "arg_plan.h"

struct plan_hdr {
	__u32 arg_cnt;
	__s32 fmt_idx;
	__u32 names_len;
	__u32 btf_len;		/* 0: the plan has no BTF */
};

struct plan_arg {
	__u32 kind;		/* enum arg_kind */
	__u32 type_id;		/* in the copied BTF */
	__u32 size;
	__u32 name_off;		/* into the names */
	struct fnarg_spec wire;
};

/* Old id -> new id of the types being copied. */
struct id_map {
	__u32 *old;		/* in copy order */
	__u32 cnt, cap;
	void *index;		/* tsearch() tree of struct id_ent */
};

struct id_ent {
	__u32 old, new;
};

static int ent_cmp(const void *a, const void *b)
{
	__u32 x = ((const struct id_ent *)a)->old, y = ((const struct id_ent *)b)->old;

	return x < y ? -1 : x > y;
}

static __u32 map_id(const struct id_map *m, __u32 old)
{
	struct id_ent key = { .old = old };
	void *n = old ? tfind(&key, &m->index, ent_cmp) : NULL;

	return n ? (*(struct id_ent **)n)->new : 0;
}

/* Add @id and what it needs (not through pointers); -ENOMEM or 0. */
static int collect(const struct btf *btf, struct id_map *m, __u32 id)
{
	const struct btf_type *t;
	struct id_ent *e, **found;
	int i, err;

	if (!id || map_id(m, id))
		return 0;
	t = btf__type_by_id(btf, id);
	if (!t)
		return 0;
	e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	if (m->cnt == m->cap) {
		__u32 cap = m->cap ? m->cap * 2 : 32, *tmp = realloc(m->old, cap * sizeof(*tmp));

		if (!tmp) {
			free(e);
			return -ENOMEM;
		}
		m->old = tmp;
		m->cap = cap;
	}
	e->old = id;
	e->new = m->cnt + 1;
	found = tsearch(e, &m->index, ent_cmp);
	if (!found || *found != e) {
		free(e);
		return found ? 0 : -ENOMEM;
	}
	m->old[m->cnt++] = id;

	switch (btf_kind(t)) {
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return collect(btf, m, t->type);
	case BTF_KIND_ARRAY:
		err = collect(btf, m, btf_array(t)->type);
		return err ?: collect(btf, m, btf_array(t)->index_type);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (i = 0; i < btf_vlen(t); i++)
			if ((err = collect(btf, m, btf_members(t)[i].type)))
				return err;
		return 0;
	default:
		return 0;
	}
}

/*
 * Copy every collected type, in order, so new ids come out as assigned; references are
 * then pointed at the copies. btf__add_type() keeps each type exactly (kind flag, bit
 * field layout, enum signedness), which building it anew would have to restate.
 */
static int copy_types(struct btf *dst, const struct btf *src, const struct id_map *m)
{
	__u32 k;
	int i, id;

	for (k = 0; k < m->cnt; k++) {
		const struct btf_type *st = btf__type_by_id(src, m->old[k]);
		struct btf_type *t;

		id = btf__add_type(dst, src, st);
		if (id < 0)
			return id;
		if ((__u32)id != k + 1)
			return -EINVAL;
		/* the copy is ours to fix up: dst is being built */
		t = (struct btf_type *)btf__type_by_id(dst, id);
		switch (btf_kind(t)) {
		case BTF_KIND_PTR:
			t->type = 0;
			break;
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			t->type = map_id(m, t->type);
			break;
		case BTF_KIND_ARRAY:
			btf_array(t)->type = map_id(m, btf_array(t)->type);
			btf_array(t)->index_type = map_id(m, btf_array(t)->index_type);
			break;
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			for (i = 0; i < btf_vlen(t); i++)
				btf_members(t)[i].type = map_id(m, btf_members(t)[i].type);
			break;
		default:
			break;
		}
	}
	return 0;
}

static void id_map_free(struct id_map *m)
{
	tdestroy(m->index, free);
	free(m->old);
}

/* The types of @p's arguments in a BTF of their own; @types[i] their ids there. */
static struct btf *copy_plan_types(const struct func_arg_plan *p, __u32 *types, int *err)
{
	struct id_map m = {};
	struct btf *dst;
	int i;

	*err = 0;
	for (i = 0; i < p->arg_cnt && !*err; i++)
		*err = collect(p->btf, &m, p->args[i].type_id);
	dst = *err ? NULL : btf__new_empty();
	if (!dst && !*err)
		*err = -ENOMEM;
	if (dst) {
		btf__set_pointer_size(dst, 8);
		*err = copy_types(dst, p->btf, &m);
	}
	for (i = 0; !*err && i < p->arg_cnt; i++)
		types[i] = map_id(&m, p->args[i].type_id);
	id_map_free(&m);
	if (*err) {
		btf__free(dst);
		return NULL;
	}
	return dst;
}

int arg_plan__serialize(const struct func_arg_plan *p, void **out, size_t *out_len)
{
	struct plan_hdr h = { .arg_cnt = p->arg_cnt, .fmt_idx = p->fmt_idx };
	__u32 types[MAX_FNARGS] = {}, raw_len = 0;
	const void *raw = NULL;
	struct btf *btf = NULL;
	size_t len, off;
	char *buf;
	int i, err;

	if (p->arg_cnt < 0 || p->arg_cnt > MAX_FNARGS)
		return -EINVAL;
	if (p->btf) {
		btf = copy_plan_types(p, types, &err);
		if (!btf)
			return err;
		raw = btf__raw_data(btf, &raw_len);
		if (!raw) {
			btf__free(btf);
			return -ENOMEM;
		}
	}
	for (i = 0; i < p->arg_cnt; i++)
		h.names_len += strlen(p->args[i].name) + 1;
	h.btf_len = raw_len;
	len = sizeof(h) + p->arg_cnt * sizeof(struct plan_arg) + h.names_len + raw_len;
	buf = calloc(1, len);
	if (!buf) {
		btf__free(btf);
		return -ENOMEM;
	}
	memcpy(buf, &h, sizeof(h));
	off = sizeof(h) + p->arg_cnt * sizeof(struct plan_arg);
	for (i = 0; i < p->arg_cnt; i++) {
		const struct arg_plan *a = &p->args[i];
		struct plan_arg pa = {
			.kind = a->kind, .type_id = types[i], .size = a->size,
			.name_off = off - (sizeof(h) + p->arg_cnt * sizeof(struct plan_arg)),
			.wire = a->wire,
		};

		memcpy(buf + sizeof(h) + i * sizeof(pa), &pa, sizeof(pa));
		strcpy(buf + off, a->name);
		off += strlen(a->name) + 1;
	}
	if (raw_len)
		memcpy(buf + off, raw, raw_len);
	btf__free(btf);
	*out = buf;
	*out_len = len;
	return 0;
}

int arg_plan__deserialize(const void *data, size_t len, struct func_arg_plan *p,
			  struct btf **btf)
{
	const char *buf = data, *names;
	struct plan_hdr h;
	size_t args_end;
	int i;

	*btf = NULL;
	memset(p, 0, sizeof(*p));
	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, buf, sizeof(h));
	if (h.arg_cnt > MAX_FNARGS || h.fmt_idx >= (int)h.arg_cnt)
		return -EINVAL;
	args_end = sizeof(h) + h.arg_cnt * sizeof(struct plan_arg);
	if (len < args_end || len - args_end < (size_t)h.names_len + h.btf_len ||
	    (h.names_len && buf[args_end + h.names_len - 1]))
		return -EINVAL;
	names = buf + args_end;
	p->arg_cnt = h.arg_cnt;
	p->fmt_idx = h.fmt_idx;
	for (i = 0; i < p->arg_cnt; i++) {
		struct plan_arg pa;

		memcpy(&pa, buf + sizeof(h) + i * sizeof(pa), sizeof(pa));
		if (pa.name_off >= h.names_len || pa.kind > ARG_STACK_TOO_FAR)
			return -EINVAL;
		p->args[i] = (struct arg_plan){
			.name = names + pa.name_off, .kind = pa.kind, .type_id = pa.type_id,
			.size = pa.size, .wire = pa.wire,
		};
	}
	if (!h.btf_len)
		return 0;
	*btf = btf__new(names + h.names_len, h.btf_len);
	if (!*btf)
		return -EINVAL;
	p->btf = *btf;
	return 0;
}
