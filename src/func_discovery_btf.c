// SPDX-License-Identifier: BSD-2-Clause
/*
 * Function discovery's matching in BTF: vmlinux and module BTF FUNCs against the ftrace
 * candidates, each match turned into traced functions (one per kallsyms instance).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "btf_funcs.h"
#include "func_discovery.h"
#include "func_discovery_int.h"
#include "func_types.h"
#include "ksyms.h"

static struct cand *find_cand(struct func_discovery *d, const char *name, const char *mod)
{
	struct cand key = { .name = name, .module = mod };

	if (!disc_may_be_cand(d, name))
		return NULL;
	return bsearch(&key, d->cands, d->cand_cnt, sizeof(key), cmp_cand);
}

/*
 * @facts: the function's BTF facts from the digest (btf_funcs.h), @btf NULL; else NULL,
 * and @btf (or no BTF) says.
 */
static int push_func(struct func_discovery *d, const struct cand *c, const struct ksym *s,
		     const struct btf *btf, int btf_id, const struct btf_func_facts *facts,
		     const char *fentry_why)
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
	if (facts) {
		/* decided by func_types__flags() too, where the digest was written */
		f->arg_cnt = facts->arg_cnt;
		f->flags = facts->flags;
	} else {
		args = btf ? func_types__arg_cnt(btf, btf_id) : 0;
		f->arg_cnt = args < 0 ? 0 : args;
		/* the one place a function's result typing is decided */
		f->flags = func_types__flags(btf, btf_id, c->name);
	}
	if (fentry_why) {
		f->kprobe_fallback = true;
		f->fentry_why = fentry_why;
	}
	return 0;
}

/* Turn a candidate into one traced function per kallsyms instance (@facts: push_func()). */
static int prepare(struct func_discovery *d, struct cand *c, const struct btf *btf, int btf_id,
		   const struct btf_func_facts *facts)
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
		err = push_func(d, c, syms[i], btf, btf_id, facts, why);
		if (err)
			return err;
	}
	return 0;
}

/*
 * One BTF FUNC @name (module @mod) of a walk: an allowed name ftrace can attach to becomes
 * its candidate's functions, the first time only (@btf and @id, or @facts: push_func()).
 * The candidates are the allowed names of available_filter_functions, so a name that is
 * one is allowed; the globs are tested only to tell of allowed names that ftrace can't
 * attach (opts.no_unattachable: not at all).
 */
static int match_func(struct func_discovery *d, const char *name, const char *mod,
		      const struct btf *btf, int id, const struct btf_func_facts *facts)
{
	struct cand *c;

	if (!name)
		return 0;
	c = find_cand(d, name, mod);
	if (!c) {
		if (d->opts.no_unattachable || !func_discovery__is_allowed(d, name, mod))
			return 0;
		/* inlined, notrace, or otherwise unknown to ftrace */
		pr(d, 1, "Function '%s' is not an attachable kprobe, skipping.\n", name);
		d->stats.skipped_cnt++;
		return 0;
	}
	if (c->done)
		return 0;	/* same name twice in BTF: the first one describes it */
	return prepare(d, c, btf, id, facts);
}

/* Walk BTF FUNCs with ids [start, end) of @btf, module @mod, in id order. */
static int walk_btf(struct func_discovery *d, const struct btf *btf, __u32 start,
		    const char *mod)
{
	__u32 id, end = btf__type_cnt(btf);
	int err;

	for (id = start; id < end; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if ((id & 1023) == 0) {
			/* the longest step of discovery: a stop must not wait for its end */
			if (stopped(d))
				return -EINTR;
			progress(d, "matching functions in BTF types", id - start, end - start);
		}
		if (!btf_is_func(t))
			continue;
		err = match_func(d, btf__name_by_offset(btf, t->name_off), mod, btf, id, NULL);
		if (err)
			return err;
	}
	return 0;
}

/* walk_btf() over the vmlinux BTF's digest: the same order, the same outcome. */
static int walk_btf_funcs(struct func_discovery *d, const struct btf_funcs *bf)
{
	size_t i, n = btf_funcs__cnt(bf);
	struct btf_func_facts facts;
	int err;

	for (i = 0; i < n; i++) {
		if ((i & 1023) == 0) {
			if (stopped(d))
				return -EINTR;
			progress(d, "matching functions in BTF types", i, n);
		}
		btf_funcs__get(bf, i, &facts);
		err = match_func(d, facts.name, NULL, NULL, facts.btf_id, &facts);
		if (err)
			return err;
	}
	return 0;
}

/* The vmlinux BTF, read here: module BTF is split from it. */
static int load_vmlinux_btf(struct func_discovery *d)
{
	struct btf *btf;
	int err;

	if (d->opts.vmlinux_btf_path)
		btf = btf__parse(d->opts.vmlinux_btf_path, NULL);
	else
		btf = btf__load_vmlinux_btf();
	err = libbpf_get_error(btf);
	if (err) {
		pr(d, LOG_ERROR, "Failed to load vmlinux BTF: %d (%s). retsnoop needs a kernel built with CONFIG_DEBUG_INFO_BTF=y.\n",
		   err, strerror(-err));
		return err;
	}
	d->vmlinux_btf = btf;
	d->own_vmlinux_btf = true;
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

int func_discovery_btf__discover(struct func_discovery *d)
{
	const struct btf_funcs *bf = d->opts.fentry ? NULL : d->opts.btf_funcs;
	__u32 base_cnt;
	size_t i;
	int err;

	if (d->opts.vmlinux_btf) {
		d->vmlinux_btf = d->opts.vmlinux_btf;
		bf = NULL;
	} else if (!bf) {
		err = load_vmlinux_btf(d);
		if (err)
			return err;
	}
	if (bf) {
		pr(d, 1, "Read the vmlinux BTF's %zu functions from the boot cache.\n",
		   btf_funcs__cnt(bf));
		err = walk_btf_funcs(d, bf);
	} else {
		pr(d, 1, "Loaded BTF for [vmlinux].\n");
		err = walk_btf(d, d->vmlinux_btf, 1, NULL);
	}
	if (err)
		return err;

	for (i = 0; i < d->cand_cnt; i++) {
		const char *mod = d->cands[i].module;
		struct btf *btf;

		if (!mod || (i > 0 && d->cands[i - 1].module &&
			     strcmp(d->cands[i - 1].module, mod) == 0))
			continue;	/* candidates are grouped by module */
		/* module BTF is split from vmlinux': read it now, if the digest stood in */
		if (!d->vmlinux_btf) {
			err = load_vmlinux_btf(d);
			if (err)
				return err;
		}
		base_cnt = btf__type_cnt(d->vmlinux_btf);
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

int func_discovery_btf__prepare_leftovers(struct func_discovery *d)
{
	size_t i;
	int err;

	for (i = 0; i < d->cand_cnt; i++) {
		struct cand *c = &d->cands[i];

		if (c->done)
			continue;
		/* asm functions, compiler clones (.isra.0, ...), modules without BTF */
		err = prepare(d, c, NULL, 0, NULL);
		if (err)
			return err;
	}
	return 0;
}
