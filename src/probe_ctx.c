// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "func_types.h"
#include "probe_ctx.h"

#define DATA_LOC_PREFIX "__data_loc_"

/* Where a distro mounts tracefs (the newer place first). */
static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

static int cap(__u32 size, int limit)
{
	return size < (__u32)limit ? (int)size : limit;
}

/* A piece of the context at @off of BTF type @type_id, named @name. */
static void plan_piece(const struct btf *btf, __u32 type_id, const char *name, __u32 off,
		       const struct arg_limits *lim, struct arg_plan *a)
{
	const struct btf_type *t;
	__u32 id;
	__s64 size;

	memset(a, 0, sizeof(*a));
	a->name = name;
	a->wire.loc = FNARG_CTX;
	a->wire.off = off;
	t = func_types__skip_mods(btf, type_id, &id);
	if (t && btf_is_ptr(t)) {
		arg_plan__ptr(btf, t, a, lim);
		return;
	}
	size = t ? btf__resolve_size(btf, id) : -1;
	if (!t || size <= 0 || !(btf_is_int(t) || btf_is_any_enum(t) || btf_is_composite(t) ||
				 btf_is_array(t))) {
		a->kind = ARG_UNSUPP;
		a->wire.kind = FNARG_SKIP;
		return;
	}
	a->kind = ARG_VALUE;
	a->type_id = id;
	a->size = size;
	a->wire.kind = FNARG_VALUE;
	a->wire.len = cap(size, lim->max_sized);
}

/* kprobe, kretprobe: the registers, whole (they are the context). */
static int plan_regs(const struct btf *btf, struct func_arg_plan *out)
{
	int id = btf__find_by_name_kind(btf, "pt_regs", BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	struct arg_plan *a = &out->args[0];

	if (!t)
		return -ENOENT;
	a->name = "regs";
	a->kind = ARG_VALUE;
	a->type_id = id;
	a->size = t->size;
	a->wire = (struct fnarg_spec){ .len = cap(t->size, MAX_FNARG_SIZE),
				       .kind = FNARG_VALUE, .loc = FNARG_CTX };
	out->arg_cnt = 1;
	return 0;
}

/* rawtp: the arguments, 8 bytes each in the context (the iterator's first is its data). */
static int plan_rawtp(const struct btf *btf, const char *name, const struct arg_limits *lim,
		      struct func_arg_plan *out)
{
	const struct btf_type *proto = NULL, *t;
	const struct btf_param *params;
	bool named = true;
	char buf[256];
	int id, i, n;

	snprintf(buf, sizeof(buf), "__traceiter_%s", name);
	id = btf__find_by_name_kind(btf, buf, BTF_KIND_FUNC);
	if (id > 0)
		proto = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (!proto) {
		/* the typedef BPF attaches by: its prototype has no parameter names */
		snprintf(buf, sizeof(buf), "btf_trace_%s", name);
		id = btf__find_by_name_kind(btf, buf, BTF_KIND_TYPEDEF);
		t = id > 0 ? func_types__skip_mods(btf, id, NULL) : NULL;
		if (t && btf_is_ptr(t))
			proto = btf__type_by_id(btf, t->type);
		named = false;
	}
	if (!proto || !btf_is_func_proto(proto))
		return -ENOENT;
	params = btf_params(proto);
	n = btf_vlen(proto) - 1;
	out->arg_cnt = n < MAX_FNARGS ? n : MAX_FNARGS;
	for (i = 0; i < out->arg_cnt; i++) {
		const char *pname = named ? btf__name_by_offset(btf, params[i + 1].name_off) : NULL;

		plan_piece(btf, params[i + 1].type, pname && *pname ? pname : "arg", i * 8, lim,
			   &out->args[i]);
		/* a slot holds 8 bytes: wider values were passed some other way */
		if (out->args[i].kind == ARG_VALUE && out->args[i].size > 8) {
			out->args[i].kind = ARG_UNSUPP;
			out->args[i].wire.kind = FNARG_SKIP;
		}
	}
	return 0;
}

/* A field of a tracepoint's record as tracefs lists it. */
struct tp_field {
	char name[64];
	unsigned int off;
};

/* The event's own fields (not common_*) from its tracefs format file; count or -errno. */
static int read_format(const char *cat, const char *name, struct tp_field *f, int max)
{
	char path[512], line[512];
	FILE *fp = NULL;
	size_t i;
	int n = 0;

	for (i = 0; !fp && i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs_dirs[i], cat, name);
		fp = fopen(path, "re");
	}
	if (!fp)
		return -ENOENT;
	while (n < max && fgets(line, sizeof(line), fp)) {
		char *decl = strstr(line, "field:"), *semi, *off, *p, *end;

		if (!decl || !(semi = strchr(decl, ';')) || !(off = strstr(semi, "offset:")))
			continue;
		/*
		 * The name ends the declaration, before the brackets of an array
		 * ("char comm[16]"); "__data_loc char[] name" has them before it.
		 */
		end = semi;
		if (end[-1] == ']')
			while (end > decl && *end != '[')
				end--;
		for (p = end; p > decl && (p[-1] == '_' || (p[-1] >= '0' && p[-1] <= '9') ||
					   (p[-1] >= 'a' && p[-1] <= 'z') ||
					   (p[-1] >= 'A' && p[-1] <= 'Z')); p--)
			;
		if (end - p <= 0 || end - p >= (long)sizeof(f[n].name) ||
		    strncmp(p, "common_", 7) == 0)
			continue;
		memcpy(f[n].name, p, end - p);
		f[n].name[end - p] = '\0';
		f[n].off = strtoul(off + 7, NULL, 10);
		n++;
	}
	fclose(fp);
	return n;
}

/* The record's own members: after the common header, before the variable-size tail. */
static bool rec_member(const struct btf *btf, const struct btf_type *t, int i)
{
	const char *m = btf__name_by_offset(btf, btf_members(t)[i].name_off);

	return i > 0 && m && strcmp(m, "__data") != 0 && !btf_member_bitfield_size(t, i);
}

/* Does record struct @t have exactly the fields tracefs lists? */
static bool same_fields(const struct btf *btf, const struct btf_type *t,
			const struct tp_field *f, int n)
{
	int i, k = 0;

	for (i = 0; i < btf_vlen(t); i++) {
		const char *m = btf__name_by_offset(btf, btf_members(t)[i].name_off);

		if (m && strcmp(m, "__data") == 0)
			break;
		if (!rec_member(btf, t, i))
			continue;
		if (strncmp(m, DATA_LOC_PREFIX, strlen(DATA_LOC_PREFIX)) == 0)
			m += strlen(DATA_LOC_PREFIX);
		if (k >= n || strcmp(m, f[k].name) != 0 ||
		    btf_member_bit_offset(t, i) / 8 != f[k].off)
			return false;
		k++;
	}
	return k == n;
}

/*
 * The event's record struct: trace_event_raw_<name> for an event that is its own class,
 * else the trace_event_raw_* struct with the event's fields (events of one class share it).
 */
static const struct btf_type *find_record(const struct btf *btf, const struct probe_spec *p)
{
	struct tp_field f[MAX_FNARGS * 4];
	const struct btf_type *t;
	char buf[256];
	int id, n, cnt;

	snprintf(buf, sizeof(buf), "trace_event_raw_%s", p->name);
	id = btf__find_by_name_kind(btf, buf, BTF_KIND_STRUCT);
	if (id > 0)
		return btf__type_by_id(btf, id);
	n = read_format(p->category, p->name, f, sizeof(f) / sizeof(f[0]));
	if (n < 0)
		return NULL;
	cnt = btf__type_cnt(btf);
	for (id = 1; id < cnt; id++) {
		const char *tn;

		t = btf__type_by_id(btf, id);
		if (!btf_is_struct(t))
			continue;
		tn = btf__name_by_offset(btf, t->name_off);
		if (tn && strncmp(tn, "trace_event_raw_", 16) == 0 && same_fields(btf, t, f, n))
			return t;
	}
	return NULL;
}

/* tp: the record's fields. */
static int plan_tp(const struct btf *btf, const struct probe_spec *p,
		   const struct arg_limits *lim, struct func_arg_plan *out)
{
	const struct btf_type *t = find_record(btf, p);
	int i, n = 0;

	if (!t)
		return -ENOENT;
	for (i = 0; i < btf_vlen(t) && n < MAX_FNARGS; i++) {
		const struct btf_member *m = &btf_members(t)[i];
		const char *name = btf__name_by_offset(btf, m->name_off);
		__u32 off = btf_member_bit_offset(t, i) / 8;
		struct arg_plan *a = &out->args[n];

		if (name && strcmp(name, "__data") == 0)
			break;
		if (!rec_member(btf, t, i))
			continue;
		if (strncmp(name, DATA_LOC_PREFIX, strlen(DATA_LOC_PREFIX)) == 0) {
			memset(a, 0, sizeof(*a));
			a->name = name + strlen(DATA_LOC_PREFIX);
			a->kind = ARG_STR;
			a->wire = (struct fnarg_spec){ .len = lim->max_str, .kind = FNARG_STR,
						       .loc = FNARG_CTX_DATALOC, .off = off };
		} else {
			plan_piece(btf, m->type, name, off, lim, a);
		}
		n++;
	}
	out->arg_cnt = n;
	return 0;
}

int probe_ctx__plan(const struct probe_spec *p, const struct btf *btf,
		    const struct arg_limits *lim, struct func_arg_plan *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	out->fmt_idx = -1;
	if (!btf)
		return -ENOENT;
	switch (p->kind) {
	case PROBE_KPROBE:
	case PROBE_KRETPROBE:
		err = plan_regs(btf, out);
		break;
	case PROBE_RAWTP:
		err = plan_rawtp(btf, p->name, lim, out);
		break;
	case PROBE_TP:
		err = plan_tp(btf, p, lim, out);
		break;
	default:
		err = -EINVAL;
		break;
	}
	if (err) {
		memset(out, 0, sizeof(*out));
		out->fmt_idx = -1;
		return err;
	}
	out->btf = btf;
	return 0;
}

struct arg_plans *probe_ctx__plans(const struct probe_spec *probes, size_t cnt,
				   const struct btf *btf, const struct arg_limits *lim)
{
	struct arg_plans *ps = arg_plans__new_empty(cnt);
	struct func_arg_plan p;
	size_t i;

	if (!ps)
		return NULL;
	for (i = 0; i < cnt; i++) {
		probe_ctx__plan(&probes[i], btf, lim, &p);
		if (arg_plans__set(ps, i, &p, NULL)) {
			arg_plans__free(ps);
			errno = EINVAL;
			return NULL;
		}
	}
	return ps;
}
