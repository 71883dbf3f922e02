// SPDX-License-Identifier: BSD-2-Clause
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdw.h>
#include "records.h"
#include "debug_file.h"
#include "user_dwarf.h"
#include "user_dwarf_btf.h"

#ifndef DW_LANG_Mips_Assembler
#define DW_LANG_Mips_Assembler 0x8001
#endif

static bool is_asm_cu(Dwarf_Die *fn)
{
	Dwarf_Die cu;

	return dwarf_diecu(fn, &cu, NULL, NULL) && dwarf_srclang(&cu) == DW_LANG_Mips_Assembler;
}

/*
 * Whether a compile unit describes types at all: DWARF of line tables and function names
 * only (gcc -g1, Rust's standard library) has no DW_AT_type anywhere, so a function
 * without one there is of unknown type, not void. Its first top-level type DIE says so.
 */
static bool cu_has_types(Dwarf_Die *cu)
{
	Dwarf_Die c;
	int r;

	for (r = dwarf_child(cu, &c); r == 0; r = dwarf_siblingof(&c, &c)) {
		switch (dwarf_tag(&c)) {
		case DW_TAG_base_type:
		case DW_TAG_pointer_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_enumeration_type:
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_array_type:
		case DW_TAG_subroutine_type:
		case DW_TAG_unspecified_type:
			return true;
		}
	}
	return false;
}

/*
 * The result flags of a return type, by the kernel's rule (func_types.c for BTF); in a
 * unit without types (@typed false, cu_has_types()) a missing type is no void.
 */
static __u32 type_flags(Dwarf_Die *fn, bool typed)
{
	Dwarf_Attribute attr;
	Dwarf_Die type;
	Dwarf_Word enc;
	int size;

	/*
	 * An assembler's DWARF (glibc's syscall wrappers: open, close, pidfd_open ... from
	 * syscall-template.S) knows no types: a missing or "unspecified" type there says
	 * nothing, and judging it void would hide every error those wrappers return.
	 */
	if (is_asm_cu(fn))
		return FUNC_ERR_GUESS;
	if (!dwarf_attr_integrate(fn, DW_AT_type, &attr))
		return typed ? FUNC_RET_VOID | FUNC_CANT_FAIL : FUNC_ERR_GUESS;
	if (!dwarf_formref_die(&attr, &type) || dwarf_peel_type(&type, &type) != 0)
		return FUNC_ERR_GUESS;
	switch (dwarf_tag(&type)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		return FUNC_RET_PTR;
	case DW_TAG_enumeration_type:
		return FUNC_NEEDS_SIGN_EXT;
	case DW_TAG_base_type:
		break;
	case DW_TAG_unspecified_type:
		return FUNC_ERR_GUESS;
	default:
		return FUNC_CANT_FAIL;	/* structs, unions by value */
	}
	size = dwarf_bytesize(&type);
	if (dwarf_formudata(dwarf_attr(&type, DW_AT_encoding, &attr), &enc) != 0)
		return FUNC_ERR_GUESS;
	if (enc == DW_ATE_boolean)
		return FUNC_RET_BOOL | FUNC_CANT_FAIL;
	/*
	 * size_t and the like: a size, or an error as (size_t)-1 (iconv(), mbrtowc()) or
	 * -code (zstd), which the kernel's rule for unsigned long counts too. 4-byte unsigned
	 * results stay successes, as the kernel's unsigned int.
	 */
	if ((enc == DW_ATE_unsigned || enc == DW_ATE_unsigned_char) && size == 8)
		return FUNC_ERR_RANGE;
	if (enc != DW_ATE_signed && enc != DW_ATE_signed_char)
		return FUNC_CANT_FAIL;	/* unsigned, float */
	if (size == 4)
		return FUNC_NEEDS_SIGN_EXT;
	if (size == 8)
		return 0;
	return FUNC_CANT_FAIL;		/* char, short: as the kernel's rule has it */
}

struct walk {
	int (*cb)(const struct user_dwarf_func *f, void *ctx);
	void *ctx;
	int err;
	Dwarf_Die *die;		/* the function being called back for */
	struct dwarf_btf *db;	/* prototypes asked for during the walk */
	bool cu_typed;		/* the unit walked has types (cu_has_types()) */
};

int user_dwarf__func_btf(const struct user_dwarf_func *f, struct btf *btf, const char *name)
{
	struct walk *w = f->priv;

	if (w->db && dwarf_btf__btf(w->db) != btf) {
		dwarf_btf__free(w->db);
		w->db = NULL;
	}
	if (!w->db && !(w->db = dwarf_btf__new(btf)))
		return -ENOMEM;
	return dwarf_btf__add_func(w->db, w->die, name);
}

/* A subprogram's parameters come first among its children (template parameters aside). */
int user_dwarf__func_param_cnt(const struct user_dwarf_func *f)
{
	struct walk *w = f->priv;
	Dwarf_Die c;
	int r, tag, n = 0;

	for (r = dwarf_child(w->die, &c); r == 0; r = dwarf_siblingof(&c, &c)) {
		tag = dwarf_tag(&c);
		if (tag == DW_TAG_formal_parameter)
			n++;
		else if (tag != DW_TAG_template_type_parameter &&
			 tag != DW_TAG_template_value_parameter)
			break;
	}
	return n;
}

/*
 * Where a function's code begins: its low_pc, or for a function GCC split into a hot and a
 * cold part (foo and foo.cold, at -O2 whenever it has unlikely paths) the first of its
 * DW_AT_ranges, the hot part its symbol names. False for declarations and inlined-only
 * instances, which have no code of their own.
 */
static bool func_entry(Dwarf_Die *die, Dwarf_Addr *lo)
{
	Dwarf_Addr base, end;

	if (dwarf_lowpc(die, lo) == 0)
		return true;
	return dwarf_hasattr(die, DW_AT_ranges) && dwarf_ranges(die, 0, &base, lo, &end) > 0;
}

static int on_func(Dwarf_Die *die, void *arg)
{
	struct walk *w = arg;
	struct user_dwarf_func f = {};
	Dwarf_Addr lo;

	if (!func_entry(die, &lo))
		return DWARF_CB_OK;
	f.name = dwarf_diename(die);
	f.addr = lo;
	f.file = dwarf_decl_file(die);
	f.ret_flags = type_flags(die, w->cu_typed);
	f.priv = w;
	w->die = die;
	w->err = w->cb(&f, w->ctx);
	return w->err ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static bool has_debug_info(Dwarf *dw)
{
	Dwarf_Off off = 0, next;
	size_t hsz;

	return dwarf_nextcu(dw, off, &next, &hsz, NULL, NULL, NULL) == 0;
}

static int try_open(const char *file, Dwarf **dw, int *fd)
{
	*fd = open(file, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	*dw = dwarf_begin(*fd, DWARF_C_READ);
	if (*dw && has_debug_info(*dw))
		return 0;
	if (*dw)
		dwarf_end(*dw);
	*dw = NULL;
	close(*fd);
	*fd = -1;
	return -ENODATA;
}

/* The image's own DWARF, else its separate debug file's (debug_file.h) */
static int open_dwarf(const char *path, const struct elf_funcs *e, struct debug_file_cache *dbg,
		      Dwarf **dw, int *fd, char *out, size_t out_sz)
{
	struct debug_file_cache own = {};
	__u32 crc = 0;
	const char *link = elf_funcs__debuglink(e, &crc), *bid = elf_funcs__build_id(e), *cand;
	int err;

	snprintf(out, out_sz, "%s", path);
	if (try_open(path, dw, fd) == 0)
		return 0;
	err = debug_file__cached(dbg ?: &own, path, bid, link, crc, NULL, &cand);
	if (err == -ENOMEM)
		return err;
	if (!err)
		snprintf(out, out_sz, "%s", cand);
	debug_file_cache__free(&own);
	if (err || try_open(out, dw, fd))
		return -ENODATA;
	return 0;
}

int user_dwarf__for_each_func(const char *path, const struct elf_funcs *e,
			      struct debug_file_cache *dbg, int (*cb)(const struct user_dwarf_func *f, void *ctx), void *ctx,
			      char *dwarf_path, size_t dwarf_path_sz)
{
	struct walk w = { .cb = cb, .ctx = ctx };
	Dwarf_Off off = 0, next;
	char buf[PATH_MAX * 2];
	Dwarf *dw = NULL;
	size_t hsz;
	int fd = -1, err;

	err = open_dwarf(path, e, dbg, &dw, &fd, dwarf_path ?: buf,
			 dwarf_path ? dwarf_path_sz : sizeof(buf));
	if (err)
		return err;
	while (!w.err && dwarf_nextcu(dw, off, &next, &hsz, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsz, &cu)) {
			w.cu_typed = cu_has_types(&cu);
			dwarf_getfuncs(&cu, on_func, &w, 0);
		}
		off = next;
	}
	dwarf_btf__free(w.db);
	dwarf_end(dw);
	close(fd);
	return w.err;
}
