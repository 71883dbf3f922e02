/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside function discovery (func_discovery.c, func_discovery_globs.c, func_discovery_btf.c):
 * the object and what its files share.
 */
#ifndef RETSNOOP_FUNC_DISCOVERY_INT_H
#define RETSNOOP_FUNC_DISCOVERY_INT_H

#include <string.h>
#include "func_discovery.h"
#include "log.h"

struct disc_glob {
	struct glob_spec spec;
	enum func_glob_role role;
	bool internal;		/* built-in: hidden from statistics below -vvv */
	/*
	 * The name glob's first character when it is a literal one, else '\0': a name that
	 * starts otherwise can't match. Discovery tests every glob against each of tens of
	 * thousands of names, and most of its time (under TCG, most of a second) went into
	 * the calls that fail on that first character.
	 */
	char lead;
	/*
	 * What follows the name glob's last '*' when it is all literal: a matching name ends
	 * with it ("*sys_bpf" made every name a backtracking scan). tail_len 0: no such check.
	 */
	const char *tail;
	size_t tail_len;
	size_t match_cnt;
};

static inline bool disc_glob__may_match(const struct disc_glob *g, const char *name)
{
	return !g->lead || g->lead == name[0];
}

#define DISC_CAND_KEYS	65536

/* A name's first three characters, hashed: what struct func_discovery's cand_keys holds */
static inline unsigned int disc_cand_key(const char *name)
{
	unsigned int h = (unsigned char)name[0];

	if (name[0]) {
		h = h * 257 + (unsigned char)name[1];
		if (name[1])
			h = h * 257 + (unsigned char)name[2];
	}
	return h & (DISC_CAND_KEYS - 1);
}

/* A (name, module) from available_filter_functions, with how often it was listed. */
struct cand {
	const char *name;
	const char *module;
	size_t dup_cnt;
	bool done;		/* prepared (or rejected) already */
};

/*
 * One role class's globs (allow: entry and allow; deny) by lead character: those of lead c
 * are idx[off[c]] to idx[off[c + 1] - 1], bucket 0 holding the ones that start with a
 * wildcard. A name is tested against two buckets instead of every glob.
 */
struct disc_glob_index {
	size_t off[257];
	size_t *idx;
};

struct func_discovery {
	struct func_discovery_opts opts;

	struct disc_glob *globs;
	size_t glob_cnt;
	/* built by func_discovery_globs__index() for the first indexed_cnt globs */
	struct disc_glob_index allow_idx, deny_idx;
	size_t indexed_cnt;
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
	/*
	 * Bit disc_cand_key(name) is set for each candidate's name: the BTF walks test each of
	 * the BTF's ~50,000 function names against the candidates, and in a targeted run all
	 * but a few fail this test, before any string comparison.
	 */
	__u64 cand_keys[DISC_CAND_KEYS / 64];

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

/* a NULL print callback is silent, as in every module (log.h) */
#define pr(d, level, ...) log_msg((d)->opts.print, level, __VA_ARGS__)

static inline int cmp_mod_name(const char *amod, const char *aname, const char *bmod, const char *bname)
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

static inline int cmp_cand(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	return cmp_mod_name(a->module, a->name, b->module, b->name);
}

static inline bool disc_may_be_cand(const struct func_discovery *d, const char *name)
{
	unsigned int k = disc_cand_key(name);

	return d->cand_keys[k / 64] & (1ULL << (k % 64));
}

static inline void progress(struct func_discovery *d, const char *stage, size_t done, size_t total)
{
	if (d->opts.progress)
		d->opts.progress(d->opts.progress_ctx, stage, done, total);
}

static inline bool stopped(const struct func_discovery *d)
{
	return d->opts.stop && *d->opts.stop;
}

/* func_discovery_globs.c */
int func_discovery_globs__add_builtin(struct func_discovery *d);
void func_discovery_globs__count_deny_hits(struct func_discovery *d, const char *name,
					   const char *mod);
int func_discovery_globs__mark_entries(struct func_discovery *d);
int func_discovery_globs__index(struct func_discovery *d);
void func_discovery_globs__free_index(struct func_discovery *d);

/* func_discovery_btf.c: candidates to traced functions, with BTF and then without */
int func_discovery_btf__discover(struct func_discovery *d);
int func_discovery_btf__prepare_leftovers(struct func_discovery *d);

#endif
