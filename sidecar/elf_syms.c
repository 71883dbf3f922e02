// SPDX-License-Identifier: BSD-2-Clause
/*
 * The ELF side: which addresses are code (allocated executable sections), and the symbol
 * table that names code without a DWARF function (assembly, no debug info). The table is
 * only read and sorted when such an address shows up.
 */
#include <errno.h>
#include <stdlib.h>
#include <gelf.h>

#include "symbolizer_int.h"

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->rank - y->rank;
}

bool elf_in_exec(const struct symbolizer *s, uint64_t addr)
{
	int i;

	for (i = 0; i < s->nsecs; i++) {
		if (addr >= s->secs[i].lo && addr < s->secs[i].hi)
			return true;
	}
	return false;
}

static int load_syms(struct symbolizer *s)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;
	int pass;

	if (s->syms_loaded)
		return 0;
	s->syms_loaded = true;
	/* .symtab if there is one, else .dynsym */
	for (pass = 0; pass < 2 && !s->nsyms; pass++) {
		Elf32_Word want = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;

		scn = NULL;
		while ((scn = elf_nextscn(s->elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *data;
			size_t i, n;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != want || !sh.sh_entsize)
				continue;
			data = elf_getdata(scn, NULL);
			if (!data)
				continue;
			n = sh.sh_size / sh.sh_entsize;
			for (i = 0; i < n; i++) {
				GElf_Sym sym;
				const char *name;
				int type, rank;

				if (!gelf_getsym(data, i, &sym))
					continue;
				type = GELF_ST_TYPE(sym.st_info);
				if (type != STT_FUNC && type != STT_NOTYPE)
					continue;
				if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
					continue;
				if (!elf_in_exec(s, sym.st_value))
					continue;
				name = elf_strptr(s->elf, sh.sh_link, sym.st_name);
				if (!name || !*name)
					continue;
				rank = type == STT_FUNC ? 0 : 2;
				if (GELF_ST_BIND(sym.st_info) == STB_LOCAL)
					rank++;
				if (s->nsyms == cap) {
					struct sym *ns;

					cap = cap ? cap * 2 : 4096;
					ns = realloc(s->syms, cap * sizeof(*ns));
					if (!ns)
						return -ENOMEM;
					s->syms = ns;
				}
				s->syms[s->nsyms++] = (struct sym){ sym.st_value, name, rank };
			}
		}
	}
	if (s->nsyms)
		qsort(s->syms, s->nsyms, sizeof(*s->syms), cmp_sym);
	return 0;
}

const char *elf_sym_name(struct symbolizer *s, uint64_t addr)
{
	size_t lo = 0, hi;

	if (load_syms(s) || !s->nsyms)
		return NULL;
	hi = s->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	lo--;
	/* best-ranked symbol at that address comes first */
	while (lo > 0 && s->syms[lo - 1].addr == s->syms[lo].addr)
		lo--;
	return s->syms[lo].name;
}

void elf_syms_free(struct symbolizer *s)
{
	free(s->syms);
	s->syms = NULL;
	s->nsyms = 0;
}
