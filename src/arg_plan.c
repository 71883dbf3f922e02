// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "func_types.h"
#include "arg_plan.h"
#include "opts.h"

static const char *const x86_64_regs[] = { "rdi", "rsi", "rdx", "rcx", "r8", "r9" };
static const char *const arm64_regs[] = { "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7" };

/* System V AMD64: six registers; stack arguments in 8-byte slots above the return address. */
const struct arg_arch arg_arch_x86_64 = {
	.name = "x86_64", .reg_cnt = 6, .reg_names = x86_64_regs,
	.stack_off = 8, .stack_slot = 8, .ret_slot_first = true,
};

/* AAPCS64: eight registers; big composites by reference; stack arguments from SP up. */
const struct arg_arch arg_arch_arm64 = {
	.name = "arm64", .reg_cnt = 8, .reg_names = arm64_regs,
	.stack_off = 0, .stack_slot = 8, .big_by_ref = true, .spill_ends_regs = true,
};

const struct arg_arch *arg_arch__host(void)
{
#if defined(__x86_64__)
	return &arg_arch_x86_64;
#elif defined(__aarch64__)
	return &arg_arch_arm64;
#else
	return NULL;
#endif
}

static const char *const vararg_names[MAX_FNARGS] = {
	"vararg0", "vararg1", "vararg2", "vararg3", "vararg4", "vararg5",
	"vararg6", "vararg7", "vararg8", "vararg9", "vararg10", "vararg11",
};

static const char *const raw_names[MAX_FNARGS] = {
	"arg0", "arg1", "arg2", "arg3", "arg4", "arg5",
	"arg6", "arg7", "arg8", "arg9", "arg10", "arg11",
};

/* Integers, enums, structs and unions: what can be captured as so many bytes. */
static bool is_sized(const struct btf_type *t)
{
	return t && (btf_is_int(t) || btf_is_any_enum(t) || btf_is_composite(t));
}

/* printf-like: "..." last, a const char pointer (the format) right before it. */
static bool is_printf_like(const struct btf *btf, const struct btf_type *proto)
{
	const struct btf_param *p = btf_params(proto);
	int n = btf_vlen(proto);
	const struct btf_type *t;
	bool is_const = false;

	if (n < 2 || p[n - 1].type != 0)
		return false;
	t = func_types__skip_mods(btf, p[n - 2].type, NULL);
	if (!t || !btf_is_ptr(t))
		return false;
	for (t = btf__type_by_id(btf, t->type); t && (btf_is_mod(t) || btf_is_typedef(t));
	     t = btf__type_by_id(btf, t->type))
		is_const |= btf_is_const(t);
	return is_const && func_types__is_char(btf, t);
}

static bool is_ret_slot(const struct btf *btf, const struct btf_param *p)
{
	const char *name = btf__name_by_offset(btf, p->name_off);

	return name && strcmp(name, ARG_PLAN_RET_SLOT) == 0;
}

/*
 * The caller's slot for a returned object takes the first register: named by a leading
 * parameter (user functions' BTF from DWARF, which knows C++ classes that aren't trivially
 * copyable), else for any struct or union over 16 bytes (the kernel's BTF). Moves @params
 * and @n past the named one.
 */
static bool takes_ret_slot(const struct btf *btf, const struct btf_type *proto,
			   const struct arg_arch *arch, const struct btf_param **params, int *n)
{
	const struct btf_type *ret;

	if (!arch->ret_slot_first)
		return false;
	if (*n && is_ret_slot(btf, &(*params)[0])) {
		(*params)++;
		(*n)--;
		return true;
	}
	ret = func_types__skip_mods(btf, proto->type, NULL);
	return ret && btf_is_composite(ret) && ret->size > 16;
}

/* Where arguments go as they are placed, in order. */
struct placer {
	const struct arg_arch *arch;
	int reg;		/* next free register */
	int stack;		/* bytes of stack arguments so far */
};

static int round_up(int n, int to)
{
	return (n + to - 1) / to * to;
}

/* Place an argument of @size bytes; false if it is on the stack beyond what is read. */
static bool place(struct placer *pl, int size, struct fnarg_spec *w)
{
	const struct arg_arch *a = pl->arch;
	int off;

	if (size <= 8 && pl->reg < a->reg_cnt) {
		w->loc = FNARG_REG;
		w->off = pl->reg++;
		return true;
	}
	if (size <= 16 && pl->reg + 1 < a->reg_cnt) {
		w->loc = FNARG_REG_PAIR;
		w->off = pl->reg;
		pl->reg += 2;
		return true;
	}
	if (a->spill_ends_regs)
		pl->reg = a->reg_cnt;
	off = a->stack_off + pl->stack;
	pl->stack += round_up(size, a->stack_slot);
	if (off + size > ARG_MAX_STACK_OFF)
		return false;
	w->loc = FNARG_STACK;
	w->off = off;
	return true;
}

static int cap(__u32 size, int limit)
{
	return size < (__u32)limit ? (int)size : limit;
}

/* A pointer argument: what it points to decides what is read. */
void arg_plan__ptr(const struct btf *btf, const struct btf_type *ptr, struct arg_plan *a,
		   const struct arg_limits *lim)
{
	__u32 id;
	const struct btf_type *t = func_types__skip_mods(btf, ptr->type, &id);

	if (func_types__is_char(btf, t)) {
		a->kind = ARG_STR;
		a->wire.kind = FNARG_STR;
		a->wire.len = lim->max_str;
	} else if (is_sized(t) && t->size > 0) {
		a->kind = ARG_PTR;
		a->type_id = id;
		a->size = t->size;
		a->wire.kind = FNARG_PTR;
		a->wire.len = cap(t->size, lim->max_sized);
	} else {
		a->kind = ARG_RAW_PTR;
		a->size = 8;
		a->wire.kind = FNARG_VALUE;
		a->wire.len = 8;
	}
}

static void plan_param(const struct btf *btf, const struct btf_param *p, struct arg_plan *a,
		       struct placer *pl, const struct arg_limits *lim)
{
	const struct btf_type *t;
	__u32 id;

	a->name = btf__name_by_offset(btf, p->name_off) ?: "";
	if (p->type == 0) {
		a->name = "...";
		a->kind = ARG_SKIP_VARARG;
		return;
	}
	t = func_types__skip_mods(btf, p->type, &id);
	if (t && btf_is_ptr(t)) {
		if (!place(pl, 8, &a->wire))
			goto too_far;
		arg_plan__ptr(btf, t, a, lim);
		return;
	}
	if (!is_sized(t)) {
		a->kind = ARG_UNSUPP;
		return;
	}
	a->type_id = id;
	a->size = t->size;
	a->wire.len = cap(t->size, lim->max_sized);
	if (btf_is_composite(t) && t->size > 16 && pl->arch->big_by_ref) {
		if (!place(pl, 8, &a->wire))
			goto too_far;
		a->kind = ARG_VALUE_BY_REF;
		a->wire.kind = FNARG_PTR;
		return;
	}
	if (!place(pl, t->size, &a->wire))
		goto too_far;
	a->kind = ARG_VALUE;
	a->wire.kind = FNARG_VALUE;
	return;
too_far:
	memset(&a->wire, 0, sizeof(a->wire));
	a->kind = ARG_STACK_TOO_FAR;
}

static void plan_raw(struct func_arg_plan *p, const struct arg_arch *arch)
{
	int i;

	p->arg_cnt = arch->reg_cnt < MAX_FNARGS ? arch->reg_cnt : MAX_FNARGS;
	for (i = 0; i < p->arg_cnt; i++) {
		struct arg_plan *a = &p->args[i];

		a->name = raw_names[i];
		a->kind = ARG_RAW_REG;
		a->size = 8;
		a->wire = (struct fnarg_spec){ .len = 8, .kind = FNARG_VALUE, .loc = FNARG_REG,
					       .off = i };
	}
}

int arg_plan__build(struct func_arg_plan *p, const struct btf *btf, int btf_id,
		    const struct arg_arch *arch, const struct arg_limits *lim)
{
	struct placer pl = { .arch = arch };
	const struct btf_type *fn, *proto;
	const struct btf_param *params;
	bool printf_like;
	int i, n;

	memset(p, 0, sizeof(*p));
	p->fmt_idx = -1;
	if (!btf || btf_id <= 0) {
		plan_raw(p, arch);
		return 0;
	}
	fn = btf__type_by_id(btf, btf_id);
	proto = fn && btf_is_func(fn) ? btf__type_by_id(btf, fn->type) : NULL;
	if (!proto || !btf_is_func_proto(proto))
		return -EINVAL;
	p->btf = btf;
	params = btf_params(proto);
	n = btf_vlen(proto);
	if (takes_ret_slot(btf, proto, arch, &params, &n)) {
		struct fnarg_spec slot;

		place(&pl, 8, &slot);
	}
	printf_like = is_printf_like(btf, proto);
	if (printf_like)
		p->fmt_idx = n - 2;
	p->arg_cnt = printf_like || n > MAX_FNARGS ? MAX_FNARGS : n;
	for (i = 0; i < p->arg_cnt; i++) {
		struct arg_plan *a = &p->args[i];

		if (!printf_like || i < n - 1) {
			plan_param(btf, &params[i], a, &pl, lim);
			continue;
		}
		/* varargs are passed as 8-byte words, like the named arguments before them */
		a->name = vararg_names[i - (n - 1)];
		a->size = 8;
		if (!place(&pl, 8, &a->wire)) {
			memset(&a->wire, 0, sizeof(a->wire));
			a->kind = ARG_STACK_TOO_FAR;
			continue;
		}
		a->kind = ARG_VARARG;
		a->wire.kind = FNARG_VARARG;
		a->wire.len = lim->max_str;
	}
	return 0;
}

void arg_plan__wire(const struct func_arg_plan *p, struct func_args_spec *spec)
{
	int i;

	memset(spec, 0, sizeof(*spec));
	spec->arg_cnt = p->arg_cnt;
	for (i = 0; i < p->arg_cnt; i++)
		spec->args[i] = p->args[i].wire;
}

static int describe_loc(char *buf, size_t sz, const struct fnarg_spec *w,
			const struct arg_arch *arch)
{
	const char *r0 = w->off < arch->reg_cnt ? arch->reg_names[w->off] : "?";
	const char *r1 = w->off + 1 < arch->reg_cnt ? arch->reg_names[w->off + 1] : "?";

	switch (w->loc) {
	case FNARG_CTX:
		return snprintf(buf, sz, "ctx+%d", w->off);
	case FNARG_CTX_DATALOC:
		return snprintf(buf, sz, "data_loc(ctx+%d)", w->off);
	case FNARG_REG:
		return snprintf(buf, sz, "%s", r0);
	case FNARG_REG_PAIR:
		return snprintf(buf, sz, "%s:%s", r0, r1);
	default:
		return snprintf(buf, sz, "sp+%d", w->off);
	}
}

void arg_plan__describe(const struct func_arg_plan *p, const struct arg_arch *arch,
			char *buf, size_t sz)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < p->arg_cnt && len < sz; i++) {
		const struct arg_plan *a = &p->args[i];
		char loc[32];

		describe_loc(loc, sizeof(loc), &a->wire, arch);
		len += snprintf(buf + len, sz - len, "%s%s=", i ? " " : "", a->name);
		if (len >= sz)
			break;
		switch (a->kind) {
		case ARG_VALUE:
		case ARG_RAW_PTR:
		case ARG_RAW_REG:
			len += snprintf(buf + len, sz - len, "%s:%d", loc, a->wire.len);
			break;
		case ARG_VALUE_BY_REF:
		case ARG_PTR:
			len += snprintf(buf + len, sz - len, "&%s:%d", loc, a->wire.len);
			break;
		case ARG_STR:
			len += snprintf(buf + len, sz - len, "str(%s):%d", loc, a->wire.len);
			break;
		case ARG_VARARG:
			len += snprintf(buf + len, sz - len, "vararg(%s)", loc);
			break;
		case ARG_UNSUPP:
			len += snprintf(buf + len, sz - len, "(unsupp)");
			break;
		case ARG_SKIP_VARARG:
			len += snprintf(buf + len, sz - len, "(vararg)");
			break;
		case ARG_STACK_TOO_FAR:
			len += snprintf(buf + len, sz - len, "(stack-too-far)");
			break;
		}
	}
}

struct arg_plans {
	const struct arg_arch *arch;
	struct func_arg_plan *plans;
	bool *has;			/* plans[i] is set */
	struct btf **owned;		/* per plan, BTF owned by the table */
	size_t cnt;
};

struct arg_plans *arg_plans__new_empty(size_t cnt)
{
	struct arg_plans *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return NULL;
	ps->cnt = cnt;
	ps->plans = calloc(cnt ?: 1, sizeof(*ps->plans));
	ps->has = calloc(cnt ?: 1, sizeof(*ps->has));
	ps->owned = calloc(cnt ?: 1, sizeof(*ps->owned));
	if (!ps->plans || !ps->has || !ps->owned) {
		arg_plans__free(ps);
		return NULL;
	}
	return ps;
}

struct arg_plans *arg_plans__new(const struct func *funcs, size_t cnt,
				 const struct arg_plans_opts *opts)
{
	const struct arg_arch *arch;
	struct arg_plans_opts o;
	struct arg_limits *lim = &o.limits;
	struct arg_plans *ps;
	size_t i;

	if (OPTS_COPY(&o, opts))
		return errno = EINVAL, NULL;
	lim->max_sized = lim->max_sized ?: ARG_LIMIT_DEFAULT;
	lim->max_str = lim->max_str ?: ARG_LIMIT_DEFAULT;
	if (lim->max_sized < 1 || lim->max_str < 1 || lim->max_sized > MAX_FNARG_SIZE ||
	    lim->max_str > MAX_FNARG_SIZE)
		return errno = EINVAL, NULL;
	arch = o.arch ?: arg_arch__host();
	if (!arch)
		return errno = EOPNOTSUPP, NULL;
	ps = arg_plans__new_empty(cnt);
	if (!ps)
		return NULL;
	ps->arch = arch;
	for (i = 0; i < cnt; i++) {
		const struct func *f = &funcs[i];

		/* BTF that doesn't describe a function: fall back to the raw registers */
		if (arg_plan__build(&ps->plans[i], f->btf, f->btf_id, arch, lim))
			arg_plan__build(&ps->plans[i], NULL, 0, arch, lim);
		ps->has[i] = true;
	}
	return ps;
}

int arg_plans__set(struct arg_plans *ps, __u32 func_id, const struct func_arg_plan *p,
		   struct btf *owned_btf)
{
	if (func_id >= ps->cnt) {
		btf__free(owned_btf);
		return -EINVAL;
	}
	btf__free(ps->owned[func_id]);
	ps->plans[func_id] = *p;
	ps->owned[func_id] = owned_btf;
	ps->has[func_id] = true;
	return 0;
}

const struct func_arg_plan *arg_plans__get(const struct arg_plans *ps, __u32 func_id)
{
	if (!ps || func_id >= ps->cnt || !ps->has[func_id])
		return NULL;
	return &ps->plans[func_id];
}

size_t arg_plans__cnt(const struct arg_plans *ps)
{
	return ps->cnt;
}

const struct arg_arch *arg_plans__arch(const struct arg_plans *ps)
{
	return ps->arch;
}

void arg_plans__free(struct arg_plans *ps)
{
	size_t i;

	if (!ps)
		return;
	for (i = 0; ps->owned && i < ps->cnt; i++)
		btf__free(ps->owned[i]);
	free(ps->owned);
	free(ps->has);
	free(ps->plans);
	free(ps);
}
