// SPDX-License-Identifier: BSD-2-Clause
/*
 * DWARF symbolizer of the retsnoop sidecar, on elfutils libdw plus its own decoders.
 *
 * Everything is lazy so that the first reply is cheap: the ELF is mmap()ed by libelf, the
 * address -> CU table is built on the first lookup (cu_table.c), a CU's functions are
 * indexed on the first address that falls into it (scopes.c, die_scan.c) and a function's
 * inlined subroutines on the first address inside it. The ELF symbol table is only read
 * when an address has no DWARF function (elf_syms.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dwarf.h>
#include <gelf.h>

#include "symbolizer_int.h"
/* the main program's extensible-opts rule, shared as is (a header of inline functions) */
#include "../src/opts.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void *grow(void *arr, int *cap, int need, size_t elem)
{
	int ncap;
	void *p;

	if (need <= *cap)
		return arr;
	ncap = *cap ? *cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	p = realloc(arr, (size_t)ncap * elem);
	if (!p)
		return NULL;
	*cap = ncap;
	return p;
}

int symbolizer__symbolize(struct symbolizer *s, uint64_t addr, struct src_frame *frames, int max)
{
	int chain[SYMB_MAX_FRAMES], n = 0, i, sid;
	const char *file = "??";
	int line = 0, col = 0;
	struct cu *cu;

	if (max <= 0)
		return -EINVAL;
	if (max > SYMB_MAX_FRAMES)
		max = SYMB_MAX_FRAMES;
	if (!elf_in_exec(s, addr))
		return -ERANGE;

	cu = s->dw ? cu_find(s, addr) : NULL;
	if (cu) {
		uint64_t t0 = now_ns(), t1;

		sid = scope_find(s, cu, addr);
		if (sid < -1)
			return sid;
		t1 = now_ns();
		s->stats.index_ns += t1 - t0;
		if (cu_lines(s, cu)) {
			const struct line_row *row = line_table__find(&cu->lt, addr);

			if (row) {
				file = cu_own_file(s, cu, row->file);
				line = row->line;
				col = row->col;
			}
		} else {
			Dwarf_Line *dl = dwarf_getsrc_die(&cu->die, addr);

			if (dl) {
				file = path_cache__get(&s->paths, dwarf_linesrc(dl, NULL, NULL),
						       cu->comp_dir);
				dwarf_lineno(dl, &line);
				dwarf_linecol(dl, &col);
			}
		}
		s->stats.lines_ns += now_ns() - t1;
		/* innermost first into chain[]; keep the innermost 'max' if deeper */
		for (; sid >= 0 && n < max; sid = cu->scopes[sid].parent)
			chain[n++] = sid;
	}
	if (!n) {
		const char *name = elf_sym_name(s, addr);

		if (!name && !line)
			return 0;
		frames[0] = (struct src_frame){ name ?: "??", file, line, col };
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct scope *sc = &cu->scopes[chain[n - 1 - i]];
		struct src_frame *f = &frames[i];

		f->func = sc->name;
		if (i < n - 1) {
			/* where this function calls (inlines) the next, inner one */
			struct scope *in = &cu->scopes[chain[n - 2 - i]];

			f->file = in->call_file ?: "??";
			f->line = in->call_line;
			f->col = in->call_col;
		} else {
			f->file = file;
			f->line = line;
			f->col = col;
		}
	}
	return n;
}

struct name_list {
	const char **v;
	int n, cap;
};

static int name_add(struct name_list *l, const char *name)
{
	const char **v = grow(l->v, &l->cap, l->n + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	l->v = v;
	l->v[l->n++] = name;
	return 0;
}

/*
 * Functions of @cu without an address in its DWARF, whose code the symbol table still has:
 * GCC leaves some definitions without DW_AT_low_pc (e.g. btf_enum_log in kernel/bpf/btf.c,
 * folded into identical code), and some only as a declaration or abstract instance. One is
 * listed when exactly one function symbol has its name and that symbol's address lies in
 * @cu's own code, so a same-named function of another file (an override, or the callee a
 * declaration stands for) is never pulled in. @done: names already listed for @cu.
 */
static int glob_addrless(struct symbolizer *s, struct cu *cu, const char *path,
			 const struct name_list *cand, struct name_list *done, symb_func_cb cb,
			 void *ctx)
{
	uint64_t addr;
	int i, k, err;

	for (i = 0; i < cand->n; i++) {
		const char *fn = cand->v[i];

		err = elf_func_by_name(s, fn, &addr);
		if (err == -ENOMEM)
			return err;
		if (err || !cu_has_addr(cu, addr))
			continue;
		/* few get here: a linear look for a listed copy is cheaper than sorting */
		for (k = 0; k < done->n && strcmp(done->v[k], fn); k++)
			;
		if (k < done->n)
			continue;
		err = name_add(done, fn) ?: cb(ctx, fn, addr, path);
		if (err)
			return err;
	}
	return 0;
}

/* Top-level functions of @cu with code, then (glob_addrless()) those the DWARF has no code of. */
static int glob_cu(struct symbolizer *s, struct cu *cu, const char *path, symb_func_cb cb,
		   void *ctx, struct name_list *cand, struct name_list *done)
{
	Dwarf_Die child;
	int err;

	cand->n = done->n = 0;
	if (dwarf_child(&cu->die, &child) != 0)
		return 0;
	do {
		Dwarf_Addr addr;
		const char *fn;

		if (dwarf_tag(&child) != DW_TAG_subprogram)
			continue;
		fn = die_walk_name(&child);
		if (!fn)
			continue;
		/* declarations, abstract (inline-only) instances and others without code */
		if (dwarf_hasattr(&child, DW_AT_declaration) || die_walk_entry_addr(&child, &addr)) {
			err = name_add(cand, fn);
			if (err)
				return err;
			continue;
		}
		err = name_add(done, fn) ?: cb(ctx, fn, addr, path);
		if (err)
			return err;
	} while (dwarf_siblingof(&child, &child) == 0);
	return glob_addrless(s, cu, path, cand, done, cb, ctx);
}

int symbolizer__for_each_func_in(struct symbolizer *s, const char *glob, symb_func_cb cb, void *ctx)
{
	struct name_list cand = {}, done = {};
	size_t i;
	int err;

	if (!s->dw)
		return -ENODATA;
	err = cus_load(s);
	if (err)
		return err;
	for (i = 0; i < s->ncus && !err; i++) {
		struct cu *cu = &s->cus[i];
		const char *name, *path;

		if (cu_load_die(s, cu, false))
			continue;
		name = dwarf_diename(&cu->die);
		if (!name)
			continue;
		path = path_cache__get(&s->paths, name, cu->comp_dir);
		/* no FNM_PATHNAME: '*' crosses '/', like the original */
		if (fnmatch(glob, path, 0) == 0)
			err = glob_cu(s, cu, path, cb, ctx, &cand, &done);
	}
	free(cand.v);
	free(done.v);
	return err;
}

int symbolizer__is_kernel(const struct symbolizer *s)
{
	return s->kernel;
}

const struct symb_stats *symbolizer__stats(const struct symbolizer *s)
{
	return &s->stats;
}

size_t symbolizer__cu_count(struct symbolizer *s)
{
	cus_load(s);
	return s->ncus;
}

/* Raw sections for the own line-table decoder; compressed or big-endian ones go to libdw. */
static void note_debug_sect(struct symbolizer *s, Elf_Scn *scn, GElf_Shdr *sh, const char *name)
{
	const unsigned char **p;
	size_t *sz;
	Elf_Data *d;

	if (strcmp(name, ".debug_line") == 0) {
		p = &s->sects.line;
		sz = &s->sects.line_sz;
	} else if (strcmp(name, ".debug_line_str") == 0) {
		p = &s->sects.line_str;
		sz = &s->sects.line_str_sz;
	} else if (strcmp(name, ".debug_info") == 0) {
		p = &s->sects.info;
		sz = &s->sects.info_sz;
	} else if (strcmp(name, ".debug_abbrev") == 0) {
		p = &s->sects.abbrev;
		sz = &s->sects.abbrev_sz;
	} else if (strcmp(name, ".debug_str") == 0) {
		p = &s->sects.str;
		sz = &s->sects.str_sz;
	} else if (strcmp(name, ".debug_rnglists") == 0) {
		p = &s->sects.rnglists;
		sz = &s->sects.rnglists_sz;
	} else if (strcmp(name, ".debug_ranges") == 0) {
		p = &s->sects.ranges;
		sz = &s->sects.ranges_sz;
	} else {
		return;
	}
	if (sh->sh_type == SHT_NOBITS || (sh->sh_flags & SHF_COMPRESSED))
		return;
	d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf)
		return;
	*p = d->d_buf;
	*sz = d->d_size;
}

struct symbolizer *symbolizer__open(const char *path, const struct symbolizer_opts *opts)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	return symbolizer__open_fd(fd, opts);
}

struct symbolizer *symbolizer__open_fd(int fd, const struct symbolizer_opts *opts)
{
	struct symbolizer_opts o;
	struct symbolizer *s;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int err = 0, cap = 0;

	if (OPTS_COPY(&o, opts) || elf_version(EV_CURRENT) == EV_NONE) {
		close(fd);
		return errno = EINVAL, NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		return errno = ENOMEM, NULL;
	}
	s->opts = o;
	s->fd = fd;
	/* mmap, never read the (300+ MB) file whole */
	s->elf = elf_begin(s->fd, ELF_C_READ_MMAP, NULL);
	if (!s->elf || elf_kind(s->elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto cleanup;
	}
	if (elf_getshdrstrndx(s->elf, &shstrndx)) {
		err = -ENOEXEC;
		goto cleanup;
	}
	while ((scn = elf_nextscn(s->elf, scn))) {
		struct exec_sec *secs;
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(s->elf, shstrndx, sh.sh_name);
		if (name && strcmp(name, "__ksymtab_strings") == 0)
			s->kernel = true;
		if (name && strncmp(name, ".debug_", 7) == 0)
			note_debug_sect(s, scn, &sh, name);
		/*
		 * Code sections; a separate debug file (objcopy --only-keep-debug) has them as
		 * NOBITS at the same addresses, and its DWARF and symbols describe them.
		 */
		if (!(sh.sh_flags & SHF_ALLOC) || !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
			continue;
		secs = grow(s->secs, &cap, s->nsecs + 1, sizeof(*s->secs));
		if (!secs) {
			err = -ENOMEM;
			goto cleanup;
		}
		s->secs = secs;
		s->secs[s->nsecs++] = (struct exec_sec){ sh.sh_addr, sh.sh_addr + sh.sh_size };
	}
	if (elf_getident(s->elf, NULL)[EI_DATA] != ELFDATA2LSB)
		memset(&s->sects, 0, sizeof(s->sects));
	s->paths.kernel = s->kernel;
	/* no DWARF is not fatal: the symbol table still names functions */
	s->dw = dwarf_begin_elf(s->elf, DWARF_C_READ, NULL);
	return s;

cleanup:
	symbolizer__close(s);
	return errno = -err, NULL;
}

void symbolizer__close(struct symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->ncus; i++)
		cu_free(&s->cus[i]);
	free(s->cus);
	free(s->cu_ranges);
	abbrev_table__free(&s->abbrevs);
	elf_syms_free(s);
	path_cache__free(&s->paths);
	free(s->secs);
	if (s->dw)
		dwarf_end(s->dw);
	if (s->elf)
		elf_end(s->elf);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}
