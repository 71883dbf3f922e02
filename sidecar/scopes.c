// SPDX-License-Identifier: BSD-2-Clause
/*
 * A CU's functions and inlined instances ("scopes") as range tables: each table is sorted
 * with every range linked to its nearest enclosing range, so a lookup is a binary search
 * plus a short climb. The first scan of a CU indexes its top-level functions only; a
 * function's inlined subroutines get their own table the first time an address needs them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer_int.h"

int scope_push_range(struct cu *cu, uint64_t lo, uint64_t hi, int depth, int *nr)
{
	struct srange *r;

	if (lo >= hi)
		return 0;
	r = grow(cu->cur->r, &cu->cur->cap, cu->cur->n + 1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	cu->cur->r = r;
	cu->cur->r[cu->cur->n++] = (struct srange){ lo, hi, cu->nscopes, depth, -1 };
	(*nr)++;
	return 0;
}

struct scope *scope_new(struct cu *cu, const char *name, int parent)
{
	struct scope *sc = grow(cu->scopes, &cu->cap_scopes, cu->nscopes + 1, sizeof(*sc));

	if (!sc)
		return NULL;
	cu->scopes = sc;
	sc = &cu->scopes[cu->nscopes];
	memset(sc, 0, sizeof(*sc));
	sc->name = name ?: "??";
	sc->parent = parent;
	sc->func = -1;
	return sc;
}

int scope_add_func(struct cu *cu, Dwarf_Off off, int scope)
{
	struct func *f = grow(cu->funcs, &cu->cap_funcs, cu->nfuncs + 1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	cu->funcs = f;
	cu->scopes[scope].func = cu->nfuncs;
	cu->funcs[cu->nfuncs++] = (struct func){ .off = off, .scope = scope };
	return 0;
}

static int cmp_srange(const void *a, const void *b)
{
	const struct srange *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1;	/* wider (outer) first */
	return x->depth - y->depth;
}

/* Sort a range table and link every range to the nearest earlier range enclosing its start. */
static int finish_rtab(struct rtab *t)
{
	int *stack, top = 0, i;

	if (t->n)
		qsort(t->r, t->n, sizeof(*t->r), cmp_srange);
	stack = malloc(sizeof(*stack) * (t->n + 1));
	if (!stack)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		struct srange *r = &t->r[i];

		while (top > 0 && t->r[stack[top - 1]].hi <= r->lo)
			top--;
		r->up = top > 0 ? stack[top - 1] : -1;
		stack[top++] = i;
	}
	free(stack);
	return 0;
}

void scopes_reset(struct cu *cu)
{
	int i;

	for (i = 0; i < cu->nfuncs; i++)
		free(cu->funcs[i].tab.r);
	cu->nfuncs = 0;
	cu->nscopes = 0;
	cu->all.n = 0;
	cu->cur = &cu->all;
}

/* Something the fast scan doesn't know: index the whole CU with libdw's walk. */
static int index_flat(struct symbolizer *s, struct cu *cu)
{
	int err;

	scopes_reset(cu);
	cu->flat = true;
	err = die_walk_cu(s, cu);
	return err ?: finish_rtab(&cu->all);
}

static int index_cu(struct symbolizer *s, struct cu *cu)
{
	int err;

	if (cu->indexed)
		return 0;
	cu->indexed = true;
	if (s->opts.libdw_dies)
		return index_flat(s, cu);
	cu->cur = &cu->all;
	err = scan_cu(s, cu, NULL);
	if (err == -ENOTSUP)
		return index_flat(s, cu);
	return err ?: finish_rtab(&cu->all);
}

static int expand_func(struct symbolizer *s, struct cu *cu, struct func *fn)
{
	int err;

	fn->expanded = true;
	cu->cur = &fn->tab;
	err = scan_cu(s, cu, fn);
	cu->cur = &cu->all;
	if (err == -ENOTSUP)
		return index_flat(s, cu);
	return err ?: finish_rtab(&fn->tab);
}

/* Innermost scope of a table whose ranges contain addr, -1 if none. */
static int find_in(const struct rtab *t, uint64_t addr)
{
	int lo = 0, hi = t->n, i;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (t->r[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * Ranges nest; anything containing addr but not the last range starting
	 * before it must enclose that range, so climbing 'up' finds it.
	 */
	for (i = lo - 1; i >= 0; i = t->r[i].up) {
		if (addr < t->r[i].hi)
			return t->r[i].scope;
	}
	return -1;
}

int scope_find(struct symbolizer *s, struct cu *cu, uint64_t addr)
{
	int sid, in, err;
	struct func *fn;

	if (!cu->indexed) {
		uint64_t t0 = now_ns();

		s->stats.cus_indexed++;
		err = index_cu(s, cu);
		s->stats.index_ns += now_ns() - t0;
		if (err)
			return err;
	}
	sid = find_in(&cu->all, addr);
	if (sid < 0 || cu->flat || cu->scopes[sid].func < 0)
		return sid;
	fn = &cu->funcs[cu->scopes[sid].func];
	if (!fn->expanded) {
		err = expand_func(s, cu, fn);
		if (err)
			return err;
		if (cu->flat)
			return find_in(&cu->all, addr);
	}
	in = find_in(&fn->tab, addr);
	return in >= 0 ? in : sid;
}
