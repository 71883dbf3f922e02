/* SPDX-License-Identifier: BSD-2-Clause */
/* From a parsed command line and discovered functions to a tracing run (or a dry run). */
#ifndef RETSNOOP_TRACE_CMD_H
#define RETSNOOP_TRACE_CMD_H

#include <stdio.h>
#include "env.h"
#include "func.h"
#include "log.h"
#include "uprobe_attacher.h"

struct btf;
struct func_discovery;
struct kernel_calib;
struct kernel_features;
struct mass_attacher;
struct uprobe_attacher;
struct vmlinux_dwarf;
struct progress;
struct cmd_launch;

/* What a run traces besides the functions, and where its samples go. */
struct trace_cmd_target {
	FILE *out;			/* -o FILE; NULL: stdout */
	struct cmd_launch *cmd;		/* `-- CMD`, forked and held; NULL: none */
	int exit_status;		/* set with @cmd: retsnoop's exit status (CMD's) */
	/*
	 * Called once before the BPF objects are made when nothing reads the kernel functions'
	 * BTF from then on (no -A): frees it (5 MB of vmlinux BTF) and clears the table's
	 * pointers into it. NULL: kept.
	 */
	void (*drop_kernel_btf)(void *ctx);
	void *drop_ctx;
	/*
	 * Called once when the first wait for records ends (the first samples are out, or
	 * none came in 100 ms): work that only helps later runs, kept off the first stack's
	 * path. NULL: none.
	 */
	void (*after_first_poll)(void *ctx);
	void *after_ctx;
	/*
	 * Feature detection's probes, when they include uprobes: released (on a thread of its
	 * own) once the user-space sidecar is started, and set to NULL. A uprobe's release
	 * holds up another process's exec for its grace periods (6.18: the sidecar's start
	 * waited 150-200 ms in 4 runs of 10). NULL: none.
	 */
	struct kernel_calib *calib;
};

/*
 * Feature detection plus retsnoop's hard requirement (ringbuf); 0 or a negative errno.
 * *@calib: the kernel's calibration begun (kernel_features__begin()); NULL: the run traces
 * no kernel function, detect through a uprobe (kprobes may be missing), whose probes are
 * left in *@calib. The caller releases it either way. @uprobes: the run attaches uprobes
 * (their link types are detected too). @vmlinux_btf: the vmlinux BTF already read
 * (borrowed), NULL to read it here.
 */
int trace_cmd__detect(struct kernel_features *feat, struct kernel_calib **calib, bool uprobes,
		      const struct btf *vmlinux_btf, log_print_fn print);

/*
 * -vv: how long start-up took up to the end of @phase, and the peak RSS so far (where
 * start-up time and memory go, for benchmarks and bug reports).
 */
void trace_cmd__phase_done(log_print_fn print, const char *phase);

/*
 * libbpf's print callback hands each message's format here first: a program load log
 * (the kernel's verifier refusing a program) changes what a failed load is said to be.
 */
void trace_cmd__saw_libbpf(const char *fmt);

/* -vv: when a step that ran beside the phases (a prefetch thread's read) began and ended,
 * CLOCK_MONOTONIC milliseconds, on the phases' clock. */
void trace_cmd__phase_span(log_print_fn print, const char *what, long start_ms, long end_ms);

/* The run's one function table: kernel functions, then user_cnt user-space ones. */
struct trace_funcs {
	const struct func *funcs;
	size_t cnt;
	size_t user_cnt;
};

/*
 * Trace @tf's functions, as @env asks, until a stop (stop.h) or, with a command
 * (@tgt->cmd), until it exits; 0 or negative errno, -EINTR (nothing said, nothing left
 * attached) when the stop came before tracing began. @d found the kernel ones (NULL: the
 * run traces none). @vd (may be NULL: kallsyms only) adds source lines and inlined frames.
 * @progress (may be NULL) shows loading, attaching and detaching on the terminal. The
 * command is released once everything is attached, and gets the stopping signals first.
 */
int trace_cmd__run(const struct env *env, const struct func_discovery *d,
		   const struct trace_funcs *tf, const struct kernel_features *feat,
		   struct vmlinux_dwarf *vd, log_print_fn print, struct progress *progress,
		   struct trace_cmd_target *tgt);

/*
 * The -v/-vv lines about entry points and attached functions; @att and @uatt NULL for a
 * dry run. @mode names the kernel functions' attach mode; @uatt's user functions that it
 * skipped are not listed as attached. @umode names the user functions' mode where @uatt
 * is NULL (a dry run: the mode a real run would use).
 */
void trace_cmd__report_funcs(const struct env *env, const struct func *funcs, size_t cnt,
			     const struct mass_attacher *att, const char *mode,
			     const struct uprobe_attacher *uatt, const char *umode, FILE *out,
			     log_print_fn print);
/* The uprobe attach mode @env asks for (-K: single uprobes; else UPROBE_AUTO). */
enum uprobe_mode trace_cmd__user_mode_asked(const struct env *env);
/* -F: how many functions use kprobes instead (always said when there are any). */
void trace_cmd__report_fallbacks(const struct env *env, const struct func_discovery *d,
				 log_print_fn print);
/* "ENTRY|NOFAIL|VOID" for FUNC_* @flags. */
const char *trace_cmd__flags_str(__u32 flags, char *buf, size_t sz);

#endif
