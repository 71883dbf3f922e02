// SPDX-License-Identifier: BSD-2-Clause
/*
 * A tracing run from the command line's point of view: the one place that knows both the
 * options and the stages. Discovery's functions go to the tracer; its samples go through
 * the -x/-X filter to the text or JSON sink; the lifecycle lines come from here.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "addr2line.h"
#include "arg_plan.h"
#include "capture.h"
#include "cmd_trace.h"
#include "err_filter.h"
#include "func_discovery.h"
#include "kernel_features.h"
#include "lbr.h"
#include "mmap_watch.h"
#include "mono_clock.h"
#include "ustack_watch.h"
#include "probe_ctx.h"
#include "sink.h"
#include "sink_filter.h"
#include "symbolize.h"
#include "prog_ksym.h"
#include "progress.h"
#include "stop.h"
#include "trace_cmd.h"
#include "uprobe_attacher.h"
#include "tracer.h"
#include "trace_detach.h"
#include "vmlinux_dwarf.h"

#define POLL_TIMEOUT_MS 100

/* Peak and current RSS in kB (VmHWM, VmRSS), -1 if unknown. */
static void rss_kb(long *peak, long *now)
{
	char line[128];
	FILE *f = fopen("/proc/self/status", "re");

	*peak = *now = -1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", peak) != 1)
			sscanf(line, "VmRSS: %ld kB", now);
	fclose(f);
}

static long phase_start;

/* CPU time of the whole process, every thread, user and system, in ms (-1: unknown) */
static long cpu_ms(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
}

void trace_cmd__phase_done(log_print_fn print, const char *phase)
{
	long peak, cur;

	/* the first phase ends soon after exec: times count from there, near enough */
	if (!phase_start)
		phase_start = now_ms();
	rss_kb(&peak, &cur);
	/* CPU time says what was ours, less disturbed than wall time by a loaded host */
	/* the phases after tracing ("samples", "detach") say where a stop's exit goes */
	log_msg(print, LOG_DEBUG, "%s: %s done at %ld ms, peak RSS %ld kB, RSS %ld kB, CPU %ld ms.\n",
		!strcmp(phase, "samples") || !strcmp(phase, "detach") ?
		"End" : "Start-up", phase, now_ms() - phase_start, peak, cur, cpu_ms());
}

void trace_cmd__phase_span(log_print_fn print, const char *what, long start_ms, long end_ms)
{
	log_msg(print, LOG_DEBUG, "Start-up: %s from %ld to %ld ms (%ld ms).\n", what,
		start_ms - phase_start, end_ms - phase_start, end_ms - start_ms);
}

/* REALTIME - MONOTONIC, from the tightest of a few bracketed readings. */
static __s64 clock_offset_ns(void)
{
	struct timespec a, m, b;
	__s64 best_gap = -1, off = 0, gap;
	int i;

	for (i = 0; i < 10; i++) {
		clock_gettime(CLOCK_REALTIME, &a);
		clock_gettime(CLOCK_MONOTONIC, &m);
		clock_gettime(CLOCK_REALTIME, &b);
		gap = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
		if (best_gap < 0 || gap < best_gap) {
			best_gap = gap;
			off = (a.tv_sec * 1000000000LL + a.tv_nsec + gap / 2) -
			      (m.tv_sec * 1000000000LL + m.tv_nsec);
		}
	}
	return off;
}

int trace_cmd__detect(struct kernel_features *feat, struct kernel_calib **calib, bool uprobes,
		      const struct btf *vmlinux_btf, log_print_fn print)
{
	int err = !*calib ? kernel_features__detect_user(feat, vmlinux_btf, calib) :
			    kernel_features__end(*calib, feat, vmlinux_btf, uprobes);

	if (err)
		return err;
	if (!feat->has_ringbuf) {
		log_msg(print, LOG_ERROR, "Retsnoop requires BPF ringbuf (Linux 5.8+), please upgrade your kernel!\n");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* How the kernel functions ended up attached, for -v's "Total ... attached" line. */
static const char *attached_mode_name(const struct mass_attacher *att)
{
	bool fs = mass_attacher__fsession_used(att);
	bool fm = mass_attacher__fsession_multi_cnt(att);

	if (mass_attacher__kprobe_session_used(att)) {
		if (mass_attacher__mode(att) != ATTACH_FENTRY)
			return "kprobe.multi session links";
		if (fm)
			return "fsession multi-link, kprobe.multi session links";
		return fs ? "fsession, kprobe.multi session links" :
			    "fentry/fexit, kprobe.multi session links";
	}
	if (fm)
		return "fsession multi-link";
	return fs ? "fsession" : mass_attacher__mode_name(mass_attacher__mode(att));
}

/* The run's one view: what BPF records, the builder decodes, the sink shows, a capture keeps. */
static struct view_opts env_view(const struct env *env)
{
	return (struct view_opts){
		.stack = true,	/* as in the seeds, the stack follows a -T table */
		.func_trace = env->emit_func_trace,
		.lbr = env->use_lbr,
		.full_lbr = (env->debug_feats & DEBUG_FULL_LBR) || env->cfg.stacks_unfiltered,
		.unfiltered = env->cfg.stacks_unfiltered,
		.lbr_max_count = env->cfg.lbr_max_count,
		.emit_addrs = env->cfg.stacks_emit_addrs,
		.dec_offs = env->cfg.stacks_dec_offs,
		.args = env->capture_args,
		.args_fmt = env->cfg.args_fmt_mode,
		.args_max_width = env->cfg.args_fmt_max_arg_width,
	};
}

/* The text or JSON sink (*@inner, for the caller to free after the result) behind -x/-X. */
static struct sink *make_sink(const struct env *env, const struct view_opts *view, FILE *out,
			      struct sink **inner)
{
	struct err_filter f = {
		.allowed = env->has_error_filter ? env->allow_errors : NULL,
		.denied = env->deny_errors,
	};

	if (env->json) {
		struct json_sink_opts jo = { .sz = sizeof(jo), .out = out };

		*inner = json_sink__new(&jo);
	} else {
		struct text_sink_opts to = {
			.sz = sizeof(to),
			.out = out,
			.view = *view,
			.whole_lines = !isatty(STDOUT_FILENO),
		};

		*inner = text_sink__new(&to);
	}
	return *inner ? filter_sink__new(*inner, &f) : NULL;
}

/* libbpf printed a program's load log: the verifier, not a policy, refused it */
static bool verifier_log_seen;

void trace_cmd__saw_libbpf(const char *fmt)
{
	if (strstr(fmt, "BEGIN PROG LOAD LOG"))
		verifier_log_seen = true;
}

/* Why loading failed, in the words the user can act on. */
static void explain_load_error(int err, log_print_fn print)
{
	if (err != -EPERM && err != -EACCES)
		return;
	if (verifier_log_seen)
		log_msg(print, LOG_ERROR, "The kernel's verifier refused one of retsnoop's BPF programs "
			"(its log is above): a retsnoop bug on this kernel, please report it with that "
			"log; another attach mode (-K, -F) or fewer options may load.\n");
	else if (geteuid() == 0)
		log_msg(print, LOG_ERROR, "The kernel refuses BPF tracing even to root: kernel lockdown "
			"(cat /sys/kernel/security/lockdown), a security module, or a container "
			"or VM sandbox forbids it.\n");
	else
		log_msg(print, LOG_ERROR, "Kernel tracing needs root, or the capabilities the README lists "
			"(CAP_BPF, CAP_PERFMON and more).\n");
}

static void explain_open_error(const struct env *env, const struct kernel_features *feat,
			       int err, log_print_fn print)
{
	if (env->use_lbr && err == -EOPNOTSUPP && !feat->has_branch_snapshot)
		log_msg(print, LOG_ERROR, "--lbr: LBR capture needs bpf_get_branch_snapshot() (Linux 5.16+), "
			"which this kernel lacks; run without --lbr.\n");
	else if (env->use_lbr && (err == -ENOENT || err == -ENODEV || err == -EOPNOTSUPP ||
				  err == -EINVAL))
		log_msg(print, LOG_ERROR, "--lbr: this CPU or VM has no usable %s (branch-sampling perf "
			"event: %s); run without --lbr.\n", LBR_HW_NAME, strerror(-err));
	else if (env->user_stacks && !env->user_stacks_implied && err == -EOPNOTSUPP &&
		 !feat->user_regs_off)
		log_msg(print, LOG_ERROR, "-U: could not find where this kernel saves a thread's user "
			"registers (x86-64 and arm64 only); run without -U.\n");
	/* the attach modes a kernel lacks are refused before (resolve_mode in main) */
}

/*
 * -A: every function's capture plan; NULL when not asked for, or when this architecture
 * has no plan (then said once, and the run goes on without arguments).
 */
static int plan_args(const struct env *env, const struct func *funcs, size_t cnt, FILE *vout,
		     log_print_fn print, struct arg_plans **out)
{
	struct arg_plans_opts o = {
		.sz = sizeof(o),
		.limits = {
			.max_sized = env->cfg.args_max_sized_arg_size,
			.max_str = env->cfg.args_max_str_arg_size,
		},
	};
	struct arg_plans *ps;
	char buf[1024];
	size_t i;

	*out = NULL;
	if (!env->capture_args)
		return 0;
	if (!arg_arch__host()) {
		log_msg(print, LOG_WARN, "NOTE: Function arguments capture is not supported!\n");
		return 0;
	}
	ps = arg_plans__new(funcs, cnt, &o);
	if (!ps) {
		log_msg(print, LOG_ERROR, "Failed to plan argument capture: %s\n", strerror(errno));
		return -errno;
	}
	for (i = 0; env->verbose >= 2 && i < cnt; i++) {
		arg_plan__describe(arg_plans__get(ps, i), arg_plans__arch(ps), buf, sizeof(buf));
		fprintf(vout, "Function '%s' args spec: %s%s\n", funcs[i].name, buf,
			funcs[i].btf ? "" : funcs[i].flags & FUNC_USER ? " (NO DWARF INFO)" :
			" (NO BTF INFO)");
	}
	*out = ps;
	return 0;
}

/*
 * Will the stacks show code that only a fresh /proc/kallsyms names? BPF programs and
 * trampolines do in every fentry/fexit stack (ours in kprobe.multi ones on the function
 * graph, 6.14+), module functions wherever a traced function is in a module: the early
 * table answers for the kernel's own text alone. A run that traces only the kernel's own
 * functions with kprobes reads kallsyms if and when a stack shows something else (a
 * module calling in, a BPF program's helper call): the kernel formats all its 150,000
 * lines for that read, half the CPU time of a run from the boot cache, for no stack in
 * most runs. A run without kernel functions or -J probes (@att NULL: user-space functions
 * alone) has no kernel stack at all (its sessions take none, nor LBR): it never reads
 * kallsyms.
 */
static bool stacks_need_kallsyms(bool early_text, const struct func *funcs, size_t cnt,
				 const struct mass_attacher *att, const struct kernel_features *feat,
				 bool own_progs_named)
{
	enum attach_mode mode;
	size_t i;

	if (!att)
		return false;
	mode = mass_attacher__mode(att);
	if (!early_text || mode == ATTACH_FENTRY)
		return true;
	/*
	 * 6.14+: a return's stack, unwound from the task, shows our program under fprobe's,
	 * which the program itself names (add_own_ksyms()) unless that failed
	 */
	if (mode != ATTACH_KPROBE_SINGLE && feat->has_fgraph_fprobe && !own_progs_named)
		return true;
	for (i = 0; i < cnt; i++)
		if (!(funcs[i].flags & FUNC_USER) && funcs[i].module)
			return true;
	return false;
}

/*
 * No sample in the whole run, and an entry function's errors only guessed (a user-space
 * function without DWARF: a negative result fails, nothing else): a library call that
 * failed with NULL or 0 went unseen, without a word (openssl's OSSL_STORE_load() on a
 * bad certificate, libcrypto.so.3 without its debug symbols), or with a positive code
 * (SQLite's sqlite3_open_v2() of a missing directory: SQLITE_CANTOPEN, 14). Says how to
 * tell retsnoop.
 */
static void note_guessed_entry(const struct func *funcs, size_t cnt, log_print_fn print)
{
	const __u32 want = FUNC_USER | FUNC_IS_ENTRY | FUNC_ERR_GUESS;
	const char *base;
	size_t i;

	for (i = 0; i < cnt && (funcs[i].flags & want) != want; i++)
		;
	if (i == cnt || !funcs[i].image)
		return;
	base = strrchr(funcs[i].image, '/');
	base = base ? base + 1 : funcs[i].image;
	log_msg(print, LOG_WARN, "Note: no failed call seen. %s has no DWARF type for '%s' (no DWARF, or DWARF without types: -g1), so only a negative result is its failure: if it fails with NULL or 0, say so on its glob ('%s [%s] =false'), if with a positive code (an errno value, SQLite's, libcurl's) '=errno-positive', or install %s's debug symbols.\n",
		funcs[i].image, funcs[i].name, funcs[i].name, base, base);
}

static int add_own_ksym(const struct prog_ksym *k, void *ctx)
{
	return symbolize__add_ksym(ctx, k);
}

/*
 * Our loaded programs' symbols, from the programs: the frame of the one that took a
 * stack then needs no kallsyms read (which the kernel formats in half a second of a
 * 7.2 guest's instructions). False, said at -vv, when the kernel won't tell.
 */
static bool add_own_ksyms(struct tracer *t, struct symbolize *sym, log_print_fn print)
{
	int err = tracer__for_each_prog_ksym(t, add_own_ksym, sym);

	if (err)
		log_msg(print, LOG_DEBUG, "Symbols: our BPF programs' own addresses unknown (%s): "
			"their frames wait for kallsyms.\n", strerror(-err));
	return !err;
}

/*
 * -J -T -A: each probe's context plan, from the kernel's BTF (*btf, to free after the
 * run). Probes BTF doesn't describe are said once and show no context.
 */
static int plan_probe_ctx(const struct env *env, FILE *vout, log_print_fn print,
			  struct btf **btf, struct arg_plans **out)
{
	struct arg_limits lim = {
		.max_sized = env->cfg.args_max_sized_arg_size,
		.max_str = env->cfg.args_max_str_arg_size,
	};
	struct arg_plans *ps;
	char buf[1024];
	size_t i;

	*out = NULL;
	*btf = NULL;
	if (!env->capture_args || !env->emit_func_trace || !env->inject_probe_cnt ||
	    !arg_arch__host())
		return 0;
	*btf = btf__load_vmlinux_btf();
	if (libbpf_get_error(*btf)) {
		*btf = NULL;
		log_msg(print, LOG_WARN, "Note: no kernel BTF, the context of injected probes is not captured.\n");
		return 0;
	}
	ps = probe_ctx__plans(env->inject_probes, env->inject_probe_cnt, *btf, &lim);
	if (!ps) {
		log_msg(print, LOG_ERROR, "Failed to plan the context of injected probes: %s\n",
			strerror(errno));
		return -errno;
	}
	for (i = 0; i < env->inject_probe_cnt; i++) {
		const struct func_arg_plan *p = arg_plans__get(ps, i);

		if (!p->btf)
			log_msg(print, LOG_WARN, "Note: the kernel's BTF doesn't describe probe '%s': its context is not captured.\n",
				env->inject_probes[i].spec);
		else if (env->verbose >= 2) {
			arg_plan__describe(p, arg_plans__arch(ps) ?: arg_arch__host(), buf,
					   sizeof(buf));
			fprintf(vout, "Probe '%s' context spec: %s\n", env->inject_probes[i].spec, buf);
		}
	}
	*out = ps;
	return 0;
}

int trace_cmd__run(const struct env *env, const struct func_discovery *d,
		   const struct trace_funcs *tf, const struct kernel_features *feat,
		   struct vmlinux_dwarf *vd, log_print_fn print, struct progress *progress,
		   struct trace_cmd_target *tgt)
{
	struct symbolize_opts sopts = {
		.sz = sizeof(sopts), .print = print,
		.early_ksyms = d ? func_discovery__ksyms(d) : NULL,
	};
	const struct func *funcs = tf->funcs;
	size_t cnt = tf->cnt;
	struct trace_progress tprog = { .line = progress };
	struct tracer_opts o = {
		.sz = sizeof(o),
		.feat = feat,
		.mode = env->attach_mode,
		.funcs = funcs,
		.func_cnt = cnt,
		.print = print,
		.success_stacks = env->success_stacks,
		.no_kprobe_session = !env->cfg.kprobe_session,
		.no_fsession = !env->cfg.fsession,
		.no_fsession_multi = !env->cfg.fsession_multi,
		.view = env_view(env),
		.interim = env->emit_interim_stacks,
		.lbr_flags = env->lbr_flags,
		.duration_ns = env->longer_ms * 1000000ULL,
		.ringbuf_size = env->cfg.ringbuf_size,
		.sessions_size = env->cfg.sessions_size,
		.session_table = env->cfg.session_table,
		.allow_pids = env->allow_pids, .allow_pid_cnt = env->allow_pid_cnt,
		.deny_pids = env->deny_pids, .deny_pid_cnt = env->deny_pid_cnt,
		.allow_comms = (const char *const *)env->allow_comms,
		.allow_comm_cnt = env->allow_comm_cnt,
		.deny_comms = (const char *const *)env->deny_comms,
		.deny_comm_cnt = env->deny_comm_cnt,
		.clock_off_ns = clock_offset_ns(),
		.probes = env->inject_probes,
		.probe_cnt = env->inject_probe_cnt,
		.stop = stop__flag(),
		.progress = trace_progress__update,
		.progress_ctx = &tprog,
		.user_func_cnt = tf->user_cnt,
		/* -K: single probes for user functions too (uprobe.multi otherwise, if there) */
		.user_mode = trace_cmd__user_mode_asked(env),
		.no_session_links = !env->cfg.uprobe_session,
		.verifier_stats = env->verbose >= 3,
		.no_prune = !env->cfg.prune,
		.keep_irq_calls = env->cfg.irq_calls,
	};
	const char *cap_path = getenv("RETSNOOP_CAPTURE");
	bool prefetch;
	/* benchmarks: detach as before (1) to compare; not a user setting */
	const char *detach_threads = getenv("RETSNOOP_DETACH_THREADS");
	FILE *vout = env->json ? stderr : stdout;
	struct sink *sink = NULL, *inner = NULL;
	struct capture *cap = NULL;
	struct symbolize *sym = NULL;
	struct addr2line *usidecar = NULL;
	struct arg_plans *args = NULL, *probe_args = NULL;
	struct btf *probe_btf = NULL;
	struct tracer *t = NULL;
	struct ustack *ustack = NULL;
	struct mmap_watch *watch = NULL;
	struct drop_report drops;
	__u32 excluded[MAX_EXCLUDED_TGIDS];
	int pids[MAX_EXCLUDED_TGIDS - 1], i, n;
	struct cmd_launch *cmd = tgt->cmd;
	int cmd_pid = cmd ? cmd_launch__pid(cmd) : 0;
	long t0 = now_ms(), t_ready = 0, ms;
	sigset_t held;
	pid_t bg;
	int err, exec_err = 0;
	bool ustacks = env->user_stacks;

	/* `-- CMD`: its process, and by default what it forks; -p: those processes only */
	if (cmd) {
		o.traced_tgids = &cmd_pid;
		o.traced_tgid_cnt = 1;
		o.follow_forks = !env->no_follow_forks;
		/*
		 * CMD alone: its breakpoints go into its process only, as with -p, not into
		 * every process mapping the image. The kernel's filter is the task, whose mm
		 * its exec() replaces: the program and libraries it maps are still probed.
		 */
		if (env->no_follow_forks)
			o.uprobe_pid = cmd_pid;
	} else if (env->allow_pid_cnt) {
		o.traced_tgids = env->allow_pids;
		o.traced_tgid_cnt = env->allow_pid_cnt;
		if (env->allow_pid_cnt == 1)
			o.uprobe_pid = env->allow_pids[0];
	}
	/* never trace ourselves: our own output would feed back into the trace */
	excluded[0] = getpid();
	o.excluded_cnt = 1;
	n = vmlinux_dwarf__pids(vd, pids, MAX_EXCLUDED_TGIDS - 1);
	for (i = 0; i < n && i < MAX_EXCLUDED_TGIDS - 2; i++)
		excluded[o.excluded_cnt++] = pids[i];
	o.excluded_tgids = excluded;
	/*
	 * -U that only `-- CMD` implied gives way where the kernel's saved user registers
	 * can't be found (a run of user-space functions only measures no syscall): the
	 * command is still traced, its samples without the program's stack. Said where
	 * kernel functions are traced (their samples lack what -- CMD promised); a run of
	 * user functions only has their traced frames as its stack, so only -v says it.
	 */
	if (ustacks && env->user_stacks_implied && !feat->user_regs_off) {
		log_msg(print, tf->cnt > tf->user_cnt ? LOG_WARN : LOG_INFO,
			"User stacks (-U) are off: this run can't find where the kernel saves a thread's user registers.\n");
		ustacks = false;
	}
	/*
	 * User-space frames (-U, traced user functions) are symbolized in a sidecar: the
	 * vmlinux one if there is one, else one started now, before tracing, so that its
	 * own syscalls are kept out of it.
	 */
	if (vd)
		vmlinux_dwarf__symbolize_opts(vd, &sopts);
	if (!sopts.sidecar && (ustacks || tf->user_cnt)) {
		/* only a second stop cuts lookups short: the first lets received samples keep lines */
		struct addr2line_opts aopts = { .sz = sizeof(aopts), .cancel = stop__hurry_flag() };

		usidecar = addr2line__new(NULL, &aopts);
		if (usidecar) {
			sopts.sidecar = usidecar;
			excluded[o.excluded_cnt++] = addr2line__pid(usidecar);
		} else {
			log_msg(print, LOG_WARN, "User-space frames can't be unwound or symbolized: the sidecar did not start (%s).\n",
				strerror(errno));
		}
	}
	/* its exec is done: detection's uprobes go now, while BPF loads (trace_cmd_target) */
	kernel_features__release(tgt->calib);
	tgt->calib = NULL;
	/* with the DWARF vmlinux's inline setting; user lines unless -sn */
	sopts.user_inlines = env->symb_mode == SYMB_AUTO || env->symb_mode == SYMB_INLINES;
	sopts.no_user_lines = env->symb_mode == SYMB_NONE;
	sym = symbolize__new(&sopts);
	if (!sym) {
		err = -ENOMEM;
		goto out;
	}
	/* the command's tree from before its exec on */
	if (ustacks && cmd)
		watch = ustack_watch__open(cmd_pid, print);
	if (ustacks) {
		struct ustack_opts uopts = { .sz = sizeof(uopts), .syms = sym, .watch = watch };

		/* the followed processes' files: the command's tree, -p's (not system-wide) */
		uopts.open_early = cmd || env->allow_pid_cnt;
		if (!cmd && env->allow_pid_cnt) {
			uopts.watch_tgids = env->allow_pids;
			uopts.watch_tgid_cnt = env->allow_pid_cnt;
		}

		err = ustack__new(&uopts, &ustack);
		if (err)
			goto out;
		o.ustack = ustack;
	}
	if (detach_threads)
		o.detach_threads = atoi(detach_threads);
	/* tests: the no-cookie path of 5.10 on a kernel with cookies; not a user setting */
	o.user_id_clones = getenv("RETSNOOP_UPROBE_ID_CLONES") &&
			   strcmp(getenv("RETSNOOP_UPROBE_ID_CLONES"), "1") == 0;
	/* tests: the full BPF build where the lite one would do, to compare the two */
	o.full_bpf = getenv("RETSNOOP_BPF_FULL") && strcmp(getenv("RETSNOOP_BPF_FULL"), "1") == 0;

	trace_cmd__report_fallbacks(env, d, print);
	err = plan_args(env, funcs, cnt, vout, print, &args);
	if (err)
		goto out;
	o.args = args;
	if (args) {
		err = plan_probe_ctx(env, vout, print, &probe_btf, &probe_args);
		if (err)
			goto out;
		o.probe_args = probe_args;
	}
	/*
	 * Without argument plans no kernel BTF is read from here on (the attacher needs only
	 * the ids): free it before the BPF load adds libbpf's own copy to the peak.
	 */
	if (!args && tgt->drop_kernel_btf)
		tgt->drop_kernel_btf(tgt->drop_ctx);
	o.args_max_total = env->cfg.args_max_total_args_size;
	o.args_raw_ptrs = env->cfg.args_capture_raw_ptrs;
	o.user_stacks = ustacks;
	o.ustack_size = env->cfg.ustack_size;
	sink = make_sink(env, &o.view, tgt->out, &inner);
	if (!sink) {
		err = -ENOMEM;
		goto out;
	}
	o.syms = symbolize__resolver(sym);
	o.sink = sink;
	if (cap_path) {
		struct capture_opts copts = {
			.sz = sizeof(copts), .funcs = funcs, .func_cnt = cnt,
			.clock_off_ns = o.clock_off_ns,
			.view = o.view,
			.args = args,
			.probes = env->inject_probes,
			.probe_cnt = env->inject_probe_cnt,
			.probe_args = probe_args,
		};

		cap = capture__create(cap_path, &copts);
		if (!cap) {
			err = -errno;
			log_msg(print, LOG_ERROR, "Failed to create capture file '%s': %s\n", cap_path,
				strerror(-err));
			goto out;
		}
		o.capture = cap;
	}

	if (stop__requested()) {
		err = -EINTR;
		goto out;
	}
	t = tracer__open(&o);
	if (!t) {
		err = -errno;
		explain_open_error(env, feat, err, print);
		goto out;
	}
	trace_cmd__phase_done(print, "BPF open");
	progress__update(progress, "loading BPF programs", 0, 0);
	verifier_log_seen = false;	/* feature detection's refused probes are not ours */
	err = tracer__load(t);
	if (err) {
		progress__clear(progress);
		explain_load_error(err, print);
		goto out;
	}
#ifdef __GLIBC__
	/*
	 * The start-up inputs and libbpf's copies of the vmlinux BTF are freed by now: give
	 * their pages back before the ring buffer's mapping adds to the peak.
	 */
	malloc_trim(0);
#endif
	trace_cmd__phase_done(print, "BPF load");
	/*
	 * kallsyms has our programs once they are loaded; fentry trampolines appear only when
	 * attached. Read it meanwhile, so the first sample doesn't wait for it; only where the
	 * stacks are expected to need it.
	 */
	prefetch = stacks_need_kallsyms(symbolize__early_text(sym), funcs, cnt, tracer__attacher(t),
					feat, add_own_ksyms(t, sym, print));
	/* (prefetch: there is an attacher) */
	if (prefetch && mass_attacher__mode(tracer__attacher(t)) != ATTACH_FENTRY)
		symbolize__prefetch(sym);
	/* from the first link on, a signal too many hands the release to a background child */
	stop__set_phase(STOP_ATTACHED);
	err = tracer__attach(t);
	/* the line is gone before anything else is said */
	progress__clear(progress);
	/* stopped while attaching: nothing was traced, the user wants out now */
	if (err == -EINTR && stop__requested())
		trace_detach__hand_off(print);
	if (err)
		goto out;
	trace_cmd__phase_done(print, "attach");
	/* (no-op if started above) */
	if (prefetch)
		symbolize__prefetch(sym);
	trace_cmd__report_funcs(env, funcs, cnt, tracer__attacher(t),
				tracer__attacher(t) ? attached_mode_name(tracer__attacher(t)) : "none",
				tracer__uprobes(t), NULL, vout, print);
	log_msg(print, LOG_INFO, "Successfully attached in %ld ms.\n", now_ms() - t0);

	/*
	 * every process's records from now on, not while attaching (seconds of them, for
	 * no session yet); those already running are read from /proc when first named
	 */
	if (ustacks && !cmd) {
		watch = ustack_watch__open(-1, print);
		ustack__set_watch(ustack, watch);
	}
	err = tracer__start(t);
	if (err)
		goto out;
	/*
	 * -U: mapping records are drained as their rings fill too, not only at each poll's
	 * end: a script's burst of execs (a pyenv shim: 1,700 records in 100 ms) overflows
	 * 64 kB a CPU between two polls
	 */
	for (size_t w = 0; w < mmap_watch__fd_cnt(watch); w++)
		tracer__wake_on(t, mmap_watch__fd(watch, w));
	/* said once, before any output that lacks source lines */
	if (!vd && env->symb_mode != SYMB_NONE && tf->user_cnt < cnt)
		log_msg(print, LOG_WARN, "WARNING: no usable DWARF vmlinux for this kernel; showing "
			"kallsyms names only (install the kernel's debug package or use -k PATH).\n");
	/* never "ready" after a stop: the signals wait until the line is out */
	stop__hold(&held);
	if (!stop__requested()) {
		sink__ready(sink);
		t_ready = now_ms();
		/* a stop from now on lets the samples received be finished */
		stop__set_phase(STOP_SAMPLING);
	} else {
		err = -EINTR;
	}
	stop__release(&held);
	if (err) {
		/* stopped before tracing: no run to end, just what was attached to let go */
		trace_detach__hand_off(print);
		goto out;
	}
	if (cmd) {
		/* the stopping signals reach CMD first from now on */
		stop__forward_to(cmd_pid);
		exec_err = cmd_trace__release(cmd, env, print);
		/*
		 * CMD's exit wakes the wait below: else it was seen at the next 100 ms poll's
		 * end, which a short command's whole run waited out (without a pidfd it still
		 * is)
		 */
		if (!exec_err)
			tracer__wake_once_on(t, cmd_launch__exit_fd(cmd));
	}
	/* until a stop, or CMD's end: its children may run on, untraced from then on */
	while (!exec_err && !(err = tracer__poll(t, POLL_TIMEOUT_MS))) {
		if (tgt->after_first_poll) {
			tgt->after_first_poll(tgt->after_ctx);
			tgt->after_first_poll = NULL;
		}
		if (cmd && cmd_launch__wait(cmd, 0) == 1)
			break;
	}
	if (err == -EINTR)
		err = 0;
	/* -vv: what tracing added to the peak (the ring buffer's mapping, records, symbols) */
	trace_cmd__phase_done(print, "tracing");
	if (cmd)
		cmd_trace__settle(cmd, stop__signal());
	stop__forward_to(0);
	/* the samples still in the buffer, symbolized in full unless told to hurry */
	tracer__stop(t);
	stop__set_phase(STOP_ATTACHED);
	trace_cmd__phase_done(print, "samples");
	tracer__drops(t, &drops);
	if (drops.unfollowed_forks)
		log_msg(print, LOG_WARN, "WARNING: %llu processes forked by the command were not traced: their PIDs are above kernel.pid_max as it was at start.\n",
			(unsigned long long)drops.unfollowed_forks);
	/* 7.x runs it preemptible: a fork on a CPU where a preempted run of it waits is skipped */
	if (drops.forks_missed)
		log_msg(print, LOG_WARN, "WARNING: the kernel skipped retsnoop's fork program at %llu forks (of any process) while another run of it waited on the CPU: a child the command forked then is not traced.\n",
			(unsigned long long)drops.forks_missed);
	if (cmd) {
		cmd_trace__report(cmd, env, exec_err, sink);
		tgt->exit_status = cmd_trace__exit_status(cmd, exec_err, stop__signal());
	}
	/* (a command that never ran made no call either: its error was said) */
	if (!tracer__samples(t) && !exec_err)
		note_guessed_entry(funcs, cnt, print);
	drops.mmap_lost = mmap_watch__lost(watch);
	ustack_watch__notes(ustack, cmd || env->allow_pid_cnt, env->success_stacks,
			    feat->has_kprobe_multi, print);
	ustack_watch__report(watch, ustack, now_ms() - t_ready, print);
	/* -vv: the sidecar's statistics, before the final lines */
	vmlinux_dwarf__print_stats(vd);
	sink__detaching(sink, &drops);
	bg = trace_detach__run(t, cnt, &tprog, &ms);
	progress__clear(progress);
	sink__detached(sink, ms, bg);
	trace_cmd__phase_done(print, "detach");
out:
	tracer__free(t);
	ustack__free(ustack);
	mmap_watch__free(watch);
	stop__set_phase(STOP_STARTING);
	if (cap && capture__close(cap))
		log_msg(print, LOG_WARN, "Capture file '%s' is incomplete (write error).\n", cap_path);
	sink__free(sink);
	sink__free(inner);
	symbolize__free(sym);
	addr2line__free(usidecar);
	arg_plans__free(args);
	arg_plans__free(probe_args);
	btf__free(probe_btf);
	return err;
}
