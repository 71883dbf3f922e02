/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Function discovery: turn entry/allow/deny globs into the list of kernel functions to trace,
 * from kallsyms (addresses), tracefs available_filter_functions (what ftrace can attach to)
 * and BTF (types, and for fentry the only functions it can attach to at all).
 *
 * Usage: new(opts) -> add_glob()... -> run() -> func_cnt()/func() -> free().
 */
#ifndef RETSNOOP_FUNC_DISCOVERY_H
#define RETSNOOP_FUNC_DISCOVERY_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "func.h"
#include "glob.h"
#include "log.h"

struct btf;
struct ksyms;

enum func_glob_role {
	FUNC_GLOB_ENTRY,	/* starts sessions; also allows */
	FUNC_GLOB_ALLOW,
	FUNC_GLOB_DENY,		/* wins over everything */
};


/* Default cap on the number of functions; see func_discovery_opts.max_func_cnt. */
#define FUNC_DISCOVERY_MAX_FUNCS	50000
#define FUNC_DISCOVERY_MAX_FENTRY	10000	/* two links, two FDs and a trampoline each */

struct func_discovery_opts {
	size_t sz;			/* sizeof(struct func_discovery_opts) */
	bool fentry;			/* -F: mark what fentry/fexit can't attach (kprobe_fallback) */
	bool deny_sleepable;		/* -F without the kernel's fexit sleep fix */
	size_t max_func_cnt;		/* 0: the defaults above */
	const char *kallsyms_path;	/* NULL: /proc/kallsyms */
	const char *aff_path;		/* NULL: find (and if needed mount) tracefs */
	const char *module_btf_dir;	/* NULL: /sys/kernel/btf */
	struct btf *vmlinux_btf;	/* borrowed; NULL: btf__load_vmlinux_btf() */
	/*
	 * Borrowed; with no vmlinux_btf and no -F: the vmlinux BTF functions' facts, so that
	 * the BTF is read only for module functions' split BTF (btf_funcs.h).
	 */
	const struct btf_funcs *btf_funcs;
	const char *vmlinux_btf_path;	/* where it is read from; NULL: the kernel's */
	/*
	 * No per-glob hit counts for deny globs (the "Deny glob ... matched N functions" lines,
	 * printed at -vv): counting runs every deny glob over every rejected name, most of
	 * discovery's time in a targeted run (issue 25).
	 */
	bool no_deny_counts;
	/*
	 * Allowed BTF functions that ftrace can't attach (inlined, notrace) are not looked for:
	 * neither named (the -v lines) nor counted in stats.skipped_cnt. Looking for them tests
	 * the globs against each of the BTF's ~50,000 function names (issue 25).
	 */
	bool no_unattachable;
	log_print_fn print;		/* NULL: silent */
	progress_fn progress;		/* NULL: none; the reading and matching steps */
	void *progress_ctx;
	struct ksyms *ksyms;		/* read already: taken over by a successful
					 * func_discovery__new(); NULL: read kallsyms_path */
	struct ftrace_funcs *ftrace_funcs; /* the same for aff_path */
	/* set (by a signal handler, say) to end run() early with -EINTR, silently */
	const volatile sig_atomic_t *stop;
};

struct btf_funcs;

struct func_discovery_stats {
	size_t aff_cnt;		/* entries in available_filter_functions */
	size_t filtered_cnt;	/* ... that pass the globs */
	size_t unique_cnt;	/* ... as distinct (name, module) pairs */
	size_t found_cnt;	/* functions to trace */
	size_t skipped_cnt;	/* rejected by globs or not attachable (see no_unattachable) */
	size_t fallback_cnt;	/* -F: traced with kprobes, fentry/fexit can't attach */
	size_t mismatch_cnt;	/* skipped: kallsyms and ftrace list it a different number of times */
	size_t idle_allow_cnt;	/* allow globs that matched nothing */
};

struct func_discovery;

struct func_discovery *func_discovery__new(const struct func_discovery_opts *opts);
void func_discovery__free(struct func_discovery *d);

/*
 * Add a glob (copied). Source-path specs are refused with -EOPNOTSUPP until DWARF
 * symbolization exists. The built-in denylist is always there.
 */
int func_discovery__add_glob(struct func_discovery *d, enum func_glob_role role,
			     const struct glob_spec *spec);

/*
 * Add a name glob of retsnoop's own (an in-band error carrier, say): not reported when it
 * matches nothing, not mandatory.
 */
int func_discovery__add_extra(struct func_discovery *d, enum func_glob_role role,
			      const char *name);

/*
 * Discover. Returns 0 or a negative errno after printing one line (level 0) that says why:
 * -ENOENT nothing matched or a mandatory entry glob matched nothing, -E2BIG over the limit,
 * or the errno of an unreadable kallsyms, available_filter_functions or BTF; -EINTR (and
 * nothing said) when opts.stop was set meanwhile.
 */
int func_discovery__run(struct func_discovery *d);

/* The functions to trace, indexed by function id; owned by @d (strings too). */
size_t func_discovery__func_cnt(const struct func_discovery *d);
const struct func *func_discovery__funcs(const struct func_discovery *d);
const struct func_discovery_stats *func_discovery__stats(const struct func_discovery *d);
/* Loaded by run(); the object keeps ownership. */
const struct btf *func_discovery__vmlinux_btf(const struct func_discovery *d);
const struct ksyms *func_discovery__ksyms(const struct func_discovery *d);
/* available_filter_functions as read; NULL before func_discovery__run() */
const struct ftrace_funcs *func_discovery__ftrace_funcs(const struct func_discovery *d);
/*
 * After a run: free kallsyms' name index, which only discovery reads (the table stays
 * for symbolization, which looks symbols up by address): 1 MB for 100k functions.
 */
void func_discovery__drop_name_index(struct func_discovery *d);
/*
 * Once nothing reads the functions' BTF any more (no -A): free the module BTFs and the
 * vmlinux BTF if @d read it itself, and clear every function's btf (btf_id stays). The
 * caller frees a vmlinux BTF it lent (opts.vmlinux_btf) itself.
 */
void func_discovery__drop_btfs(struct func_discovery *d);

/* Is @name of module @mod selected by the globs (deny wins, then any allow or entry)? */
/*
 * Add exact function names with @role, as a source-path glob expands to (@origin is that
 * glob, for statistics). Names match in vmlinux and modules alike; lookups are binary
 * searches, so thousands of them cost no more than a few globs.
 */
int func_discovery__add_names(struct func_discovery *d, enum func_glob_role role,
			      const char *const *names, size_t cnt, const char *origin);

bool func_discovery__is_allowed(const struct func_discovery *d, const char *name,
				const char *mod);

#endif
