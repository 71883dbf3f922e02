// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "opts.h"
#include "ftrace_funcs.h"
#include "func_discovery.h"
#include "func_types.h"
#include "ksyms.h"
#include "records.h"

/*
 * Functions BPF tracing itself runs through (or that run with it in critical spots): tracing
 * them recurses into the tracer or deadlocks, so they are denied whatever the user asks.
 */
static const char *const builtin_deny[] = {
	"bpf_get_smp_processor_id",
	"migrate_enable", "migrate_disable",
	"rcu_read_lock*", "rcu_read_unlock*",
	"__rcu_read_lock*", "__rcu_read_unlock*",
	"bpf_spin_lock", "bpf_spin_unlock",
	"__bpf_prog_enter*", "__bpf_prog_exit*",
	"__bpf_tramp_enter*", "__bpf_tramp_exit*",
	"update_prog_stats", "inc_misses_counter", "bpf_prog_start_time",
	"arch_cpu_idle", "default_idle",
	"preempt_count_add", "preempt_count_sub",
	/*
	 * The helpers retsnoop's own probes call (and what they call), in every process:
	 * traced, each call is a probe hit the kernel refuses as recursion, and a whole-kernel
	 * hunt pays it in every untraced process (measured in the 6.12 guest: a getpid() of a
	 * process outside the hunt cost 4 times an empty program's overhead with them traced).
	 */
	"bpf_get_current_pid_tgid", "bpf_get_current_task*", "bpf_get_current_comm",
	"bpf_get_attach_cookie*", "bpf_get_func_ip*", "bpf_ktime_get_ns",
	"bpf_probe_read_kernel*", "bpf_get_stack*", "__bpf_get_stack", "bpf_get_task_stack*",
	"__bpf_get_task_stack", "bpf_get_branch_snapshot", "bpf_task_storage_get*",
	"__bpf_task_storage_get", "bpf_ringbuf_*", "__bpf_ringbuf_reserve",
	"__htab_map_lookup_elem", "htab_map_lookup_elem",
};

/*
 * Without the kernel's fexit sleep fix, detaching fexit from a function a thread sleeps in
 * waits for that sleep to end (possibly forever), so -F skips the long sleepers.
 */
static const char *const sleepable_deny[] = {
	"*_sys_select", "*_sys_pselect6*",
	"*_sys_epoll_wait", "*_sys_epoll_pwait",
	"*_sys_poll*", "*_sys_ppoll*",
	"*_sys_nanosleep*", "*_sys_clock_nanosleep*",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct disc_glob {
	struct glob_spec spec;
	enum func_glob_role role;
	bool internal;		/* built-in: hidden from statistics below -vvv */
	size_t match_cnt;
};

/* A (name, module) from available_filter_functions, with how often it was listed. */
struct cand {
	const char *name;
	const char *module;
	size_t dup_cnt;
	bool done;		/* prepared (or rejected) already */
};

struct func_discovery {
	struct func_discovery_opts opts;

	struct disc_glob *globs;
	size_t glob_cnt;
	bool has_allow;
	struct disc_names *name_sets;	/* exact names from source-path globs */
	size_t name_set_cnt;

	struct ftrace_funcs *ff;
	struct ksyms *ks;
	struct btf *vmlinux_btf;
	bool own_vmlinux_btf;
	struct btf **mod_btfs;
	size_t mod_btf_cnt;

	struct cand *cands;
	size_t cand_cnt;

	struct func *funcs;
	size_t func_cnt, func_cap;

	struct func_discovery_stats stats;
};

struct disc_names {
	enum func_glob_role role;
	char *origin;
	char **names;		/* sorted, unique */
	size_t cnt;
	size_t match_cnt;
};

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool names_has(const struct disc_names *ns, const char *name)
{
	return bsearch(&name, ns->names, ns->cnt, sizeof(*ns->names), cmp_str_ptr) != NULL;
}

/* a NULL print callback is silent, as in every module (log.h) */
#define pr(d, level, ...) log_msg((d)->opts.print, level, __VA_ARGS__)

static int add_glob(struct func_discovery *d, enum func_glob_role role, const char *name,
		    const char *mod, bool mandatory, bool internal)
{
	struct disc_glob *g;

	g = realloc(d->globs, (d->glob_cnt + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	d->globs = g;
	g = &d->globs[d->glob_cnt];
	memset(g, 0, sizeof(*g));
	g->spec.kind = GLOB_NAME;
	g->spec.mandatory = mandatory;
	g->spec.name = strdup(name);
	g->spec.mod = mod ? strdup(mod) : NULL;
	if (!g->spec.name || (mod && !g->spec.mod)) {
		glob_spec__free(&g->spec);
		return -ENOMEM;
	}
	g->role = role;
	g->internal = internal;
	d->glob_cnt++;
	if (role != FUNC_GLOB_DENY)
		d->has_allow = true;
	return 0;
}

struct func_discovery *func_discovery__new(const struct func_discovery_opts *opts)
{
	struct func_discovery *d;
	size_t i;
	int err = 0;

	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	if (OPTS_COPY(&d->opts, opts)) {
		free(d);
		return errno = EINVAL, NULL;
	}

	for (i = 0; i < ARRAY_SIZE(builtin_deny) && !err; i++)
		err = add_glob(d, FUNC_GLOB_DENY, builtin_deny[i], NULL, false, true);
	for (i = 0; d->opts.deny_sleepable && i < ARRAY_SIZE(sleepable_deny) && !err; i++)
		err = add_glob(d, FUNC_GLOB_DENY, sleepable_deny[i], NULL, false, true);
	if (err) {
		func_discovery__free(d);
		errno = -err;
		return NULL;
	}
	return d;
}

void func_discovery__free(struct func_discovery *d)
{
	size_t i;

	if (!d)
		return;
	ksyms__free(d->opts.ksyms);	/* taken over, never run */
	ftrace_funcs__free(d->opts.ftrace_funcs);
	for (i = 0; i < d->glob_cnt; i++)
		glob_spec__free(&d->globs[i].spec);
	free(d->globs);
	for (i = 0; i < d->name_set_cnt; i++) {
		struct disc_names *ns = &d->name_sets[i];
		size_t j;

		for (j = 0; j < ns->cnt; j++)
			free(ns->names[j]);
		free(ns->names);
		free(ns->origin);
	}
	free(d->name_sets);
	for (i = 0; i < d->mod_btf_cnt; i++)
		btf__free(d->mod_btfs[i]);
	free(d->mod_btfs);
	if (d->own_vmlinux_btf)
		btf__free(d->vmlinux_btf);
	ftrace_funcs__free(d->ff);
	ksyms__free(d->ks);
	free(d->cands);
	free(d->funcs);
	free(d);
}

int func_discovery__add_glob(struct func_discovery *d, enum func_glob_role role,
			     const struct glob_spec *spec)
{
	if (spec->kind == GLOB_SRC_PATH) {
		pr(d, LOG_ERROR, "Source-path glob ':%s' needs DWARF symbolization, which is not implemented yet.\n",
		   spec->name);
		return -EOPNOTSUPP;
	}
	return add_glob(d, role, spec->name, spec->mod, role == FUNC_GLOB_ENTRY && spec->mandatory,
			false);
}

int func_discovery__add_names(struct func_discovery *d, enum func_glob_role role,
			      const char *const *names, size_t cnt, const char *origin)
{
	struct disc_names *ns;
	size_t i, j;

	ns = realloc(d->name_sets, (d->name_set_cnt + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	d->name_sets = ns;
	ns = &d->name_sets[d->name_set_cnt];
	memset(ns, 0, sizeof(*ns));
	ns->role = role;
	ns->origin = strdup(origin);
	ns->names = calloc(cnt ? cnt : 1, sizeof(*ns->names));
	if (!ns->origin || !ns->names)
		goto nomem;
	for (i = 0; i < cnt; i++)
		if (!(ns->names[i] = strdup(names[i])))
			goto nomem;
	ns->cnt = cnt;
	qsort(ns->names, cnt, sizeof(*ns->names), cmp_str_ptr);
	for (i = j = 0; i < cnt; i++) {
		if (j && strcmp(ns->names[j - 1], ns->names[i]) == 0)
			free(ns->names[i]);
		else
			ns->names[j++] = ns->names[i];
	}
	ns->cnt = j;
	d->name_set_cnt++;
	if (role != FUNC_GLOB_DENY)
		d->has_allow = true;
	return 0;
nomem:
	for (i = 0; ns->names && i < cnt; i++)
		free(ns->names[i]);
	free(ns->names);
	free(ns->origin);
	return -ENOMEM;
}

bool func_discovery__is_allowed(const struct func_discovery *d, const char *name,
				const char *mod)
{
	bool allowed = !d->has_allow;
	size_t i;

	for (i = 0; i < d->name_set_cnt; i++) {
		const struct disc_names *ns = &d->name_sets[i];

		if (ns->role == FUNC_GLOB_DENY && names_has(ns, name))
			return false;
		if (ns->role != FUNC_GLOB_DENY && !allowed && names_has(ns, name))
			allowed = true;
	}

	for (i = 0; i < d->glob_cnt; i++) {
		const struct disc_glob *g = &d->globs[i];

		if (allowed && g->role != FUNC_GLOB_DENY)
			continue;
		if (!glob_spec__match(&g->spec, name, mod))
			continue;
		if (g->role == FUNC_GLOB_DENY)
			return false;
		allowed = true;
	}
	return allowed;
}

/* Count deny-glob hits of a rejected function, for -vv statistics. */
static void count_deny_hits(struct func_discovery *d, const char *name, const char *mod)
{
	size_t i;

	for (i = 0; i < d->glob_cnt; i++) {
		if (d->globs[i].role == FUNC_GLOB_DENY &&
		    glob_spec__match(&d->globs[i].spec, name, mod))
			d->globs[i].match_cnt++;
	}
	for (i = 0; i < d->name_set_cnt; i++) {
		if (d->name_sets[i].role == FUNC_GLOB_DENY && names_has(&d->name_sets[i], name))
			d->name_sets[i].match_cnt++;
	}
}

static int cmp_mod_name(const char *amod, const char *aname, const char *bmod, const char *bname)
{
	int c;

	/* vmlinux first, then modules by name */
	if (!amod != !bmod)
		return amod ? 1 : -1;
	if (amod) {
		c = strcmp(amod, bmod);
		if (c)
			return c;
	}
	return strcmp(aname, bname);
}

static int cmp_cand(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	return cmp_mod_name(a->module, a->name, b->module, b->name);
}

static struct cand *find_cand(struct func_discovery *d, const char *name, const char *mod)
{
	struct cand key = { .name = name, .module = mod };

	return bsearch(&key, d->cands, d->cand_cnt, sizeof(key), cmp_cand);
}

static const char *aff_hint(int err)
{
	switch (err) {
	case -EPERM:
	case -EACCES:
		return "tracing is blocked here: run as root; kernel lockdown or a sandboxed "
		       "container/VM also forbid it";
	case -ENOENT:
		return "the kernel lacks ftrace (CONFIG_FUNCTION_TRACER) or tracefs is not mounted "
		       "(mount -t tracefs nodev /sys/kernel/tracing)";
	default:
		return "check that tracefs is mounted at /sys/kernel/tracing";
	}
}

static int load_ftrace_funcs(struct func_discovery *d)
{
	const char *path = d->opts.aff_path;
	bool mounted = false;
	char found[256];
	int err;

	if (d->opts.ftrace_funcs) {
		d->ff = d->opts.ftrace_funcs;
		d->opts.ftrace_funcs = NULL;
		return 0;
	}
	if (!path) {
		err = ftrace_funcs__find_path(found, sizeof(found), &mounted);
		if (err) {
			pr(d, LOG_ERROR, "Failed to find the list of traceable kernel functions (tracefs available_filter_functions): %s; %s.\n",
			   strerror(-err), aff_hint(err));
			return err;
		}
		path = found;
	}
	d->ff = ftrace_funcs__load(path);
	err = d->ff ? 0 : -errno;
	/* mounted only for this read, and only in our own mount namespace */
	if (mounted)
		ftrace_funcs__unmount();
	if (err) {
		pr(d, LOG_ERROR, "Failed to read the list of traceable kernel functions from %s: %s; %s.\n",
		   path, strerror(-err), aff_hint(err));
		return err;
	}
	return 0;
}

/* Glob-filter available_filter_functions and collapse it into sorted unique candidates. */
static int collect_cands(struct func_discovery *d)
{
	size_t i, n = ftrace_funcs__cnt(d->ff), out = 0;
	struct cand *c;

	d->cands = calloc(n ? n : 1, sizeof(*d->cands));
	if (!d->cands)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct ftrace_func *f = ftrace_funcs__get(d->ff, i);

		if (!func_discovery__is_allowed(d, f->name, f->module)) {
			count_deny_hits(d, f->name, f->module);
			d->stats.skipped_cnt++;
			continue;
		}
		d->cands[out].name = f->name;
		d->cands[out].module = f->module;
		d->cands[out].dup_cnt = 1;
		out++;
	}
	d->stats.aff_cnt = n;
	d->stats.filtered_cnt = out;

	qsort(d->cands, out, sizeof(*d->cands), cmp_cand);
	/* the same name listed twice (static functions in different files) */
	for (i = 0, d->cand_cnt = 0; i < out; i++) {
		c = d->cand_cnt ? &d->cands[d->cand_cnt - 1] : NULL;
		if (c && cmp_cand(c, &d->cands[i]) == 0) {
			c->dup_cnt++;
			continue;
		}
		d->cands[d->cand_cnt++] = d->cands[i];
	}
	d->stats.unique_cnt = d->cand_cnt;
	pr(d, 1, "Discovered %zu available kprobes, filtered down to %zu, and compacted to %zu unique names!\n",
	   d->stats.aff_cnt, d->stats.filtered_cnt, d->stats.unique_cnt);
	return 0;
}

static int push_func(struct func_discovery *d, const struct cand *c, const struct ksym *s,
		     const struct btf *btf, int btf_id, const char *fentry_why)
{
	struct func *f;
	int args;

	if (d->func_cnt == d->func_cap) {
		size_t cap = d->func_cap ? d->func_cap * 2 : 256;

		f = realloc(d->funcs, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		d->funcs = f;
		d->func_cap = cap;
	}
	f = &d->funcs[d->func_cnt++];
	memset(f, 0, sizeof(*f));
	f->name = c->name;
	f->module = c->module;
	f->addr = s->addr;
	f->size = s->size;
	f->btf = btf;
	f->btf_id = btf_id;
	args = btf ? func_types__arg_cnt(btf, btf_id) : 0;
	f->arg_cnt = args < 0 ? 0 : args;
	/* the one place a function's result typing is decided */
	f->flags = func_types__flags(btf, btf_id, c->name);
	if (fentry_why) {
		f->kprobe_fallback = true;
		f->fentry_why = fentry_why;
	}
	return 0;
}

/* Turn a candidate into one traced function per kallsyms instance. */
static int prepare(struct func_discovery *d, struct cand *c, const struct btf *btf, int btf_id)
{
	const struct ksym *const *syms;
	const char *why;
	size_t k, i;
	int err;

	c->done = true;
	k = ksyms__find_funcs(d->ks, c->name, c->module, &syms);
	if (k == 0) {
		pr(d, 3, "Function '%s' not found in /proc/kallsyms, skipping.\n", c->name);
		d->stats.skipped_cnt++;
		return 0;
	}
	if (k != c->dup_cnt) {
		/* can't tell which address belongs to which attachable entry; summed up in run() */
		pr(d, 1, "Function '%s' has mismatched %zu ksyms vs %zu attachable kprobe entries, skipping.\n",
		   c->name, k, c->dup_cnt);
		d->stats.skipped_cnt++;
		d->stats.mismatch_cnt++;
		return 0;
	}
	why = NULL;
	if (d->opts.fentry) {
		/* what fentry/fexit can't attach to, kprobes trace in the same run */
		if (!btf)
			why = "no BTF";
		else
			why = func_types__fentry_unsupported(btf, btf_id);
		if (!why && k > 1)
			why = "several functions of this name (fentry attaches by name)";
		if (why) {
			pr(d, 1, "Function '%s' can't be traced with fentry/fexit (%s); a kprobe pair traces it instead.\n",
			   c->name, why);
			d->stats.fallback_cnt += k;
		}
	}
	for (i = 0; i < k; i++) {
		if (syms[i]->addr == 0) {
			pr(d, LOG_ERROR, "Function '%s' has zero address in /proc/kallsyms: kernel addresses are hidden (kernel.kptr_restrict must not be 2; try 'sudo sysctl -w kernel.kptr_restrict=0' and run as root).\n",
			   c->name);
			return -EINVAL;
		}
		err = push_func(d, c, syms[i], btf, btf_id, why);
		if (err)
			return err;
	}
	return 0;
}

static void progress(struct func_discovery *d, const char *stage, size_t done, size_t total)
{
	if (d->opts.progress)
		d->opts.progress(d->opts.progress_ctx, stage, done, total);
}

static bool stopped(const struct func_discovery *d)
{
	return d->opts.stop && *d->opts.stop;
}

/* Walk BTF FUNCs with ids [start, end) of @btf, module @mod, in id order. */
static int walk_btf(struct func_discovery *d, const struct btf *btf, __u32 start,
		    const char *mod)
{
	__u32 id, end = btf__type_cnt(btf);
	int err;

	for (id = start; id < end; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name;
		struct cand *c;

		if ((id & 1023) == 0) {
			/* the longest step of discovery: a stop must not wait for its end */
			if (stopped(d))
				return -EINTR;
			progress(d, "matching functions in BTF types", id - start, end - start);
		}
		if (!btf_is_func(t))
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (!name || !func_discovery__is_allowed(d, name, mod))
			continue;
		c = find_cand(d, name, mod);
		if (!c) {
			/* inlined, notrace, or otherwise unknown to ftrace */
			pr(d, 1, "Function '%s' is not an attachable kprobe, skipping.\n", name);
			d->stats.skipped_cnt++;
			continue;
		}
		if (c->done)
			continue;	/* same name twice in BTF: the first one describes it */
		err = prepare(d, c, btf, id);
		if (err)
			return err;
	}
	return 0;
}

static int load_module_btf(struct func_discovery *d, const char *mod, struct btf **btf)
{
	const char *dir = d->opts.module_btf_dir ?: "/sys/kernel/btf";
	struct btf **arr;
	char path[512];
	int err;

	/* module names never hold a '/'; one from a broken list must not leave @dir */
	*btf = NULL;
	if (strchr(mod, '/'))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%s", dir, mod);
	*btf = btf__parse_split(path, d->vmlinux_btf);
	err = libbpf_get_error(*btf);
	if (err) {
		*btf = NULL;
		return err;
	}
	arr = realloc(d->mod_btfs, (d->mod_btf_cnt + 1) * sizeof(*arr));
	if (!arr) {
		btf__free(*btf);
		*btf = NULL;
		return -ENOMEM;
	}
	d->mod_btfs = arr;
	d->mod_btfs[d->mod_btf_cnt++] = *btf;
	return 0;
}

static int discover_with_btf(struct func_discovery *d)
{
	__u32 base_cnt;
	size_t i;
	int err;

	if (d->opts.vmlinux_btf) {
		d->vmlinux_btf = d->opts.vmlinux_btf;
	} else {
		d->vmlinux_btf = btf__load_vmlinux_btf();
		err = libbpf_get_error(d->vmlinux_btf);
		if (err) {
			d->vmlinux_btf = NULL;
			pr(d, LOG_ERROR, "Failed to load vmlinux BTF: %d (%s). retsnoop needs a kernel built with CONFIG_DEBUG_INFO_BTF=y.\n",
			   err, strerror(-err));
			return err;
		}
		d->own_vmlinux_btf = true;
	}
	pr(d, 1, "Loaded BTF for [vmlinux].\n");
	err = walk_btf(d, d->vmlinux_btf, 1, NULL);
	if (err)
		return err;

	base_cnt = btf__type_cnt(d->vmlinux_btf);
	for (i = 0; i < d->cand_cnt; i++) {
		const char *mod = d->cands[i].module;
		struct btf *btf;

		if (!mod || (i > 0 && d->cands[i - 1].module &&
			     strcmp(d->cands[i - 1].module, mod) == 0))
			continue;	/* candidates are grouped by module */
		err = load_module_btf(d, mod, &btf);
		if (err) {
			pr(d, 1, "Failed to load BTF for module [%s]: %d\n", mod, err);
			continue;
		}
		pr(d, 1, "Loaded BTF for module [%s].\n", mod);
		err = walk_btf(d, btf, base_cnt, mod);
		if (err)
			return err;
	}
	return 0;
}

static int prepare_leftovers(struct func_discovery *d)
{
	size_t i;
	int err;

	for (i = 0; i < d->cand_cnt; i++) {
		struct cand *c = &d->cands[i];

		if (c->done)
			continue;
		/* asm functions, compiler clones (.isra.0, ...), modules without BTF */
		err = prepare(d, c, NULL, 0);
		if (err)
			return err;
	}
	return 0;
}

static const char *role_name(enum func_glob_role role)
{
	switch (role) {
	case FUNC_GLOB_ENTRY: return "Entry";
	case FUNC_GLOB_ALLOW: return "Allow";
	default: return "Deny";
	}
}

/* Mark entry functions, count glob hits and check mandatory entry globs. */
static int mark_entries(struct func_discovery *d)
{
	char buf[2 * GLOB_MAX_LEN + 8];
	size_t i, j;
	int err = 0;

	for (i = 0; i < d->func_cnt; i++) {
		struct func *f = &d->funcs[i];

		for (j = 0; j < d->glob_cnt; j++) {
			struct disc_glob *g = &d->globs[j];

			if (g->role == FUNC_GLOB_DENY || !glob_spec__match(&g->spec, f->name, f->module))
				continue;
			g->match_cnt++;
			if (g->role == FUNC_GLOB_ENTRY)
				f->flags |= FUNC_IS_ENTRY;
		}
		for (j = 0; j < d->name_set_cnt; j++) {
			struct disc_names *ns = &d->name_sets[j];

			if (ns->role == FUNC_GLOB_DENY || !names_has(ns, f->name))
				continue;
			ns->match_cnt++;
			if (ns->role == FUNC_GLOB_ENTRY)
				f->flags |= FUNC_IS_ENTRY;
		}
	}
	for (j = 0; j < d->name_set_cnt; j++) {
		struct disc_names *ns = &d->name_sets[j];

		pr(d, 2, "%s glob ':%s' matched %zu functions.\n", role_name(ns->role), ns->origin,
		   ns->match_cnt);
		if (ns->role == FUNC_GLOB_ALLOW && ns->match_cnt == 0) {
			d->stats.idle_allow_cnt++;
			pr(d, 1, "WARNING: allow glob ':%s' doesn't match any traceable kernel function.\n",
			   ns->origin);
		}
	}
	for (j = 0; j < d->glob_cnt; j++) {
		struct disc_glob *g = &d->globs[j];

		pr(d, g->internal ? 3 : 2, "%s glob '%s' matched %zu functions.\n", role_name(g->role),
		   glob_spec__str(&g->spec, buf, sizeof(buf)), g->match_cnt);
		if (g->role == FUNC_GLOB_ALLOW && !g->internal && g->match_cnt == 0) {
			d->stats.idle_allow_cnt++;
			pr(d, 1, "WARNING: allow glob '%s' doesn't match any traceable kernel function.\n",
			   glob_spec__str(&g->spec, buf, sizeof(buf)));
		}
		if (g->spec.mandatory && g->match_cnt == 0 && !err) {
			pr(d, LOG_ERROR, "Entry glob '%s' doesn't match any kernel function!\n",
			   glob_spec__str(&g->spec, buf, sizeof(buf)));
			err = -ENOENT;
		}
	}
	/* one line each however many, -v has the details above */
	if (d->stats.idle_allow_cnt)
		pr(d, 0, "WARNING: %zu allow glob%s match%s no traceable kernel function (-v names %s).\n",
		   d->stats.idle_allow_cnt, d->stats.idle_allow_cnt > 1 ? "s" : "",
		   d->stats.idle_allow_cnt > 1 ? "" : "es",
		   d->stats.idle_allow_cnt > 1 ? "them" : "it");
	return err;
}

int func_discovery__run(struct func_discovery *d)
{
	size_t max;
	int err;

	if (d->ff)
		return -EBUSY;	/* one run per object */

	progress(d, "reading available_filter_functions", 0, 0);
	err = load_ftrace_funcs(d);
	if (err)
		return err;
	progress(d, "reading kallsyms", 0, 0);
	d->ks = d->opts.ksyms ?: ksyms__load_funcs(d->opts.kallsyms_path);
	d->opts.ksyms = NULL;
	if (!d->ks) {
		err = -errno;
		pr(d, LOG_ERROR, "Failed to load %s: %s.\n", d->opts.kallsyms_path ?: "/proc/kallsyms",
		   strerror(-err));
		return err;
	}
	if (ksyms__addrs_hidden(d->ks)) {
		pr(d, LOG_ERROR, "Kernel addresses in %s are hidden (all zero): kernel.kptr_restrict is 2, or 1 without CAP_SYSLOG. Try 'sudo sysctl -w kernel.kptr_restrict=0' and run as root.\n",
		   d->opts.kallsyms_path ?: "/proc/kallsyms");
		return -EPERM;
	}
	err = stopped(d) ? -EINTR : collect_cands(d);
	if (err)
		return err;
	err = stopped(d) ? -EINTR : discover_with_btf(d);
	if (err)
		return err;
	err = stopped(d) ? -EINTR : prepare_leftovers(d);
	if (err)
		return err;

	d->stats.found_cnt = d->func_cnt;
	if (d->func_cnt == 0) {
		pr(d, LOG_ERROR, "No matching functions found.\n");
		return -ENOENT;
	}
	pr(d, 1, "Found %zu attachable functions in total.\n", d->stats.found_cnt);
	pr(d, 1, "Skipped %zu functions in total.\n", d->stats.skipped_cnt);
	if (d->stats.mismatch_cnt)
		pr(d, 0, "Note: skipped %zu functions listed a different number of times in kallsyms and in available_filter_functions (which address is which can't be told; -v names them).\n",
		   d->stats.mismatch_cnt);

	err = mark_entries(d);
	if (err)
		return err;

	max = d->opts.max_func_cnt;
	if (!max)
		max = d->opts.fentry ? FUNC_DISCOVERY_MAX_FENTRY : FUNC_DISCOVERY_MAX_FUNCS;
	if (d->func_cnt > max) {
		pr(d, LOG_ERROR, "Too many functions to trace: %zu, the limit is %zu%s. Narrow the -e/-a globs or exclude functions with -d.\n",
		   d->func_cnt, max, d->opts.fentry ? " in fentry mode (-F)" : "");
		return -E2BIG;
	}
	return 0;
}

size_t func_discovery__func_cnt(const struct func_discovery *d)
{
	return d->func_cnt;
}

const struct func *func_discovery__funcs(const struct func_discovery *d)
{
	return d->funcs;
}

const struct func_discovery_stats *func_discovery__stats(const struct func_discovery *d)
{
	return &d->stats;
}

const struct btf *func_discovery__vmlinux_btf(const struct func_discovery *d)
{
	return d->vmlinux_btf;
}

const struct ksyms *func_discovery__ksyms(const struct func_discovery *d)
{
	return d->ks;
}
