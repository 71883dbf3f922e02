/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One tracing run: load retsnoop.bpf.c, attach it to the chosen functions through the mass
 * attacher, stream records into the session store and render samples until SIGINT/SIGTERM,
 * then detach everything. The CLI builds struct tracer_opts; nothing here parses arguments.
 */
#ifndef RETSNOOP_TRACER_H
#define RETSNOOP_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "mass_attacher.h"
#include "render.h"

/* A function to trace with its result typing and entry flag (enum func_flags). */
struct tracer_func {
	struct mass_attacher_func f;
	__u32 flags;
};

struct tracer_opts {
	size_t sz;			/* sizeof(struct tracer_opts) */
	enum attach_mode mode;
	int verbose;

	/* kernel features (feature detection) */
	bool has_kprobe_multi, has_cookies, has_func_ip, has_branch_snapshot;
	int kret_ip_off;		/* kretprobe calibration; 0: not found */

	/* what to record and show */
	bool success_stacks;		/* -S */
	bool func_trace;		/* -T */
	bool stack_view;		/* default view */
	__u64 duration_ns;		/* -L */
	bool lbr;			/* --lbr */
	__u64 lbr_flags;		/* PERF_SAMPLE_BRANCH_*, 0 = any_return */
	int lbr_max_count;		/* --lbr-max-count, 0 = all */
	bool full_lbr;

	/* kernel-side filters (-p/-P/-n/-N) */
	const int *allow_pids, *deny_pids;
	size_t allow_pid_cnt, deny_pid_cnt;
	const char *const *allow_comms, *const *deny_comms;
	size_t allow_comm_cnt, deny_comm_cnt;

	/* -x/-X: user-space error filter; NULL/0 = everything allowed */
	const bool *err_allowed;	/* indexed by errno 0..ERRNO_NAME_MAX, 0 = NULL */
	const bool *err_denied;

	__u32 ringbuf_size;		/* -C bpf.ringbuf-size */
	__u32 sessions_size;		/* -C bpf.sessions-size */

	struct sym_resolver syms;	/* symbolization for rendering */
	const char *capture_path;	/* debug: record the run for replay */
};

/* Run until interrupted. Returns 0 or a negative errno (after printing why). */
int tracer__run(const struct tracer_opts *opts, const struct tracer_func *funcs, size_t cnt);

/* -x/-X check for an error sample (exposed for unit tests). */
bool tracer__errors_pass(const struct sample *s, const struct func_desc *funcs, size_t func_cnt,
			 const bool *err_allowed, const bool *err_denied);

#endif
