/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internals of the sidecar's symbolizer, shared by its parts:
 *   symbolizer.c  open/close, the address and glob requests
 *   cu_table.c    compile units: the address -> CU table, CU DIEs, line tables, file names
 *   scopes.c      a CU's functions and inlined instances as sorted, nested range tables
 *   die_scan.c    the own DIE scanner (reads .debug_info with abbrev.c's compiled tables)
 *   die_walk.c    the libdw walker: the fallback, and the reference the scanner is tested on
 *   elf_syms.c    the ELF symbol table, for code without a DWARF function
 */
#ifndef __SIDECAR_SYMBOLIZER_INT_H
#define __SIDECAR_SYMBOLIZER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>

#include "abbrev.h"
#include "lines.h"
#include "paths.h"
#include "symbolizer.h"

/* Deeper DIE nesting than this is treated as corrupt input (protects the stack). */
#define MAX_DIE_DEPTH 256

/* One subprogram or inlined-subroutine instance of a CU. */
struct scope {
	const char *name;
	const char *call_file;	/* normalized call site, inlined instances only */
	int call_line;
	int call_col;
	int parent;		/* enclosing scope, -1 for a subprogram */
	int func;		/* subprograms of a lazily expanded CU: index into funcs */
};

/* One address range of a scope; 'up' is the nearest earlier range that encloses it. */
struct srange {
	uint64_t lo, hi;
	int scope;
	int depth;
	int up;
};

struct rtab {
	struct srange *r;
	int n, cap;
};

/* A top-level function whose inlined subroutines are indexed on first use. */
struct func {
	Dwarf_Off off;
	int scope;
	bool expanded;
	struct rtab tab;
};

struct cu {
	Dwarf_Off unit_off;
	Dwarf_Off die_off;
	Dwarf_Die die;
	bool die_ok;
	bool own_tried;		/* own scanner read the CU DIE (or failed to) */
	bool comp_dir_ok;
	bool indexed;
	bool files_ok;
	int lines_state;	/* 0: not loaded, 1: own table, -1: use libdw */
	struct line_table lt;
	char **paths;		/* normalized path per lt file index, lazily */
	const char *comp_dir;
	uint64_t base;		/* DW_AT_low_pc of the CU DIE: base of its range lists */
	bool has_base;
	uint64_t stmt_list;
	bool has_stmt_list;	/* read by the own scanner; else ask libdw */
	Dwarf_Files *files;
	size_t nfiles;
	struct scope *scopes;
	int nscopes, cap_scopes;
	struct rtab all;	/* subprograms; everything in flat mode */
	struct rtab *cur;	/* where new ranges go */
	bool flat;		/* libdw walked the whole CU at once */
	struct func *funcs;
	int nfuncs, cap_funcs;
};

struct cu_range {
	uint64_t lo, hi;
	size_t cu;
};

struct sym {
	uint64_t addr;
	uint64_t size;		/* st_size, 0 if not given */
	const char *name;
	int rank;
};

struct exec_sec {
	uint64_t lo, hi;
};

struct symbolizer {
	struct symbolizer_opts opts;
	int fd;
	Elf *elf;
	Dwarf *dw;
	bool kernel;
	struct line_sects sects;
	struct exec_sec *secs;
	int nsecs;

	struct cu *cus;
	size_t ncus;
	bool cus_loaded;
	struct cu_range *cu_ranges;
	size_t ncu_ranges;
	bool cu_ranges_loaded;

	struct sym *syms;
	size_t nsyms;
	bool syms_loaded;
	bool syms_full;		/* from .symtab (not only the exported .dynsym) */
	struct func_name *fnames;	/* function symbols by name (elf_syms.c) */
	size_t fnames_cap;
	bool fnames_loaded;
	int fnames_err;

	struct path_cache paths;
	struct symb_stats stats;

	/* abbreviations of the last unit scanned (a function expansion re-scans its CU's) */
	struct abbrev_table abbrevs;
};

/* realloc() @arr to hold @need elements of @elem bytes, doubling; NULL if out of memory. */
void *grow(void *arr, int *cap, int need, size_t elem);
uint64_t now_ns(void);

/* cu_table.c */
int cus_load(struct symbolizer *s);
/* The CU DIE and comp_dir; with @own (symbolization) read by the own scanner if it can. */
int cu_load_die(struct symbolizer *s, struct cu *cu, bool own);
/* Is @addr in the code of @cu (its DIE loaded)? From the CU DIE's own ranges. */
bool cu_has_addr(struct cu *cu, uint64_t addr);
/* The CU whose code contains @addr; NULL if none. */
struct cu *cu_at(struct symbolizer *s, uint64_t addr);
/* The same with its DIE loaded. */
struct cu *cu_find(struct symbolizer *s, uint64_t addr);
/* The own line table of @cu; false when libdw has to be asked instead. */
bool cu_lines(struct symbolizer *s, struct cu *cu);
/* Normalized path of file @idx of the own line table ("??" if unknown). */
const char *cu_own_file(struct symbolizer *s, struct cu *cu, uint64_t idx);
/* Normalized path of file @idx (DW_AT_call_file numbering), own table or libdw's. */
const char *cu_file(struct symbolizer *s, struct cu *cu, uint64_t idx);
void cu_free(struct cu *cu);

/* scopes.c */
/* Add a range of the scope about to be created (index cu->nscopes) to cu->cur; counts in *nr. */
int scope_push_range(struct cu *cu, uint64_t lo, uint64_t hi, int depth, int *nr);
/* The scope whose ranges were just pushed; the caller fills in its call site. */
struct scope *scope_new(struct cu *cu, const char *name, int parent);
int scope_add_func(struct cu *cu, Dwarf_Off off, int scope);
/* Forget every scope and range of @cu. */
void scopes_reset(struct cu *cu);
/* Innermost scope at @addr (indexing the CU and the function on first use); -1: none. */
int scope_find(struct symbolizer *s, struct cu *cu, uint64_t addr);

/* die_scan.c */
/* The CU DIE's attributes (comp_dir, base address, stmt_list); -ENOTSUP: ask libdw. */
int scan_cu_die(struct symbolizer *s, struct cu *cu);
/*
 * Without @fn: the CU's top-level functions, into cu->all and cu->funcs. With @fn: the
 * inlined subroutines of that function, into its own table. -ENOTSUP: use die_walk_cu().
 */
int scan_cu(struct symbolizer *s, struct cu *cu, struct func *fn);

/* die_walk.c */
/* libdw's walk of the whole CU into cu->all (cu->flat). */
int die_walk_cu(struct symbolizer *s, struct cu *cu);
/* add_scope() of libdw's DIE: the scope index, -1 if it has no code, -ENOMEM. */
int die_walk_add_scope(struct symbolizer *s, struct cu *cu, Dwarf_Die *die, int parent, int depth);
/* The name of a DIE the way dwarf_attr_integrate() finds it, NULL if none. */
const char *die_walk_name(Dwarf_Die *die);
int die_walk_udata(Dwarf_Die *die, unsigned int at, Dwarf_Word *val);
/* Address of a function's code: low_pc, entry_pc or its first range; -ENOENT if none. */
int die_walk_entry_addr(Dwarf_Die *die, Dwarf_Addr *addr);

/* elf_syms.c */
bool elf_in_exec(const struct symbolizer *s, uint64_t addr);
/* The best function symbol at or below @addr, NULL if none. */
const char *elf_sym_name(struct symbolizer *s, uint64_t addr);
/* The same with the symbol's value and size (0: unknown). */
const char *elf_sym_find(struct symbolizer *s, uint64_t addr, uint64_t *start, uint64_t *size);
/* The address of the only function symbol named @name; -ENOENT none, -ENOTUNIQ several. */
int elf_func_by_name(struct symbolizer *s, const char *name, uint64_t *addr);
void elf_syms_free(struct symbolizer *s);

#endif /* __SIDECAR_SYMBOLIZER_INT_H */
