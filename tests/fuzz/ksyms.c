// SPDX-License-Identifier: BSD-2-Clause
/*
 * /proc/kallsyms parser (src/ksyms.c): any text parses or fails cleanly, and the lookups
 * built over it keep their promises for every symbol it produced. The filtered reader
 * (ksyms__load_funcs_except(), a line at a time from a file) keeps exactly the function
 * symbols outside its range that the whole-text parser finds.
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

/* The filtered read of the same text, against @ks: the same function symbols, minus a range. */
static void check_filtered(const struct ksyms *ks, const uint8_t *data, size_t size)
{
	const struct ksym *s, *const *funcs;
	__u64 lo = 0, hi = 0;
	size_t i, n, want = 0;
	struct ksyms *f;
	bool found;

	/* a range from the input itself: between its first two symbols' addresses */
	if (ksyms__cnt(ks) >= 2) {
		lo = ksyms__get(ks, 0)->addr;
		hi = ksyms__get(ks, 1)->addr;
	}
	f = ksyms__load_funcs_except(fuzz_file(0, data, size), lo, hi);
	FUZZ_CHECK(f);
	for (i = 0; i < ksyms__cnt(ks); i++) {
		s = ksyms__get(ks, i);
		want += ksym__is_func(s->type) && !(s->addr >= lo && s->addr < hi);
	}
	FUZZ_CHECK(ksyms__cnt(f) == want);
	for (i = 0; i < ksyms__cnt(f) && i < MAX_CHECKED; i++) {
		s = ksyms__get(f, i);
		FUZZ_CHECK(ksym__is_func(s->type) && !(s->addr >= lo && s->addr < hi));
		n = ksyms__find_funcs(ks, s->name, s->module, &funcs);
		found = false;
		while (n--)
			found |= funcs[n]->addr == s->addr;
		FUZZ_CHECK(found);
	}
	ksyms__free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksyms *ks = ksyms__parse((const char *)data, size);
	size_t i, cnt;

	if (!ks)
		return 0;
	check_filtered(ks, data, size);
	cnt = ksyms__cnt(ks);
	FUZZ_CHECK(!ksyms__get(ks, cnt));
	for (i = 0; i < cnt && i < MAX_CHECKED; i++)
		check_sym(ks, ksyms__get(ks, i));
	ksyms__map_addr(ks, 0);
	ksyms__map_addr(ks, ~0ULL);
	ksyms__free(ks);
	return 0;
}
