// SPDX-License-Identifier: BSD-2-Clause
/*
 * The ELF side: which addresses are code (allocated executable sections), the symbol table
 * that names code without a DWARF function (assembly, no debug info), read and sorted only
 * when such an address shows up, and function symbols by name, for source globs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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
		s->syms_full = pass == 0;
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
				s->syms[s->nsyms++] = (struct sym){ sym.st_value, sym.st_size, name,
								    rank };
			}
		}
	}
	if (s->nsyms)
		qsort(s->syms, s->nsyms, sizeof(*s->syms), cmp_sym);
	return 0;
}

const char *elf_sym_name(struct symbolizer *s, uint64_t addr)
{
	uint64_t start, size;

	return elf_sym_find(s, addr, &start, &size);
}

const char *elf_sym_find(struct symbolizer *s, uint64_t addr, uint64_t *start, uint64_t *size)
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
	*start = s->syms[lo].addr;
	*size = s->syms[lo].size;
	return s->syms[lo].name;
}

struct func_name {
	const char *name;	/* NULL: free slot */
	uint64_t addr;
	uint32_t hash;
	uint32_t count;		/* function symbols of this name */
};

static uint32_t name_hash(const char *name)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (*name)
		h = (h ^ (unsigned char)*name++) * 16777619u;
	return h;
}

static struct func_name *name_slot(struct func_name *t, size_t cap, const char *name, uint32_t h)
{
	size_t i;

	for (i = h & (cap - 1); t[i].name; i = (i + 1) & (cap - 1)) {
		if (t[i].hash == h && strcmp(t[i].name, name) == 0)
			break;
	}
	return &t[i];
}

/*
 * Function symbols (STT_FUNC, the 't'/'T' of kallsyms) of .symtab by name, with how many
 * there are of each. A separate pass: sorting the whole table by address is not needed.
 */
static void add_func_name(struct func_name *t, size_t cap, const char *name, uint64_t addr)
{
	uint32_t h = name_hash(name);
	struct func_name *e = name_slot(t, cap, name, h);

	if (!e->name)
		*e = (struct func_name){ name, addr, h, 0 };
	e->count++;
}

/*
 * Function symbols (STT_FUNC: kallsyms' 't' and 'T') of .symtab by name, with how many
 * there are of each. A pass of its own: sorting the whole table by address (load_syms())
 * is not needed for this. 64-bit tables are read as the array libelf gives, with the string
 * table checked once, instead of through gelf_getsym()/elf_strptr() per symbol.
 */
static int load_func_names(struct symbolizer *s)
{
	struct func_name *t = NULL;
	Elf_Scn *scn = NULL;
	size_t cap = 0;

	while ((scn = elf_nextscn(s->elf, scn))) {
		Elf_Data *data, *strs;
		const char *str = NULL;
		GElf_Shdr sh;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		/* at most half full: probing always ends */
		n = sh.sh_size / sh.sh_entsize;
		for (cap = 1024; cap < 2 * n; cap *= 2)
			;
		t = calloc(cap, sizeof(*t));
		if (!t)
			return -ENOMEM;
		strs = elf_getdata(elf_getscn(s->elf, sh.sh_link), NULL);
		if (gelf_getclass(s->elf) == ELFCLASS64 && data->d_type == ELF_T_SYM && strs &&
		    strs->d_size && ((const char *)strs->d_buf)[strs->d_size - 1] == '\0')
			str = strs->d_buf;
		for (i = 0; str && i < data->d_size / sizeof(Elf64_Sym); i++) {
			const Elf64_Sym *sym = (const Elf64_Sym *)data->d_buf + i;

			if (ELF64_ST_TYPE(sym->st_info) != STT_FUNC || sym->st_shndx == SHN_UNDEF ||
			    sym->st_shndx >= SHN_LORESERVE || sym->st_name >= strs->d_size ||
			    !str[sym->st_name])
				continue;
			add_func_name(t, cap, str + sym->st_name, sym->st_value);
		}
		for (i = 0; !str && i < n; i++) {
			const char *name;
			GElf_Sym sym;

			if (!gelf_getsym(data, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
				continue;
			name = elf_strptr(s->elf, sh.sh_link, sym.st_name);
			if (name && *name)
				add_func_name(t, cap, name, sym.st_value);
		}
		break;	/* there is one .symtab */
	}
	s->fnames = t;
	s->fnames_cap = cap;
	return 0;
}

int elf_func_by_name(struct symbolizer *s, const char *name, uint64_t *addr)
{
	const struct func_name *e;

	if (!s->fnames_loaded) {
		s->fnames_loaded = true;
		s->fnames_err = load_func_names(s);
	}
	if (s->fnames_err)
		return s->fnames_err;
	if (!s->fnames)
		return -ENOENT;
	e = name_slot(s->fnames, s->fnames_cap, name, name_hash(name));
	if (!e->name)
		return -ENOENT;
	if (e->count > 1)
		return -ENOTUNIQ;
	*addr = e->addr;
	return 0;
}

void elf_syms_free(struct symbolizer *s)
{
	free(s->syms);
	s->syms = NULL;
	s->nsyms = 0;
	free(s->fnames);
	s->fnames = NULL;
}
