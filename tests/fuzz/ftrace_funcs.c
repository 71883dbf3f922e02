// SPDX-License-Identifier: BSD-2-Clause
/*
 * tracefs available_filter_functions parser (src/ftrace_funcs.c): any text parses or fails
 * cleanly; every entry is a non-empty name without blanks, never an unresolved placeholder.
 */
#include "fuzz.h"
#include "ftrace_funcs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ftrace_funcs *ff = ftrace_funcs__parse((const char *)data, size);
	size_t i, cnt;

	if (!ff)
		return 0;
	cnt = ftrace_funcs__cnt(ff);
	FUZZ_CHECK(!ftrace_funcs__get(ff, cnt));
	for (i = 0; i < cnt; i++) {
		const struct ftrace_func *f = ftrace_funcs__get(ff, i);

		FUZZ_CHECK(f && f->name[0]);
		FUZZ_CHECK(!strpbrk(f->name, " \t\n"));
		FUZZ_CHECK(strncmp(f->name, "__ftrace_invalid_address___", 27) != 0);
		FUZZ_CHECK(!f->module || !strpbrk(f->module, "]\n"));
	}
	ftrace_funcs__free(ff);
	return 0;
}
