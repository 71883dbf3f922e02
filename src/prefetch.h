/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Start-up inputs read on helper threads: kallsyms, the vmlinux BTF and tracefs's
 * available_filter_functions take most of a second each to read and parse on a slow
 * machine, and nothing needs them before function discovery. Started first thing, they are read while feature detection (mostly the
 * kernel's work) runs, on the CPUs it leaves idle.
 */
#ifndef RETSNOOP_PREFETCH_H
#define RETSNOOP_PREFETCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

struct ksyms;
struct btf;
struct ftrace_funcs;

struct prefetch_opts {
	size_t sz;			/* sizeof(struct prefetch_opts) */
	const char *kallsyms_path;	/* NULL: /proc/kallsyms */
	const char *ksyms_image;	/* non-NULL: load this image (a boot cache copy) instead */
	bool ksyms;			/* read kallsyms */
	bool vmlinux_btf;		/* read the vmlinux BTF */
	/*
	 * read available_filter_functions (tracefs mounted for it if need be, in the reading
	 * thread's own mount namespace, and unmounted after)
	 */
	bool ftrace_funcs;
	/* NULL: find tracefs's available_filter_functions (a boot cache copy names its own) */
	const char *aff_path;
	/*
	 * Non-zero: asked to stop. A wait for a read still running gives up within a few
	 * milliseconds (NULL, errno EINTR) and the read is left to the process's exit
	 * (kallsyms alone takes seconds in a slow guest). NULL: wait always.
	 */
	const volatile sig_atomic_t *stop;
};

struct prefetch;

/* Start the reads (NULL with errno set if no thread could be started: read them inline). */
struct prefetch *prefetch__start(const struct prefetch_opts *opts);

/*
 * Wait for a read and take what it produced (the caller frees it); NULL with errno set
 * when it failed or was not asked for, EINTR when opts.stop was set before it ended.
 * Each can be taken once.
 */
struct ksyms *prefetch__take_ksyms(struct prefetch *p);
struct btf *prefetch__take_vmlinux_btf(struct prefetch *p);
struct ftrace_funcs *prefetch__take_ftrace_funcs(struct prefetch *p);

enum prefetch_input {
	PREFETCH_KSYMS,
	PREFETCH_VMLINUX_BTF,
	PREFETCH_FTRACE_FUNCS,
};

/*
 * When a read that was taken ran, in CLOCK_MONOTONIC milliseconds (-vv's start-up
 * timeline); -ENOENT if it was not started or not taken yet.
 */
int prefetch__span(const struct prefetch *p, enum prefetch_input in, long *start_ms,
		   long *end_ms);

/*
 * Waits for reads still running and frees what was not taken; after a stop, a read still
 * running is not waited for, and the object stays (for the exit to reclaim) with it.
 */
void prefetch__free(struct prefetch *p);

#endif
