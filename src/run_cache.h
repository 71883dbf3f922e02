/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One run's use of the boot cache (boot_cache.h): which copies it reads (kallsyms' and
 * ftrace's lists through the prefetch, feature detection's answers, the vmlinux BTF's
 * functions) and what it leaves for the next runs (the lists and the BTF's functions once
 * tracing showed its first samples, the features once detected). The CLI layer's glue
 * between the boot cache, discovery and the prefetch (retsnoop.c).
 */
#ifndef RETSNOOP_RUN_CACHE_H
#define RETSNOOP_RUN_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include "log.h"

struct btf;
struct btf_funcs;
struct func_discovery;
struct kernel_features;
struct prefetch_opts;

struct run_cache_opts {
	size_t sz;		/* sizeof(struct run_cache_opts) */
	log_print_fn print;	/* -vv says what was used, and why not */
	/*
	 * A run of user-space functions only: only feature detection's answers are used,
	 * those of a detection through a uprobe (kernel_features__detect_user()), kept apart
	 * from a kernel calibration's (which alone says whether kernel functions can be probed)
	 */
	bool user_only;
};

struct run_cache;

/*
 * This boot's copies: @popts gets the lists' paths (NULL where there is none yet; not
 * touched, and may be NULL, with opts.user_only). NULL, said why at -vv, when no copy can
 * be used or kept (the run goes on without).
 */
struct run_cache *run_cache__open(const struct run_cache_opts *opts, struct prefetch_opts *popts);

/* Feature detection's answers into @f, if kept (with the uprobe links' when @uprobes). */
bool run_cache__features(struct run_cache *rc, struct kernel_features *f, bool uprobes);
/* Detected answers kept for the next runs. */
void run_cache__keep_features(struct run_cache *rc, const struct kernel_features *f,
			      bool uprobes);

/*
 * The vmlinux BTF's functions (btf_funcs.h), where @usable: the run needs nothing else of
 * the BTF. NULL: the BTF is read; a missing or refused copy is then made from it
 * (run_cache__digest_btf()). Owned by @rc.
 */
const struct btf_funcs *run_cache__btf_funcs(struct run_cache *rc, bool usable);
/* The run read @btf: its functions for the next runs, if the copy was missing or refused. */
void run_cache__digest_btf(struct run_cache *rc, const struct btf *btf);

/* Discovery's lists, saved from @d (which must stay unchanged until run_cache__free()). */
void run_cache__set_discovery(struct run_cache *rc, struct func_discovery *d);
/*
 * Save what the copies lack, once (the lists on the boot cache's thread): a
 * trace_cmd_target.after_first_poll callback (@ctx the run_cache); the run's end calls it
 * too. NULL @ctx: nothing.
 */
void run_cache__save(void *ctx);

/* Waits for the save, says at -vv if it saved nothing. */
void run_cache__free(struct run_cache *rc);

#endif
