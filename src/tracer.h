/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One tracing run's kernel side: retsnoop.bpf.c attached to the traced functions through
 * the mass attacher, its records decoded into samples for a sink. It neither renders nor
 * filters results; the caller owns the order of the stages:
 *
 *   open -> load -> attach -> poll... -> stop -> detach -> free
 */
#ifndef RETSNOOP_TRACER_H
#define RETSNOOP_TRACER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "func.h"
#include "kernel_features.h"
#include "log.h"
#include "mass_attacher.h"
#include "uprobe_attacher.h"
#include "sink.h"
#include "capture.h"
#include "sym_resolver.h"
#include "ustack.h"
#include "view.h"

struct tracer_opts {
	size_t sz;			/* sizeof(struct tracer_opts) */
	const struct kernel_features *feat;
	enum attach_mode mode;
	const struct func *funcs;	/* borrowed: the run's one function table */
	size_t func_cnt;
	log_print_fn print;
	progress_fn progress;		/* attaching and detaching (NULL: none) */
	void *progress_ctx;

	/* what BPF records */
	bool success_stacks;		/* successful sessions too */
	bool no_kprobe_session;		/* kprobe.multi: the entry+exit pair even where the
					 * kernel has session links (-C bpf.kprobe-session=n) */
	bool no_fsession;		/* -F: the fentry/fexit pair even where the kernel
					 * has fsession (-C bpf.fsession=n) */
	bool no_fsession_multi;		/* -F's fsession: a program per function even where
					 * the kernel has multi-links (-C bpf.fsession-multi=n) */
	/* -T (view.func_trace) and --lbr (view.lbr) are recorded; all of it is decoded */
	struct view_opts view;
	bool interim;			/* interim samples (-I) */
	__u64 lbr_flags;		/* PERF_SAMPLE_BRANCH_*, 0 = any_return */
	__u64 duration_ns;		/* only sessions at least this long */
	__u32 ringbuf_size;		/* 0: the BPF object's default */
	__u32 sessions_size;		/* 0: task storage where the kernel has it, else 4096 */
	/* -A: each function's capture plan (borrowed); NULL: no arguments */
	const struct arg_plans *args;
	__u32 args_max_total;		/* args.max-total-args-size */
	bool args_raw_ptrs;		/* args.capture-raw-ptrs */
	bool user_stacks;		/* -U: user registers and stack window per sample */
	__u32 ustack_size;		/* stacks.user-stack-size; 0: USTACK_DEFAULT_SIZE */
	struct ustack *ustack;		/* -U: maps snapshots and unwinding (borrowed) */
	/* -J -T -A: each probe's context plan (borrowed, by probe id); NULL: none */
	const struct arg_plans *probe_args;
	/* -J: injected probes (borrowed); a probe's id is its index */
	const struct probe_spec *probes;
	size_t probe_cnt;

	/* who is traced */
	const int *allow_pids, *deny_pids;
	size_t allow_pid_cnt, deny_pid_cnt;
	const char *const *allow_comms, *const *deny_comms;
	size_t allow_comm_cnt, deny_comm_cnt;
	const __u32 *excluded_tgids;	/* never: retsnoop itself and its helpers */
	size_t excluded_cnt;

	/* decoding */
	struct sym_resolver syms;

	__s64 clock_off_ns;		/* CLOCK_REALTIME - CLOCK_MONOTONIC */

	struct sink *sink;		/* samples and drop warnings go here */
	/* set (by a signal handler, say): load, attach and poll return promptly */
	const volatile sig_atomic_t *stop;
	int detach_threads;		/* 0: the mass attacher's default */
	/*
	 * Tests: user functions as on kernels without BPF cookies (single uprobes, an entry
	 * program per function) where the kernel has cookies, to check that path natively.
	 */
	bool user_id_clones;
	struct capture *capture;	/* debug: record the run for replay (borrowed) */
	/*
	 * The last user_func_cnt entries of funcs are user-space functions (FUNC_USER), traced
	 * with uprobes by their own attacher; 0: kernel functions only. A run may have no
	 * kernel function at all (user_func_cnt == func_cnt, no probes).
	 */
	size_t user_func_cnt;
	enum uprobe_mode user_mode;
	/*
	 * UPROBE_AUTO: not session links even where the kernel has them (-C
	 * bpf.uprobe-session=false): the entry and return pair, to compare.
	 */
	bool no_session_links;
	/*
	 * The one running process whose mappings alone take the uprobes' breakpoints (-p
	 * with one PID); 0: every process mapping a traced image (`-- CMD`, whose children
	 * and exec'd image must be caught too, or no process filter).
	 */
	int uprobe_pid;

	/*
	 * `-- CMD`, -p: the processes traced, checked by every probe before anything else
	 * (other processes pay one map lookup). 0: no such set, any process may be traced.
	 */
	const int *traced_tgids;
	size_t traced_tgid_cnt;
	bool follow_forks;		/* and every process they fork from now on */
	/* -vvv: the verifier's statistics of each program loaded (libbpf's debug log) */
	bool verifier_stats;
	/* bpf.prune=false: load the programs whole, the dead code left to the verifier */
	bool no_prune;
	/* bpf.irq-calls=true: interrupts' calls stay in the sessions they come in */
	bool keep_irq_calls;
	/* tests: the full BPF build even where the lite one would do (tracer.c, lite_ok()) */
	bool full_bpf;
	/* session table slots (a power of 2 is used); -1: tracer__default_table_slots() where
	 * task storage can't hold a session, none where it can; 0: none */
	int session_table;
};

/*
 * The session table's default slots where it takes the hash map's place: four for each
 * thread alive now, at least SESSION_TABLE_MIN, at most SESSION_TABLE_DEFAULT (the hash
 * map's 4096 sessions, and the size for a thread count not known). Each slot is 8-10 KB of
 * kernel memory the kernel zeroes at the load: 4096 of them were 30 ms of a 7.2 guest's
 * 220 ms start, for a machine with a hundred threads.
 */
#define SESSION_TABLE_DEFAULT	4096
#define SESSION_TABLE_MIN	1024
#define SESSION_TABLE_PER_THREAD	4

/* The default slots for @threads threads alive (0: not known): a power of 2. */
__u32 tracer__default_table_slots(unsigned long threads);

struct tracer;

/*
 * Open the BPF object and plan the attachment. NULL with errno set; -EOPNOTSUPP when the
 * kernel lacks what the mode or --lbr needs (after a message at LOG_WARN).
 */
struct tracer *tracer__open(const struct tracer_opts *opts);
/* -EINTR (nothing said) when *opts.stop was set meanwhile, for load and attach alike. */
int tracer__load(struct tracer *t);
struct prog_ksym;
/*
 * After the load: @cb with each loaded program of the tracer's object as kallsyms names it
 * (the clones of the mass attacher's are not). 0, or the first error (prog_ksym__get()'s
 * or @cb's).
 */
int tracer__for_each_prog_ksym(struct tracer *t,
			       int (*cb)(const struct prog_ksym *k, void *ctx), void *ctx);
/* On failure or stop nothing is left attached. */
int tracer__attach(struct tracer *t);
/* Add a process to the traced set (opts.traced_tgids); 0 or a negative errno. */
int tracer__trace_tgid(struct tracer *t, int tgid);
/*
 * After attach: how each kernel function was attached (see mass_attacher); NULL when the
 * run has no kernel function or probe.
 */
const struct mass_attacher *tracer__attacher(const struct tracer *t);
/*
 * The uprobe attach mode a run on a kernel with @feat uses for user functions when asked
 * for @asked: UPROBE_AUTO is session links where the kernel has them (unless
 * @no_session_links), else uprobe.multi, else single uprobes (which a uprobe.multi that
 * fails to attach also falls back to). @feat NULL: @asked. --dry-run -v names it too.
 */
enum uprobe_mode tracer__user_mode(const struct kernel_features *feat, enum uprobe_mode asked,
				   bool no_session_links);
/* The user-space functions' attacher; NULL without user functions. */
const struct uprobe_attacher *tracer__uprobes(const struct tracer *t);
/* Start recording and decoding. */
int tracer__start(struct tracer *t);
/*
 * Wait up to @timeout_ms for records and hand finished samples to the sink. Returns 0,
 * -EINTR when *opts.stop was set, or another negative errno.
 */
int tracer__poll(struct tracer *t, int timeout_ms);
/*
 * After tracer__start(): also end tracer__poll()'s wait when @fd becomes readable, once
 * (ringbuf_reader__wake_once_on()). 0 or a negative errno.
 */
int tracer__wake_once_on(struct tracer *t, int fd);
/* ... and each time @fd reports readable, until it hangs up (ringbuf_reader__wake_on()) */
int tracer__wake_on(struct tracer *t, int fd);
/* Stop recording and drain what is already buffered. */
int tracer__stop(struct tracer *t);
void tracer__drops(struct tracer *t, struct drop_report *d);
/* The samples handed to the sink so far (before the sink's own filters, -x/-X) */
size_t tracer__samples(const struct tracer *t);
/* Detach everything; returns the milliseconds it took. */
long tracer__detach(struct tracer *t);
/*
 * Detach, starting no release after @deadline_ms (CLOCK_MONOTONIC; 0: none): 0 once all is
 * released, -ETIMEDOUT with the rest still attached (tracer__free() releases it).
 */
int tracer__detach_by(struct tracer *t, long deadline_ms);
void tracer__free(struct tracer *t);

#endif
