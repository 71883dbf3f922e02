/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * /proc/kallsyms: every symbol with its address, type and module, with lookups of function
 * symbols by name (discovery) and by address (symbolization).
 */
#ifndef RETSNOOP_KSYMS_H
#define RETSNOOP_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

struct ksym {
	__u64 addr;
	const char *name;
	const char *module;	/* NULL for vmlinux */
	__u64 size;		/* function symbols: distance to the next one, 0 for the last */
	char type;		/* 't', 'T', 'd', ... as kallsyms prints it */
};

struct ksyms;

/* Load @path (NULL: /proc/kallsyms). NULL with errno set on failure. */
struct ksyms *ksyms__load(const char *path);
/*
 * Load only the function symbols of @path outside [@skip_start, @skip_end): another table
 * has those (symbolization keeps the kernel's own text from an earlier read).
 */
struct ksyms *ksyms__load_funcs_except(const char *path, __u64 skip_start, __u64 skip_end);
/*
 * Load only the function symbols of @path (NULL: /proc/kallsyms), a line at a time: what
 * discovery and symbolization use of the file (ksyms__find()'s _stext and _etext are
 * functions too), in less than half the memory of ksyms__load().
 */
struct ksyms *ksyms__load_funcs(const char *path);
/*
 * The same without the symbols that come and go while the kernel runs (BPF programs, ftrace
 * and kprobe trampolines, ksym__is_dynamic()): the kernel's and the modules' code, which
 * discovery matches and the boot cache keeps.
 */
struct ksyms *ksyms__load_static_funcs(const char *path);
/*
 * The function symbols of @ks as an image file (ksyms_image.c) that ksyms__load_image()
 * restores, orders and sizes included, without parsing. -EINVAL if @ks has other symbols
 * or its name index was dropped, -EIO on a write error.
 */
int ksyms__write_image(const struct ksyms *ks, FILE *f);
/* A module's symbols moved by their own offset (ksyms__copy_image()) */
struct ksyms_move {
	const char *module;
	__u64 delta;
};

/*
 * Copy the image file @src to @out with @delta added to the kernel's addresses and each
 * module's moves[i].delta to that module's (wrapping): the kernel's text placed elsewhere
 * by KASLR, the modules loaded elsewhere, on another boot of the same build
 * (build_cache.h). One offset keeps the orders as they are; modules moved apart are
 * sorted anew, and the sizes that reach from one to the next worked out again. 0, -EINVAL
 * if @src is not a whole image of this build's layout, -ENOENT if it has a module that
 * @moves lacks, other negative errno.
 */
int ksyms__copy_image(const char *src, FILE *out, __u64 delta, const struct ksyms_move *moves,
		      size_t move_cnt);
/* Longest name ksyms__image_head() gives whole (the kernel's KSYM_NAME_LEN) */
#define KSYMS_HEAD_NAME_LEN 512

/* One of the first symbols of an image, in file order */
struct ksyms_head_sym {
	__u64 addr;
	char name[KSYMS_HEAD_NAME_LEN];
};

/*
 * The first @n symbols of the image @path (fewer if it has fewer): how many, or negative
 * errno (-EINVAL: not a whole image). Reads those records and names only.
 */
int ksyms__image_head(const char *path, struct ksyms_head_sym *syms, size_t n);
/* NULL with errno set (EINVAL: not an image, or a damaged one). */
struct ksyms *ksyms__load_image(const char *path);
/*
 * 0 if @path starts with this build's image header and is as long as it says: another
 * build's image (another layout) or a cut one gives -EINVAL, without reading the rest.
 */
int ksyms__check_image(const char *path);
/* Parse kallsyms text; @buf is copied. */
struct ksyms *ksyms__parse(const char *buf, size_t len);
void ksyms__free(struct ksyms *ks);

/* Function symbols are types t, T, w and W. */
bool ksym__is_func(char type);
/* A symbol of code made while the kernel runs: a BPF program, an ftrace or kprobe trampoline */
bool ksym__is_dynamic(const struct ksym *s);

size_t ksyms__cnt(const struct ksyms *ks);
/* All symbols, in file order. */
const struct ksym *ksyms__get(const struct ksyms *ks, size_t idx);

/*
 * Function symbols named @name in module @mod (NULL: vmlinux). Returns how many there are
 * and points @syms at the first of them (an array of pointers, ordered by address). The
 * array is the table's: valid until the next call on @ks (a table from an image fills it
 * anew) or ksyms__drop_name_index(); the symbols it points to, as long as @ks.
 */
size_t ksyms__find_funcs(const struct ksyms *ks, const char *name, const char *mod,
			 const struct ksym *const **syms);

/*
 * Free the name index (a third of the table's size): ksyms__find_funcs() finds nothing
 * from then on; lookups by address and ksyms__find() still work. For a table kept past
 * discovery, where only symbolization reads it.
 */
void ksyms__drop_name_index(struct ksyms *ks);

/* Any symbol (first one in file order) named @name in vmlinux, e.g. "_stext". */
const struct ksym *ksyms__find(const struct ksyms *ks, const char *name);

/*
 * The kernel's own text, [_stext, _etext): false, both 0, when either is missing or they are out
 * of order. Looked up once, by name while the table has its name index (and before
 * ksyms__drop_name_index() drops it), else with ksyms__find(), which reads every symbol
 * before _etext: 4 M instructions of a warm 7.2 start.
 */
bool ksyms__text_bounds(const struct ksyms *ks, __u64 *start, __u64 *end);

/*
 * True when every function address reads as 0: the kernel hides them from us
 * (kernel.kptr_restrict = 2, or 1 without CAP_SYSLOG).
 */
bool ksyms__addrs_hidden(const struct ksyms *ks);

/* Function symbol with the greatest address <= @addr, or NULL. */
const struct ksym *ksyms__map_addr(const struct ksyms *ks, __u64 addr);

#endif
