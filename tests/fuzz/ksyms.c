// SPDX-License-Identifier: BSD-2-Clause
/*
 * /proc/kallsyms parser (src/ksyms.c): any text parses or fails cleanly, and the lookups
 * built over it keep their promises for every symbol it produced.
 */
#include "fuzz.h"
#include "ksyms.h"

/* Lookups of every parsed symbol are bounded so huge inputs stay fast. */
#define MAX_CHECKED 512

static void check_sym(const struct ksyms *ks, const struct ksym *s)
{
	const struct ksym *const *funcs, *m;
	size_t n, i;
	bool self = false;

	FUZZ_CHECK(s->name && s->name[0]);
	n = ksyms__find_funcs(ks, s->name, s->module, &funcs);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(strcmp(funcs[i]->name, s->name) == 0);
		FUZZ_CHECK(!funcs[i]->module == !s->module);
		FUZZ_CHECK(!s->module || strcmp(funcs[i]->module, s->module) == 0);
		FUZZ_CHECK(i == 0 || funcs[i - 1]->addr <= funcs[i]->addr);
		self |= funcs[i] == s;
	}
	/* a function symbol finds itself by name, and its address maps to a function there */
	FUZZ_CHECK(self == ksym__is_func(s->type));
	m = ksyms__map_addr(ks, s->addr);
	if (ksym__is_func(s->type)) {
		FUZZ_CHECK(m && m->addr == s->addr);
		FUZZ_CHECK(!s->size || ksyms__map_addr(ks, s->addr + s->size - 1) == m);
	} else {
		FUZZ_CHECK(!m || m->addr <= s->addr);
	}
	if (s->addr)
		FUZZ_CHECK(!(m = ksyms__map_addr(ks, s->addr - 1)) || m->addr < s->addr);
	if (!s->module) {
		m = ksyms__find(ks, s->name);
		FUZZ_CHECK(m && !m->module && strcmp(m->name, s->name) == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksyms *ks = ksyms__parse((const char *)data, size);
	size_t i, cnt;

	if (!ks)
		return 0;
	cnt = ksyms__cnt(ks);
	FUZZ_CHECK(!ksyms__get(ks, cnt));
	for (i = 0; i < cnt && i < MAX_CHECKED; i++)
		check_sym(ks, ksyms__get(ks, i));
	ksyms__map_addr(ks, 0);
	ksyms__map_addr(ks, ~0ULL);
	ksyms__free(ks);
	return 0;
}
