// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "elf_funcs.h"
#include "elf_notes.h"
#include "opts.h"

/* Longest name kept; C++ names can be long, but a symbol table is not a blob store. */
#define MAX_NAME_LEN 1024
/* Upper bound on symbols read from one table (libxul has ~300k; a hostile file more). */
#define MAX_SYMS (8u << 20)
/* Executable segments remembered; linkers make one or two, a hostile file could make more. */
#define MAX_SEGS 16

struct elf_funcs {
	struct elf_funcs_opts o;
	struct elf_func *funcs;
	size_t func_cnt;
	struct elf_func_name *names;
	size_t name_cnt;
	char *strs;			/* every name, NUL-separated */
	size_t strs_sz, strs_cap;
	enum elf_funcs_source source;
	bool has_symtab;		/* the image itself has a .symtab (it is not stripped) */
	/* the image's executable PT_LOAD segments: where a function's file offset comes from */
	struct { __u64 vaddr, filesz, offset; } segs[MAX_SEGS];
	size_t seg_cnt;
	bool addr_sorted;		/* funcs are in address order too (one-segment text) */
	bool is_dyn;
	bool is_go;
	bool has_eh_table;		/* .gcc_except_table */
	bool names_cxx_personality;	/* a symbol table names __gxx_personality_v0 */
	bool read_syms;			/* a symbol table was read */
	__u64 entry;			/* e_entry */
	char build_id[41];
	char *debuglink;
	__u32 debuglink_crc;
};

/* One candidate symbol while reading; names are offsets into e->strs until the end. */
struct raw_sym {
	size_t name_off;
	__u64 addr, offset, size;
	int rank;			/* alias preference: lower wins */
};

struct raw_syms {
	struct raw_sym *v;
	size_t cnt, cap;
};

#define pr(e, level, ...) log_msg((e)->o.print, level, __VA_ARGS__)

static int add_str(struct elf_funcs *e, const char *s, size_t *off)
{
	size_t len = strnlen(s, MAX_NAME_LEN);

	if (e->strs_sz + len + 1 > e->strs_cap) {
		size_t cap = e->strs_cap ? e->strs_cap * 2 : 4096;
		char *p;

		while (cap < e->strs_sz + len + 1)
			cap *= 2;
		p = realloc(e->strs, cap);
		if (!p)
			return -ENOMEM;
		e->strs = p;
		e->strs_cap = cap;
	}
	memcpy(e->strs + e->strs_sz, s, len);
	e->strs[e->strs_sz + len] = '\0';
	*off = e->strs_sz;
	e->strs_sz += len + 1;
	return 0;
}

static int push_sym(struct raw_syms *rs, const struct raw_sym *s)
{
	if (rs->cnt == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 256;
		struct raw_sym *v = realloc(rs->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		rs->v = v;
		rs->cap = cap;
	}
	rs->v[rs->cnt++] = *s;
	return 0;
}

/* The image's executable PT_LOAD segments: what the loader maps as code. */
static void read_segs(struct elf_funcs *e, Elf *elf, size_t phnum)
{
	GElf_Phdr ph;
	size_t i;

	for (i = 0; i < phnum && e->seg_cnt < MAX_SEGS; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		e->segs[e->seg_cnt].vaddr = ph.p_vaddr;
		e->segs[e->seg_cnt].filesz = ph.p_filesz;
		e->segs[e->seg_cnt].offset = ph.p_offset;
		e->seg_cnt++;
	}
}

/*
 * File offset of address @addr: through the image's executable segment that holds it (what
 * the kernel's uprobe takes). 0: in no such segment. Always the image's own segments: a
 * separate debug file keeps the program headers but empties them.
 */
static __u64 addr_to_offset(const struct elf_funcs *e, __u64 addr)
{
	size_t i;

	for (i = 0; i < e->seg_cnt; i++)
		if (addr >= e->segs[i].vaddr && addr - e->segs[i].vaddr < e->segs[i].filesz)
			return addr - e->segs[i].vaddr + e->segs[i].offset;
	return 0;
}

static int alias_rank(int bind)
{
	switch (bind) {
	case STB_GLOBAL: return 0;
	case STB_WEAK: return 1;
	default: return 2;
	}
}

/* Functions of one symbol table section into @rs; returns how many were taken. */
/*
 * C++'s personality routine, defined here or imported: .symtab spells an imported one with
 * its version ("__gxx_personality_v0@CXXABI_1.3"), .dynsym without.
 */
static bool is_cxx_personality(const char *name)
{
	static const char p[] = "__gxx_personality_v0";

	return strncmp(name, p, sizeof(p) - 1) == 0 &&
	       (name[sizeof(p) - 1] == '\0' || name[sizeof(p) - 1] == '@');
}

static long read_symtab(struct elf_funcs *e, Elf *elf, Elf_Scn *scn, struct raw_syms *rs)
{
	GElf_Shdr sh;
	Elf_Data *data;
	size_t i, n;
	long taken = 0;
	int err;

	if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return 0;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return 0;
	n = data->d_size / sh.sh_entsize;
	if (n > MAX_SYMS)
		n = MAX_SYMS;
	e->read_syms = true;
	for (i = 1; i < n; i++) {
		struct raw_sym s = {};
		const char *name;
		GElf_Sym sym;

		if (!gelf_getsym(data, i, &sym))
			break;
		if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_shndx == SHN_UNDEF &&
		    !e->names_cxx_personality) {
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			e->names_cxx_personality = name && is_cxx_personality(name);
		}
		/* IFUNC resolvers are not the functions their names promise */
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF ||
		    sym.st_shndx >= SHN_LORESERVE || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || !name[0])
			continue;
		if (!e->names_cxx_personality && is_cxx_personality(name))
			e->names_cxx_personality = true;
		s.addr = sym.st_value;
		s.offset = addr_to_offset(e, sym.st_value);
		if (!s.offset)
			continue;	/* not in loaded code: nothing a uprobe could hit */
		s.size = sym.st_size;
		s.rank = alias_rank(GELF_ST_BIND(sym.st_info));
		err = add_str(e, name, &s.name_off);
		if (!err)
			err = push_sym(rs, &s);
		if (err)
			return err;
		taken++;
	}
	return taken;
}

/* The GNU build ID as hex (at most 20 bytes: what build_id[] holds), empty without one. */
static void read_build_id(struct elf_funcs *e, Elf *elf)
{
	const unsigned char *id;
	size_t len, i;

	if (!elf_notes__build_id(elf, &id, &len))
		return;
	for (i = 0; i < len && i < 20; i++)
		snprintf(e->build_id + 2 * i, 3, "%02x", id[i]);
}

static void read_debuglink(struct elf_funcs *e, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t len, crc_off;

	if (!data || !data->d_buf || !data->d_size)
		return;
	len = strnlen(data->d_buf, data->d_size);
	crc_off = (len + 4) & ~(size_t)3;	/* the name, a NUL, padding to 4 */
	if (len == 0 || len == data->d_size || crc_off + 4 > data->d_size)
		return;
	e->debuglink = strndup(data->d_buf, len);
	memcpy(&e->debuglink_crc, (char *)data->d_buf + crc_off, 4);
}

/* strs while sorting (qsort has no context argument) */
static const char *sort_strs;

static size_t leading_underscores(const char *s)
{
	return strspn(s, "_");
}

/*
 * By offset; among aliases the name people call wins: global over weak over local, then
 * fewer leading underscores ("open" over "__libc_open"), then the shorter, then by name.
 */
static int cmp_raw(const void *a, const void *b)
{
	const struct raw_sym *x = a, *y = b;
	const char *xn = sort_strs + x->name_off, *yn = sort_strs + y->name_off;
	size_t xl, yl;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	xl = leading_underscores(xn);
	yl = leading_underscores(yn);
	if (xl != yl)
		return xl < yl ? -1 : 1;
	xl = strlen(xn);
	yl = strlen(yn);
	if (xl != yl)
		return xl < yl ? -1 : 1;
	return strcmp(xn, yn);
}

static int cmp_name(const void *a, const void *b)
{
	const struct elf_func_name *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ?: (x->func > y->func) - (x->func < y->func);
}

/* One function per offset (the best-ranked alias names it); every name kept. */
static int build_tables(struct elf_funcs *e, struct raw_syms *rs)
{
	size_t i, j;
	bool dup;

	if (rs->cnt) {
		sort_strs = e->strs;
		qsort(rs->v, rs->cnt, sizeof(*rs->v), cmp_raw);
	}
	e->funcs = calloc(rs->cnt ?: 1, sizeof(*e->funcs));
	e->names = calloc(rs->cnt ?: 1, sizeof(*e->names));
	if (!e->funcs || !e->names)
		return -ENOMEM;
	for (i = 0; i < rs->cnt; i++) {
		const struct raw_sym *s = &rs->v[i];
		const char *name = e->strs + s->name_off;
		struct elf_func *f;

		if (!e->func_cnt || e->funcs[e->func_cnt - 1].offset != s->offset) {
			f = &e->funcs[e->func_cnt++];
			f->name = name;
			f->addr = s->addr;
			f->offset = s->offset;
			f->size = s->size;
		}
		/* the same name twice at one offset (.symtab's local and global copies) */
		dup = false;
		for (j = e->name_cnt; j > 0 && e->names[j - 1].func == e->func_cnt - 1; j--) {
			if (strcmp(e->names[j - 1].name, name) == 0) {
				dup = true;
				break;
			}
		}
		if (dup)
			continue;
		e->names[e->name_cnt].name = name;
		e->names[e->name_cnt].func = e->func_cnt - 1;
		e->name_cnt++;
	}
	if (e->name_cnt)
		qsort(e->names, e->name_cnt, sizeof(*e->names), cmp_name);
	e->addr_sorted = true;
	for (i = 1; i < e->func_cnt; i++)
		e->addr_sorted &= e->funcs[i - 1].addr < e->funcs[i].addr;
	return 0;
}

static int read_elf(struct elf_funcs *e, Elf *elf)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	struct raw_syms rs = {};
	size_t shstrndx, phnum;
	GElf_Ehdr eh;
	long n = 0;
	int err;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    elf_getshdrstrndx(elf, &shstrndx) || elf_getphdrnum(elf, &phnum))
		return -EBADF;
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return -EBADF;
	e->is_dyn = eh.e_type == ET_DYN;
	e->entry = eh.e_entry;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_SYMTAB && !symtab)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM && !dynsym)
			dynsym = scn;
		if (!name)
			continue;
		if (strcmp(name, ".go.buildinfo") == 0 || strcmp(name, ".note.go.buildid") == 0 ||
		    strcmp(name, ".gopclntab") == 0)
			e->is_go = true;
		else if (strcmp(name, ".gcc_except_table") == 0)
			e->has_eh_table = true;
		else if (strcmp(name, ".gnu_debuglink") == 0 && !e->debuglink)
			read_debuglink(e, scn);
	}

	read_build_id(e, elf);
	read_segs(e, elf, phnum);
	if (symtab) {
		n = read_symtab(e, elf, symtab, &rs);
		e->source = n > 0 ? ELF_FUNCS_SYMTAB : ELF_FUNCS_NONE;
	}
	if (n == 0 && dynsym) {
		n = read_symtab(e, elf, dynsym, &rs);
		e->source = n > 0 ? ELF_FUNCS_DYNSYM : ELF_FUNCS_NONE;
	}
	e->has_symtab = symtab;
	err = n < 0 ? (int)n : build_tables(e, &rs);
	free(rs.v);
	if (!err)
		pr(e, LOG_DEBUG, "%zu functions (%zu names) from %s\n", e->func_cnt, e->name_cnt,
		   e->source == ELF_FUNCS_DYNSYM ? ".dynsym" : ".symtab");
	return err;
}

static struct elf_funcs *open_common(int fd, const void *buf, size_t sz,
				     const struct elf_funcs_opts *opts)
{
	struct elf_funcs *e;
	Elf *elf;
	int err;

	if (opts && !opts__valid(opts, sizeof(*opts)))
		return errno = EINVAL, NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return errno = EIO, NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	if (opts)
		OPTS_COPY(&e->o, opts);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : elf_memory((char *)buf, sz);
	if (!elf) {
		err = -EBADF;
		goto err;
	}
	err = read_elf(e, elf);
	elf_end(elf);
	if (err)
		goto err;
	return e;
err:
	elf_funcs__free(e);
	errno = -err;
	return NULL;
}

struct elf_funcs *elf_funcs__open(const char *path, const struct elf_funcs_opts *opts)
{
	struct elf_funcs *e;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	e = open_common(fd, NULL, 0, opts);
	err = errno;
	close(fd);
	errno = err;
	return e;
}

struct elf_funcs *elf_funcs__open_mem(const void *buf, size_t sz,
				      const struct elf_funcs_opts *opts)
{
	return open_common(-1, buf, sz, opts);
}

void elf_funcs__free(struct elf_funcs *e)
{
	if (!e)
		return;
	free(e->funcs);
	free(e->names);
	free(e->strs);
	free(e->debuglink);
	free(e);
}

size_t elf_funcs__func_cnt(const struct elf_funcs *e)
{
	return e->func_cnt;
}

const struct elf_func *elf_funcs__func(const struct elf_funcs *e, size_t idx)
{
	return idx < e->func_cnt ? &e->funcs[idx] : NULL;
}

size_t elf_funcs__name_cnt(const struct elf_funcs *e)
{
	return e->name_cnt;
}

const struct elf_func_name *elf_funcs__name(const struct elf_funcs *e, size_t idx)
{
	return idx < e->name_cnt ? &e->names[idx] : NULL;
}

const struct elf_func *elf_funcs__find(const struct elf_funcs *e, const char *name)
{
	struct elf_func_name key = { .name = name };
	size_t lo = 0, hi = e->name_cnt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(e->names[mid].name, key.name);

		if (c == 0)
			return &e->funcs[e->names[mid].func];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct elf_func *elf_funcs__find_addr(const struct elf_funcs *e, __u64 addr)
{
	size_t lo = 0, hi = e->func_cnt, i;

	if (!e->addr_sorted) {
		for (i = 0; i < e->func_cnt; i++)
			if (e->funcs[i].addr == addr)
				return &e->funcs[i];
		return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->funcs[mid].addr == addr)
			return &e->funcs[mid];
		if (e->funcs[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

enum elf_funcs_source elf_funcs__source(const struct elf_funcs *e)
{
	return e->source;
}

bool elf_funcs__has_symtab(const struct elf_funcs *e)
{
	return e->has_symtab;
}

int elf_funcs__use_debug_symtab(struct elf_funcs *e, const char *debug_path)
{
	struct raw_syms rs = {};
	Elf_Scn *scn = NULL;
	Elf *elf;
	long n = 0;
	int fd, err;

	if (e->has_symtab)
		return -EEXIST;
	fd = open(debug_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			n = read_symtab(e, elf, scn, &rs);
			break;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	if (n <= 0) {
		free(rs.v);
		return n < 0 ? (int)n : -ENODATA;
	}
	/* the debug file's table has every function .dynsym had and the rest */
	free(e->funcs);
	free(e->names);
	e->funcs = NULL;
	e->names = NULL;
	e->func_cnt = e->name_cnt = 0;
	err = build_tables(e, &rs);
	free(rs.v);
	if (err)
		return err;
	e->source = ELF_FUNCS_DEBUG_SYMTAB;
	pr(e, LOG_DEBUG, "%zu functions (%zu names) from %s's .symtab\n", e->func_cnt,
	   e->name_cnt, debug_path);
	return 0;
}

bool elf_funcs__is_dyn(const struct elf_funcs *e)
{
	return e->is_dyn;
}

__u64 elf_funcs__entry_addr(const struct elf_funcs *e)
{
	return e->entry;
}

bool elf_funcs__is_go(const struct elf_funcs *e)
{
	return e->is_go;
}

bool elf_funcs__has_eh_table(const struct elf_funcs *e)
{
	/*
	 * glibc is built with exception tables (thread cancellation unwinds through its
	 * frames), so every static C program and libc.so.6 itself have them: the tables count
	 * only with C++'s personality routine beside them, or with no symbols to tell by.
	 */
	return e->has_eh_table && (e->names_cxx_personality || !e->read_syms);
}

const char *elf_funcs__build_id(const struct elf_funcs *e)
{
	return e->build_id[0] ? e->build_id : NULL;
}

const char *elf_funcs__debuglink(const struct elf_funcs *e, __u32 *crc)
{
	if (crc)
		*crc = e->debuglink_crc;
	return e->debuglink;
}
