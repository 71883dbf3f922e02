// SPDX-License-Identifier: BSD-2-Clause
/*
 * The user ELF function reader (src/elf_funcs.c): any bytes open as an image or fail
 * cleanly (malformed headers, program headers, .symtab/.dynsym, string tables, notes,
 * .gnu_debuglink), and what it returns keeps its promises: functions sorted by file
 * offset, each once, every name leading to its function and found by its own name.
 */
#include "fuzz.h"
#include "elf_funcs.h"

#define MAX_CHECKED 512

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct elf_func_name *n;
	const struct elf_func *f;
	struct elf_funcs *e;
	size_t i, cnt;
	void *copy;

	/* libelf may write to memory images; the fuzzer's input must stay unchanged */
	copy = malloc(size ?: 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	e = elf_funcs__open_mem(copy, size, NULL);
	if (!e) {
		free(copy);
		return 0;
	}
	cnt = elf_funcs__func_cnt(e);
	for (i = 0; i < cnt; i++) {
		f = elf_funcs__func(e, i);
		FUZZ_CHECK(f && f->name && f->name[0]);
		FUZZ_CHECK(f->offset != 0);
		FUZZ_CHECK(i == 0 || elf_funcs__func(e, i - 1)->offset < f->offset);
		if (i < MAX_CHECKED)
			FUZZ_CHECK(elf_funcs__find_addr(e, f->addr) &&
				   elf_funcs__find_addr(e, f->addr)->addr == f->addr);
	}
	FUZZ_CHECK(!elf_funcs__func(e, cnt));
	FUZZ_CHECK(elf_funcs__name_cnt(e) >= cnt);
	for (i = 0; i < elf_funcs__name_cnt(e) && i < MAX_CHECKED; i++) {
		n = elf_funcs__name(e, i);
		FUZZ_CHECK(n->func < cnt);
		FUZZ_CHECK(i == 0 || strcmp(elf_funcs__name(e, i - 1)->name, n->name) <= 0);
		/* a name shared by two functions finds one of them */
		f = elf_funcs__find(e, n->name);
		FUZZ_CHECK(f && strcmp(f->name, "") != 0);
	}
	if (elf_funcs__build_id(e))
		FUZZ_CHECK(strlen(elf_funcs__build_id(e)) <= 40);
	if (elf_funcs__debuglink(e, NULL))
		FUZZ_CHECK(elf_funcs__debuglink(e, NULL)[0]);
	elf_funcs__free(e);
	free(copy);
	return 0;
}
