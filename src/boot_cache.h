/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel's function lists kept for the rest of the boot: /proc/kallsyms' function
 * symbols (as a table image, ksyms__write_image()) and tracefs's available_filter_functions
 * (as an image too, ftrace_funcs__write_image(); a text copy an older build kept still
 * reads), feature detection's answers (what the kernel can do does not change
 * until it reboots) and what discovery takes from the vmlinux BTF (btf_funcs.h), saved by one run in a root-only directory on tmpfs (/run/retsnoop) and read
 * by the next ones instead of the kernel's own files. The kernel formats those a line at
 * a time on every read, the longest step of a run's start in a slow guest.
 *
 * A copy is valid for one boot (named after /proc/sys/kernel/random/boot_id) and one set
 * of loaded modules: its name carries a hash of /proc/modules' names, sizes and load
 * addresses and of each module's build ID, so a module loaded, unloaded, or rebuilt and
 * reloaded makes it another copy. BPF programs and trampolines, which come and go, are
 * never in it (nor in discovery's table): symbolization reads those from /proc/kallsyms
 * after attaching, as before.
 *
 * A boot's first run restores the copies from the ones kept for the kernel build and its
 * modules by an earlier boot (build_cache.h), where there are such, and keeps the copies it
 * makes there too.
 */
#ifndef RETSNOOP_BOOT_CACHE_H
#define RETSNOOP_BOOT_CACHE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

struct ksyms;
struct ftrace_funcs;

struct boot_cache_opts {
	size_t sz;		/* sizeof(struct boot_cache_opts) */
	const char *dir;	/* NULL: /run/retsnoop */
	/* NULL: "": where proc/ and sys/ are (tests give it a tree of their own) */
	const char *root;
	/* non-zero: asked to stop; a save in progress gives up and leaves nothing behind */
	const volatile sig_atomic_t *stop;
	/*
	 * Called on the saving thread once the kallsyms image is written: the table's name
	 * index, kept for it, may go (ksyms__drop_name_index()). NULL: none.
	 */
	void (*ksyms_saved)(void *ctx);
	void *ctx;
	/* NULL: /var/cache/retsnoop, where copies are kept per kernel build (build_cache.h) */
	const char *build_dir;
	/*
	 * Only the small copies are used (BOOT_CACHE_USER_FEATURES): no kernel build's
	 * copies restored, and kernel.kptr_restrict not looked at (nothing kept has addresses)
	 */
	bool features_only;
};

enum boot_cache_file {
	BOOT_CACHE_KALLSYMS,		/* kallsyms' function symbols, a ksyms image */
	BOOT_CACHE_FTRACE_FUNCS,	/* available_filter_functions, an image (or text) */
	BOOT_CACHE_FEATURES,		/* feature detection's answers (kernel_features__format()) */
	BOOT_CACHE_BTF_FUNCS,		/* the vmlinux BTF's functions (btf_funcs.h) */
	/* feature detection's answers through a uprobe, for runs of user functions only */
	BOOT_CACHE_USER_FEATURES,
	BOOT_CACHE_FILE_CNT,
};

struct boot_cache;

/*
 * Work out this boot's key and check the directory. NULL with errno set when no copy can
 * be used or kept: ENOENT (no boot_id), EPERM (kernel.kptr_restrict is 2: the kernel hides
 * addresses even from root, and a copy must not show them; not with opts.features_only), EAGAIN (a module is loading or
 * unloading), EACCES (the directory is someone else's or open to others), ENOMEM.
 */
struct boot_cache *boot_cache__open(const struct boot_cache_opts *opts);

/* The copy of @which, if there is one for this key; NULL if there is none. */
const char *boot_cache__path(const struct boot_cache *c, enum boot_cache_file which);

/*
 * The kernel build's copy (build_cache.h) the copy of @which was restored from by
 * boot_cache__open(), or NULL.
 */
const char *boot_cache__restored(const struct boot_cache *c, enum boot_cache_file which);

/*
 * Why no list came from, or was kept as, the kernel build's copies: 0 when they were used
 * or kept, -ENODATA (none kept for this kernel and these modules yet), else
 * build_cache__open()'s, build_cache__restore()'s or build_cache__keep()'s error.
 */
int boot_cache__build_err(const struct boot_cache *c);

/*
 * Save what the copies lack from @ks and @ff (either may be NULL), on a helper thread:
 * both must stay unchanged until boot_cache__wait() or opts.ksyms_saved(). @ks is a table
 * of static functions (ksyms__load_static_funcs()) with its name index, which the image
 * copies. Nothing is saved when the modules changed since boot_cache__open() (the lists
 * may mix both states) or when @ks' addresses are hidden. 0 when the save started or
 * nothing was needed; negative errno otherwise.
 */
int boot_cache__save(struct boot_cache *c, const struct ksyms *ks, const struct ftrace_funcs *ff);

/*
 * A small copy (BOOT_CACHE_FEATURES, BOOT_CACHE_USER_FEATURES) into @buf, NUL-terminated: its length; -ENOENT when
 * there is none, -EFBIG when it may not fit in @sz - 1 bytes, another negative errno.
 */
ssize_t boot_cache__read(const struct boot_cache *c, enum boot_cache_file which, char *buf,
			size_t sz);

/*
 * Keep @len bytes of @data as the copy of @which (not a list), written here and now: a few
 * hundred bytes (the features), or 2 MB once a boot after the run is ready (the BTF
 * functions), not worth the saving thread. 0 or negative errno.
 */
int boot_cache__write(struct boot_cache *c, enum boot_cache_file which, const void *data,
		      size_t len);

/*
 * Wait for the save (a stop makes it give up at once): 0 if it saved or had nothing to
 * save, negative errno if it saved nothing. Copies of other module sets of this boot are
 * removed once this one is saved: a developer reloading a module keeps one copy, not one
 * per build, in memory (tmpfs).
 */
int boot_cache__wait(struct boot_cache *c);

/* Waits for the save too. */
void boot_cache__free(struct boot_cache *c);

#endif
