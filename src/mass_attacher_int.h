/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The mass attacher's parts, shared between its files; not part of its API. Injected
 * probes (mass_attacher_inject.c) are a small set of their own: a handful of perf-event
 * or raw-tracepoint links, attached before the traced functions and detached with them.
 */
#ifndef RETSNOOP_MASS_ATTACHER_INT_H
#define RETSNOOP_MASS_ATTACHER_INT_H

#include "mass_attacher.h"
#include "prog_clones.h"
#include <bpf/libbpf.h>

struct bpf_link;

struct ma_injects;

struct ma_mod_btf {
	char *name;
	int fd;
};

struct mass_attacher {
	struct mass_attacher_progs progs;
	struct mass_attacher_opts opts;
	enum attach_mode mode;
	bool use_cookies;
	bool use_session;		/* kprobe.multi: one session link, progs.ksession */
	bool use_fsession;		/* -F: one fsession program per function */
	bool use_fmulti;		/* -F: fsession multi-links, one a BTF object */
	size_t fmulti_cnt;		/* functions on them (every fentry one) */
	__u32 ip_slot_bits;		/* kprobe.multi: the ip_slots table's log2 size, or 0 */
	bool planned, prepared, loaded;

	const struct func *funcs;	/* borrowed */
	size_t func_cnt;
	enum func_attach *how;		/* per function */
	__u32 *kprobe_ids;		/* functions attached with kprobes, in id order */
	size_t kprobe_cnt;
	size_t fentry_cnt;
	/* single kprobes the kernel refused (its blacklist): left out */
	size_t kprobe_refused_cnt, kprobe_refused_entries;
	__u32 kprobe_refused_entry;	/* the last refused entry function */
	bool *kprobe_refused;		/* by function id; NULL until one is */

	struct bpf_link **links;	/* libbpf-managed attachments */
	size_t link_cnt, link_cap;
	int *fds;			/* fentry/fexit clone programs and raw links */
	size_t fd_cnt, fd_cap;

	struct ma_mod_btf *mod_btfs;
	size_t mod_btf_cnt;

	struct ma_injects *injects;

	/* fentry/fexit: which function each template was loaded for (-1: none) */
	int fentry_tmpl_func;
	int fexit_tmpl_func[MA_FEXIT_TMPLS + 1];	/* [MA_FEXIT_TMPLS] = void */
	/* and where in each template its FENTRY_ID_MARK was (-1: none) */
	int fentry_id_insn;
	int fexit_id_insn[MA_FEXIT_TMPLS + 1];
	/* the same of the fsession templates: [0] returns a value, [1] void */
	int fsession_tmpl_func[2];
	int fsession_id_insn[2];
};


#define pr(att, level, ...) log_msg((att)->opts.print, level, __VA_ARGS__)

/* Asked to stop: attaching gives up before the next function. */
bool ma__stopped(const struct mass_attacher *att);
/* Keep @link or @fd for detach; on failure (-ENOMEM) it is released at once. */
int ma__keep_link(struct mass_attacher *att, struct bpf_link *link);
int ma__keep_fd(struct mass_attacher *att, int fd);
/* Functions attached so far (kprobes, then fentry) of all, for the progress line. */
void ma__attach_progress(struct mass_attacher *att, size_t done);

static inline void ma__set_autoload(struct bpf_program *p, bool on)
{
	if (p)
		bpf_program__set_autoload(p, on);
}

/*
 * The fentry side (mass_attacher_fentry.c). Plan: which template each fentry function's
 * programs come from, fsession's or the pair's (after plan_funcs()). Prepare: the
 * templates pointed at their first function, the unused ones not loaded. Attach: the
 * clones loaded and linked, each function's in turn (0, or -errno after a LOG_ERROR
 * line; -EINTR, silent, when asked to stop); the caller detaches what was kept.
 */
void ma__plan_fentry(struct mass_attacher *att);
int ma__prepare_fentry(struct mass_attacher *att);
int ma__attach_fentry(struct mass_attacher *att);

/*
 * The kprobe-attached functions (mass_attacher_kprobes.c): single kprobe pairs through
 * perf events, or kprobe.multi links (a pair, or one session link each batch). 0, or a
 * negative errno after a LOG_WARN line (-EINTR, silent, when asked to stop); the caller
 * detaches what was kept.
 */
int ma__attach_kprobes(struct mass_attacher *att);
int ma__attach_multi(struct mass_attacher *att);

struct ma_injects *ma_injects__new(void);
void ma_injects__free(struct ma_injects *in);
int ma_injects__add(struct ma_injects *in, const struct probe_spec *spec, __u64 cookie);
size_t ma_injects__cnt(const struct ma_injects *in);
/* Can this kernel tell the probes apart (cookies)? -EOPNOTSUPP after a LOG_WARN message. */
int ma_injects__plan(const struct ma_injects *in, const struct mass_attacher_opts *o);
/* Load only the programs of the kinds used (the others may not even verify here). */
void ma_injects__prepare(const struct ma_injects *in, const struct mass_attacher_progs *p);
/* Attach every probe, in order; on failure one LOG_WARN line names it (the caller detaches). */
int ma_injects__attach(struct ma_injects *in, const struct mass_attacher_progs *p,
		       log_print_fn print);
void ma_injects__detach(struct ma_injects *in);

/* One job shared by a few threads, item by item. */
struct ma_steps {
	bool (*step)(void *arg);	/* one more item done; false when none is left */
	void *arg;
	/* after each of the calling thread's steps: progress(ctx, stage, *done, total) */
	progress_fn progress;		/* NULL: none */
	void *ctx;
	const char *stage;
	const size_t *done;		/* items done so far, by all threads (atomic) */
	size_t total;
};

/*
 * Run @st's steps on @n threads at once (the calling one included, up to a limit) until
 * each is told no item is left. The helpers block every signal, which stays with the
 * calling thread; the calling thread says how far all of them are.
 */
void ma__run_steps(int n, const struct ma_steps *st);

/*
 * Destroy @links on up to @threads threads at once (0: a default), then close @fds (fentry
 * clones' links and programs) one by one, each item exactly once; @progress ("detaching",
 * done of all) is called from the calling thread. No item is started after @deadline_ms
 * (CLOCK_MONOTONIC; 0: none). Returns how many were released, in order: links first, then
 * fds; the rest are untouched.
 */
size_t ma__close_all(struct bpf_link **links, size_t link_cnt, const int *fds, size_t fd_cnt,
		     int threads, long deadline_ms, progress_fn progress, void *ctx);

#endif
