// SPDX-License-Identifier: BSD-2-Clause
/* Function discovery (func_discovery.h): the object, its run and the ftrace candidates. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "opts.h"
#include "ftrace_funcs.h"
#include "func_discovery.h"
#include "func_discovery_int.h"
#include "ksyms.h"

struct func_discovery *func_discovery__new(const struct func_discovery_opts *opts)
{
	struct func_discovery *d;
	int err;

	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	if (OPTS_COPY(&d->opts, opts)) {
		free(d);
		return errno = EINVAL, NULL;
	}

	err = func_discovery_globs__add_builtin(d);
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
	func_discovery_globs__free_index(d);
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
	/* a path given may be the boot cache's copy, an image */
	d->ff = d->opts.aff_path ? ftrace_funcs__open(path) : ftrace_funcs__load(path);
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
	int err;

	err = func_discovery_globs__index(d);
	if (err)
		return err;
	d->cands = calloc(n ? n : 1, sizeof(*d->cands));
	if (!d->cands)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct ftrace_func *f = ftrace_funcs__get(d->ff, i);

		if (!func_discovery__is_allowed(d, f->name, f->module)) {
			if (!d->opts.no_deny_counts)
				func_discovery_globs__count_deny_hits(d, f->name, f->module);
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
	for (i = 0; i < d->cand_cnt; i++) {
		unsigned int k = disc_cand_key(d->cands[i].name);

		d->cand_keys[k / 64] |= 1ULL << (k % 64);
	}
	d->stats.unique_cnt = d->cand_cnt;
	pr(d, 1, "Discovered %zu available kprobes, filtered down to %zu, and compacted to %zu unique names!\n",
	   d->stats.aff_cnt, d->stats.filtered_cnt, d->stats.unique_cnt);
	return 0;
}

int func_discovery__run(struct func_discovery *d)
{
	size_t max;
	int err;

	if (d->ff)
		return -EBUSY;	/* one run per object */

	progress(d, "reading available_filter_functions", 0, 0);
	err = stopped(d) ? -EINTR : load_ftrace_funcs(d);
	if (err)
		return err;
	progress(d, "reading kallsyms", 0, 0);
	if (stopped(d))
		return -EINTR;
	/* BPF programs and trampolines are never traced: left out (the boot cache keeps this) */
	d->ks = d->opts.ksyms ?: ksyms__load_static_funcs(d->opts.kallsyms_path);
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
	err = stopped(d) ? -EINTR : func_discovery_btf__discover(d);
	if (err)
		return err;
	err = stopped(d) ? -EINTR : func_discovery_btf__prepare_leftovers(d);
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

	err = func_discovery_globs__mark_entries(d);
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

const struct ftrace_funcs *func_discovery__ftrace_funcs(const struct func_discovery *d)
{
	return d->ff;
}

void func_discovery__drop_name_index(struct func_discovery *d)
{
	if (d->ks)
		ksyms__drop_name_index(d->ks);
}

void func_discovery__drop_btfs(struct func_discovery *d)
{
	size_t i;

	for (i = 0; i < d->func_cnt; i++)
		d->funcs[i].btf = NULL;
	for (i = 0; i < d->mod_btf_cnt; i++)
		btf__free(d->mod_btfs[i]);
	free(d->mod_btfs);
	d->mod_btfs = NULL;
	d->mod_btf_cnt = 0;
	if (d->own_vmlinux_btf)
		btf__free(d->vmlinux_btf);
	d->vmlinux_btf = NULL;
	d->own_vmlinux_btf = false;
}
