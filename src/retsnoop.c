// SPDX-License-Identifier: BSD-2-Clause
/*
 * retsnoop's main(): command line, function discovery, then either the dry-run report or a
 * tracing run (trace_cmd).
 */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "cli.h"
#include "cmd_trace.h"
#include "hunt.h"
#include "func_discovery.h"
#include "kernel_features.h"
#include "kernel_funcs.h"
#include "run_cache.h"
#include "mono_clock.h"
#include "privileges.h"
#include "progress.h"
#include "records.h"
#include "sink.h"
#include "stop.h"
#include "tracer.h"
#include "prefetch.h"
#include "trace_cmd.h"
#include "user_funcs.h"
#include "vmlinux_dwarf.h"
#include "version.h"

static struct env env;
/* `-- CMD`: retsnoop's exit status is CMD's, once CMD was started (-1: not) */
static int cmd_status = -1;
/* -o FILE: the JSON stream goes there; NULL: stdout */
static FILE *json_out;

static bool lockdown_refuses(void);


static int libbpf_print_fn(enum libbpf_print_level level, const char *fmt, va_list args)
{
	trace_cmd__saw_libbpf(fmt);
	if (level == LIBBPF_DEBUG && env.verbose < 3)
		return 0;
	/* a verifier cut short by the stop is no failure to tell about */
	if (stop__requested())
		return 0;
	if (env.json && level == LIBBPF_WARN) {
		va_list copy;

		va_copy(copy, args);
		json_sink__log(json_out ?: stdout, LOG_WARN, fmt, copy);
		va_end(copy);
	}
	return vfprintf(stderr, fmt, args);
}

/*
 * The one print callback of every module: warnings and errors to stderr, -v/-vv/-vvv
 * details to stdout (stderr with --json, where stdout carries only JSON lines). With
 * --json, errors and warnings are JSON records on stdout too: a pipeline reads one format.
 */
static struct progress *progress;	/* the terminal's status line, if shown */

static void log_print(int level, const char *fmt, va_list args)
{
	va_list copy;

	if (level > env.verbose)
		return;
	progress__clear(progress);
	if (env.json && level <= LOG_WARN) {
		va_copy(copy, args);
		json_sink__log(json_out ?: stdout, level, fmt, copy);
		va_end(copy);
	}
	vfprintf(level <= LOG_WARN || env.json ? stderr : stdout, fmt, args);
}

/* Kernel lockdown in confidentiality mode: say so once, instead of a verifier log. */
static bool lockdown_refuses(void)
{
	if (privileges__lockdown(NULL) != LOCKDOWN_CONFIDENTIALITY)
		return false;
	log_msg(log_print, LOG_ERROR, "Kernel lockdown is in confidentiality mode, which forbids BPF programs to read kernel memory: retsnoop can't trace here (boot without lockdown=confidentiality, or with lockdown=integrity at most).\n");
	return true;
}

static int print_version(void)
{
	LIBBPF_OPTS(privileges_opts, po);
	struct kernel_features feat;
	long long missing;
	char names[128];
	int err;

	printf("retsnoop %s\n", RETSNOOP_VERSION);
	if (!env.verbose)
		return 0;
	if (lockdown_refuses())
		return 1;
	err = kernel_features__detect(&feat, NULL);
	if (err == -ENODATA) {
		log_msg(log_print, LOG_ERROR, "Calibration failure, BPF probes weren't triggered!\n");
		return 1;
	}
	if (err) {
		missing = privileges__missing(&po);
		if (missing > 0)
			log_msg(log_print, LOG_ERROR, "Failed to do feature detection (%s): missing %s; run retsnoop as root or grant them.\n",
				strerror(-err), privileges__names(missing, names, sizeof(names)));
		else
			log_msg(log_print, LOG_ERROR, "Failed to do feature detection (%s): the kernel refuses BPF tracing although retsnoop has the privileges it needs (a security module or a container/VM sandbox?).\n",
				strerror(-err));
		return 1;
	}
	kernel_features__print(&feat, stdout);
	return 0;
}

/*
 * -p names processes that run now: one that doesn't would leave nothing to trace, and a
 * pid past the kernel's pid_max failed later as "Failed to set up BPF maps: -2".
 */
static int check_pids_running(void)
{
	size_t i;

	for (i = 0; i < env.allow_pid_cnt; i++) {
		if (kill(env.allow_pids[i], 0) == 0 || errno != ESRCH)
			continue;
		log_msg(log_print, LOG_ERROR, "No process with PID %d (-p): it must be running when retsnoop starts; check the number with 'ps -p %d', or trace a command with '-- CMD'.\n",
			env.allow_pids[i], env.allow_pids[i]);
		return -ESRCH;
	}
	return 0;
}

/* Options that would have no effect as given. */
static void warn_idle_options(void)
{
	/* probes show as -T rows and -I samples; alone they would be attached for nothing */
	if (env.inject_probe_cnt && !env.emit_func_trace && !env.emit_interim_stacks)
		log_msg(log_print, LOG_WARN, "Note: injected probes (-J) show only with -T (call trace rows) or -I (interim samples).\n");
}

/*
 * Is kernel module @name loaded (/proc/modules)? A kernel without modules has no such
 * file (none is); otherwise unreadable: taken as yes (nothing said).
 */
static bool module_loaded(const char *name)
{
	char line[256];
	size_t len = strlen(name);
	bool found = false;
	FILE *f = fopen("/proc/modules", "re");

	if (!f)
		return errno != ENOENT;
	while (!found && fgets(line, sizeof(line), f))
		found = strncmp(line, name, len) == 0 && line[len] == ' ';
	fclose(f);
	return found;
}

/*
 * "main [openssl]" is a kernel module glob (a user image is a path or a library's .so
 * name): where no module by that name is loaded and a program by that name is on $PATH,
 * say how to name the program, before anything fails for want of kernel functions.
 */
static void warn_module_programs(void)
{
	const struct glob_list *lists[] = { &env.entry_globs, &env.allow_globs, &env.deny_globs };
	char path[PATH_MAX];
	size_t i, j;

	for (i = 0; i < 3; i++)
		for (j = 0; j < lists[i]->cnt; j++) {
			const struct glob_spec *g = &lists[i]->specs[j];

			/* $PATH first: most module names are no program, and /proc/modules stays unread */
			if (g->kind != GLOB_NAME || glob_spec__is_user(g) || !g->mod ||
			    strpbrk(g->mod, "*?[") || cmd_launch__resolve(g->mod, path, sizeof(path)) ||
			    module_loaded(g->mod))
				continue;
			if (cmd_launch__is_script(path))
				/* the path would be refused: a script has no functions of its own */
				log_msg(log_print, LOG_WARN, "Note: '%s [%s]' names a kernel module, and none by that name is loaded; the program %s is a script (a shim or wrapper): name the program it runs, or its library, by path (a user-space image is a path or a library's .so name).\n",
					g->name, g->mod, path);
			else
				log_msg(log_print, LOG_WARN, "Note: '%s [%s]' names a kernel module, and none by that name is loaded; for the program %s write '%s [%s]' (a user-space image is a path or a library's .so name).\n",
					g->name, g->mod, path, g->name, path);
		}
}

/* Say which capabilities a run lacks (root has them all; a capable non-root user too). */
static void warn_privileges(void)
{
	LIBBPF_OPTS(privileges_opts, po);
	long long missing = privileges__missing(&po);
	char names[128];

	if (missing > 0)
		log_msg(log_print, LOG_WARN, "WARNING: missing %s; tracing needs CAP_BPF, CAP_PERFMON, CAP_SYSLOG and CAP_DAC_READ_SEARCH (and CAP_SYS_ADMIN where kernel.perf_event_paranoid is 3): run as root or grant them.\n",
			privileges__names(missing, names, sizeof(names)));
}

/* Which globs of -e/-a (deny globs select nothing) name the kernel, which user space. */
static bool has_globs(bool user)
{
	const struct glob_list *lists[] = { &env.entry_globs, &env.allow_globs };
	size_t i, j;

	for (i = 0; i < 2; i++)
		for (j = 0; j < lists[i]->cnt; j++)
			if (glob_spec__is_user(&lists[i]->specs[j]) == user)
				return true;
	return false;
}

/*
 * The user-space globs of -e/-a/-d, discovered. NULL: none given (or an error, *err).
 * @cmd: the -- CMD launched (NULL: none, or --dry-run): its binary, PATH resolved, is
 * the program whose loader library globs follow (RUNPATH, ELF class and machine).
 */
static struct user_funcs *find_user_funcs(const struct cmd_launch *cmd, int *err)
{
	static char cmd_path[PATH_MAX];	/* uf keeps the pointer */
	const struct glob_list *lists[] = { &env.entry_globs, &env.allow_globs, &env.deny_globs };
	const enum func_glob_role roles[] = { FUNC_GLOB_ENTRY, FUNC_GLOB_ALLOW, FUNC_GLOB_DENY };
	struct user_funcs_opts uo = {
		.sz = sizeof(uo), .print = log_print,
		/* one traced process: its maps say which libraries it uses */
		.pid = env.allow_pid_cnt == 1 ? env.allow_pids[0] : 0,
		.arg_types = env.capture_args,
	};
	const char *predict = getenv("RETSNOOP_UPROBE_PREDICT");
	struct user_funcs *uf;
	size_t i, j;

	*err = 0;
	if (!has_globs(true))
		return NULL;
	/* tests: the kernel's own verdict on what user_unprobeable.c says it refuses */
	uo.kernel_judges_code = predict && strcmp(predict, "0") == 0;
	if (cmd)
		uo.binary = cmd_launch__path(cmd);
	else if (env.cmd_argv && !cmd_launch__resolve(env.cmd_argv[0], cmd_path, sizeof(cmd_path)))
		uo.binary = cmd_path;
	uf = user_funcs__new(&uo);
	if (!uf) {
		*err = -ENOMEM;
		return NULL;
	}
	for (i = 0; i < 3 && !*err; i++)
		for (j = 0; j < lists[i]->cnt && !*err; j++)
			if (glob_spec__is_user(&lists[i]->specs[j]))
				*err = user_funcs__add_glob(uf, roles[i], &lists[i]->specs[j]);
	if (!*err)
		*err = user_funcs__run(uf);
	if (*err) {
		user_funcs__free(uf);
		return NULL;
	}
	return uf;
}

/*
 * One table: the kernel's functions, then the user-space ones (ids follow on: an id is
 * its function's index).
 * Without user functions it is the discovery's own (@out NULL): a copy was 80 bytes a
 * function, 3 MB of a whole-kernel hunt's peak RSS.
 */
static int join_funcs(const struct func_discovery *d, const struct user_funcs *uf,
		      struct func **out, struct trace_funcs *tf)
{
	size_t kcnt = d ? func_discovery__func_cnt(d) : 0;
	size_t ucnt = uf ? user_funcs__cnt(uf) : 0;
	struct func *all;

	*out = NULL;
	tf->cnt = kcnt + ucnt;
	tf->user_cnt = ucnt;
	if (kcnt && !ucnt) {
		tf->funcs = func_discovery__funcs(d);
		return 0;
	}
	all = calloc(kcnt + ucnt ?: 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	if (kcnt)
		memcpy(all, func_discovery__funcs(d), kcnt * sizeof(*all));
	if (ucnt)
		memcpy(all + kcnt, user_funcs__funcs(uf), ucnt * sizeof(*all));
	*out = all;
	tf->funcs = all;
	return 0;
}

/* What trace_cmd__run() may free once nothing reads the kernel's BTF (no -A). */
struct kernel_btf_owner {
	struct btf **vmlinux_btf;
	struct func_discovery *d;
	struct func *funcs;		/* the joined copy, kernel functions first; NULL: none */
	size_t kernel_cnt;
};

static void drop_kernel_btf(void *ctx)
{
	struct kernel_btf_owner *o = ctx;
	size_t i;

	/* the discovery's own table: func_discovery__drop_btfs() below */
	for (i = 0; o->funcs && i < o->kernel_cnt; i++)
		o->funcs[i].btf = NULL;
	if (o->d)
		func_discovery__drop_btfs(o->d);
	btf__free(*o->vmlinux_btf);
	*o->vmlinux_btf = NULL;
#ifdef __GLIBC__
	/* 5 MB of freed pages back to the kernel now, not at the next trim */
	malloc_trim(0);
#endif
}

/* kprobe.multi with one session link (6.10+) rather than the entry+exit pair. */
static bool multi_session(const struct kernel_features *feat)
{
	return feat->has_kprobe_session && env.cfg.kprobe_session;
}

/* The attach mode a run would use; -M on a kernel without kprobe.multi is an error. */
static int resolve_mode(const struct kernel_features *feat, const char **desc)
{
	switch (env.attach_mode) {
	case ATTACH_FENTRY:
		if (feat && !feat->has_func_ip) {
			log_msg(log_print, LOG_ERROR, "This kernel lacks bpf_get_func_ip() (Linux 5.15+), which fentry/fexit tracing (-F) needs; use -K (kprobes) instead.\n");
			return -EOPNOTSUPP;
		}
		if (feat && !feat->has_fentry) {
			log_msg(log_print, LOG_ERROR, "This kernel can't attach BPF trampolines to kernel functions (on arm64: Linux 6.4+), which fentry/fexit tracing (-F) needs; use -K (kprobes) instead.\n");
			return -EOPNOTSUPP;
		}
		*desc = "fentry/fexit (-F)";
		return 0;
	case ATTACH_KPROBE_SINGLE:
		*desc = "single kprobes/kretprobes (-K)";
		return 0;
	case ATTACH_KPROBE_MULTI:
		if (feat && !feat->has_kprobe_multi) {
			log_msg(log_print, LOG_ERROR, "This kernel doesn't support kprobe.multi (Linux 5.18+ with CONFIG_FPROBE), which -M asks for; use -K (single kprobes) or drop -M.\n");
			return -EOPNOTSUPP;
		}
		if (!feat)
			*desc = "kprobe.multi (-M; kernel support not verified)";
		else
			*desc = multi_session(feat) ? "kprobe.multi session links (-M)" :
						      "kprobe.multi (-M)";
		return 0;
	default:
		if (!feat)
			*desc = "kprobe.multi if the kernel has it, else single kprobes (auto; feature detection failed)";
		else
			*desc = !feat->has_kprobe_multi ? "single kprobes/kretprobes (auto: no kprobe.multi)" :
				multi_session(feat) ? "kprobe.multi session links (auto)" :
				"kprobe.multi (auto)";
		return 0;
	}
}

/*
 * What would be attached: the --dry-run report (reference §5.8). @feat NULL: feature
 * detection failed, the user functions' mode is a guess too.
 */
static void report_dry_run(const struct func_discovery *d, const struct trace_funcs *tf,
			   const char *mode, const struct kernel_features *feat)
{
	FILE *vout = env.json ? stderr : stdout;
	enum uprobe_mode umode;

	umode = tracer__user_mode(feat, trace_cmd__user_mode_asked(&env), !env.cfg.uprobe_session);
	trace_cmd__report_fallbacks(&env, d, log_print);
	log_msg(log_print, LOG_INFO, "Attach mode: %s.\n", mode);
	trace_cmd__report_funcs(&env, tf->funcs, tf->cnt, NULL, mode, NULL,
				uprobe_attacher__mode_name(umode), vout, log_print);
	log_msg(log_print, LOG_INFO, "Successfully attached in 0 ms.\n");
}

/*
 * The whole-kernel hunt attaches some 30,000 functions: in one kprobe.multi link it takes
 * seconds, one by one it doesn't work (measured in the 6.1 and 5.10 guests: single
 * kretprobes fail on perf_event_nmi_handler after 6 s, and 70,000 kprobes would take the
 * better part of an hour under TCG; fentry needs a trampoline each). So without
 * kprobe.multi the hunt's default '-a *' is taken back: the syscall entry points alone
 * (~430, 12 s to attach as single kprobes in the 6.1 guest under TCG) still show which
 * syscall failed, with what errno and the program's stack, and report_hunt() says what is
 * missing and what to add. An explicit -a '*' is the user's choice.
 */
static int check_hunt_mode(unsigned int *hunt, const struct kernel_features *feat)
{
	if (!(*hunt & HUNT_ALLOW_ALL) || !feat || feat->has_kprobe_multi)
		return 0;
	return hunt__syscalls_only(&env, hunt);
}

/*
 * A 32-bit command or -p process: its syscalls enter the compat wrappers, the hunt's
 * sessions too.
 */
static bool target_is_32bit(void)
{
	char path[PATH_MAX];
	size_t i;

	if (env.cmd_argv)
		return !cmd_launch__resolve(env.cmd_argv[0], path, sizeof(path)) &&
		       cmd_launch__is_32bit(path);
	for (i = 0; i < env.allow_pid_cnt; i++) {
		snprintf(path, sizeof(path), "/proc/%d/exe", env.allow_pids[i]);
		if (cmd_launch__is_32bit(path))
			return true;
	}
	return false;
}

/* The hunt's one line: what it traces (-v: every function, as for any run). */
static void report_hunt(const struct func_discovery *d, unsigned int hunt)
{
	const struct func *funcs = func_discovery__funcs(d);
	size_t i, cnt = func_discovery__func_cnt(d), entries = 0;
	const char *compat = hunt & HUNT_COMPAT ? " and the compat ones of a 32-bit program" : "";

	for (i = 0; i < cnt; i++)
		entries += !!(funcs[i].flags & FUNC_IS_ENTRY);
	if (hunt & HUNT_SYSCALLS_ONLY) {
		log_msg(log_print, LOG_WARN, "Syscall hunt: %zu syscall entry points ('%s'%s); this kernel lacks kprobe.multi (Linux 5.18+ with CONFIG_FPROBE), which tracing the whole kernel needs, so a failed syscall is shown without the kernel function its error came from: to find that, add the subsystem's functions, e.g. -a 'do_sys_open*' -a 'path_*'%s.\n",
			entries, hunt__entry_glob(), compat, env.verbose ? "" : "; -v lists them");
		return;
	}
	log_msg(log_print, LOG_WARN, "Whole-kernel hunt: %zu functions, sessions start at %zu syscall entry points ('%s'%s)%s.\n",
		cnt, entries, hunt__entry_glob(), compat, env.verbose ? "" : "; -v lists them");
}

/*
 * The vmlinux BTF, which feature detection and discovery both read: the prefetched one
 * (@pre), else read here. NULL, said why, when there is none.
 */
static struct btf *take_vmlinux_btf(struct prefetch *pre)
{
	struct btf *btf = pre ? prefetch__take_vmlinux_btf(pre) : btf__load_vmlinux_btf();
	int err;

	if (btf)
		return btf;
	/* a stop gave up the wait: nothing failed, nothing to say */
	if (stop__requested())
		return errno = EINTR, NULL;
	err = -errno;
	log_msg(log_print, LOG_ERROR, "Failed to load vmlinux BTF: %d (%s). retsnoop needs a kernel built with CONFIG_DEBUG_INFO_BTF=y.\n",
		err, strerror(-err));
	errno = -err;
	return NULL;
}

static int run(void)
{
	LIBBPF_OPTS(func_discovery_opts, dopts, .print = log_print,
		    .progress = progress__update, .stop = stop__flag());
	struct kernel_features feat = {};
	struct func_discovery *d = NULL;
	struct user_funcs *uf = NULL;
	struct vmlinux_dwarf *vd = NULL;
	struct btf *vmlinux_btf = NULL;
	const struct btf_funcs *btf_funcs = NULL;
	struct prefetch_opts popts = {
		.sz = sizeof(popts), .ksyms = true, .vmlinux_btf = true, .ftrace_funcs = true,
		.stop = stop__flag(),
	};
	struct prefetch *pre = NULL;
	struct run_cache_opts rco = { .sz = sizeof(rco), .print = log_print };
	struct run_cache *cache = NULL;
	struct kernel_calib *calib = NULL;
	struct trace_funcs tf = {};
	struct func *all = NULL;
	struct trace_cmd_target tgt = {};
	struct kernel_btf_owner owner;
	long start_ms = now_ms();
	unsigned int hunt = 0;
	bool kernel, feat_cached = false;
	const char *mode;
	int err, feat_err = 0;

	/* the command's ELF header is read only where a hunt gets the defaults */
	err = hunt__apply_defaults(&env, !env.entry_globs.cnt && target_is_32bit(), &hunt);
	if (err) {
		log_msg(log_print, LOG_ERROR, "Failed to set up the whole-kernel hunt: %s.\n",
			strerror(-err));
		return err;
	}
	/* only user-space functions: no kernel function is probed, kprobes may be missing */
	kernel = has_globs(false) || env.inject_probe_cnt;
	if (env.entry_globs.cnt == 0) {
		log_msg(log_print, LOG_ERROR, "No entry point globs specified. Please provide entry glob(s) ('-e GLOB') and/or any preset ('-c PRESET'), or name a command to trace with no globs at all: retsnoop -- CMD [ARGS...].\n");
		return -EINVAL;
	}
	warn_idle_options();
	warn_module_programs();

	/* what no feature detection survives, said plainly */
	err = kernel ? kernel_features__check_btf(NULL) : 0;
	if (err) {
		log_msg(log_print, LOG_ERROR, "This kernel has no usable BTF (/sys/kernel/btf/vmlinux: %s); retsnoop needs a kernel built with CONFIG_DEBUG_INFO_BTF=y.\n",
			err == -ENODATA ? "empty or not BTF" : strerror(-err));
		return -ESRCH;
	}
	if (kernel && kernel_features__kprobes_disarmed(NULL)) {
		log_msg(log_print, LOG_ERROR, "Kprobes are disabled system-wide (/sys/kernel/debug/kprobes/enabled is 0): they would attach and never fire. Enable them with 'echo 1 > /sys/kernel/debug/kprobes/enabled'.\n");
		return -ENODEV;
	}
	err = env.dry_run ? 0 : check_pids_running();
	if (err)
		return err;
	if (env.output_path && !env.dry_run) {
		tgt.out = fopen(env.output_path, "we");
		if (!tgt.out) {
			err = -errno;
			log_msg(log_print, LOG_ERROR, "Can't write samples to '%s' (-o): %s.\n",
				env.output_path, strerror(-err));
			return err;
		}
		setvbuf(tgt.out, NULL, _IOLBF, 0);
		json_out = tgt.out;
	}
	/* forked first: CMD's process inherits none of the BPF objects made below */
	if (env.cmd_argv && !env.dry_run) {
		err = cmd_trace__launch(&env, log_print, &tgt.cmd);
		if (err) {
			if (err == -ENOENT || err == -EACCES)
				cmd_status = CMD_TRACE_NOT_RUN;
			else if (err == -ESRCH)
				cmd_status = 64;	/* -u: a usage error */
			goto cleanup;
		}
	}

	/*
	 * kallsyms and BTF are read meanwhile (NULL: read when needed); a run of user
	 * functions only keeps just its features (their detection's uprobes cost a run
	 * 200-300 ms of grace periods on a 6.18 host)
	 */
	if (env.cfg.boot_cache) {
		rco.user_only = !kernel;
		cache = run_cache__open(&rco, kernel ? &popts : NULL);
	}
	feat_cached = run_cache__features(cache, &feat, has_globs(true));
	/* with the features and the BTF's functions kept, most runs read no BTF at all */
	if (kernel) {
		/*
		 * Nothing else of the BTF needed: the features are kept (detection reads the
		 * BTF), no -A (argument plans read types), no -F (attached by BTF id)
		 */
		btf_funcs = run_cache__btf_funcs(cache, feat_cached && !env.capture_args &&
						 env.attach_mode != ATTACH_FENTRY);
		popts.vmlinux_btf = !btf_funcs;
		pre = prefetch__start(&popts);
	}

	/*
	 * kernel features first: the attach mode depends on them. Their probes are attached
	 * while the prefetch threads read; their BTF answers come from discovery's BTF.
	 */
	/*
	 * A stop from here to the calibration's release exits at once (stop.h), its line said
	 * from the signal handler: not under --json, whose stream ends with that line as a
	 * record (docs/json.md), which only main's way out writes.
	 */
	if (!env.json)
		stop__set_phase(STOP_CALIBRATING);
	if (kernel) {
		calib = feat_cached ? NULL : kernel_features__begin(stop__flag());
		if (!feat_cached && !calib) {
			err = -ENOMEM;
			goto cleanup;
		}
		vmlinux_btf = btf_funcs ? NULL : take_vmlinux_btf(pre);
		if (!btf_funcs && !vmlinux_btf) {
			err = -errno;
			goto cleanup;
		}
	}
	feat_err = stop__requested() ? -EINTR : feat_cached ? 0 :
		   trace_cmd__detect(&feat, &calib, has_globs(true), vmlinux_btf, log_print);
	if (!feat_err && calib)
		run_cache__keep_features(cache, &feat, has_globs(true));
	/*
	 * Released on a thread of its own: the run goes on meanwhile. Uprobes among them
	 * (user-space functions traced) go once the sidecar has started (trace_cmd_target).
	 */
	if (kernel_features__holds_uprobes(calib))
		tgt.calib = calib;
	else
		kernel_features__release(calib);
	calib = NULL;
	stop__set_phase(STOP_STARTING);
	if (feat_err && (!env.dry_run || feat_err == -EINTR)) {
		if (feat_err != -EOPNOTSUPP && feat_err != -EINTR)
			log_msg(log_print, LOG_ERROR, "Failed to detect kernel BPF features: %s. Run retsnoop as root on a kernel that allows BPF tracing%s.\n",
				strerror(-feat_err), kernel ? "" : " and uprobes");
		err = feat_err;
		goto cleanup;
	}
	if (feat_err)
		log_msg(log_print, LOG_INFO, "Feature detection failed (%s), the attach mode is a guess.\n",
			strerror(-feat_err));
	err = resolve_mode(feat_err ? NULL : &feat, &mode);
	if (err)
		goto cleanup;
	err = check_hunt_mode(&hunt, kernel && !feat_err ? &feat : NULL);
	if (err)
		goto cleanup;
	if (!kernel)
		mode = "none (user-space functions only)";
	trace_cmd__phase_done(log_print, "feature detection");

	/* kallsyms may take seconds more to read: a stop by now ends the run here */
	if (stop__requested()) {
		err = -EINTR;
		goto cleanup;
	}
	/* user-space functions: a missing binary or function stops the run before the kernel's */
	uf = find_user_funcs(tgt.cmd, &err);
	if (err)
		goto cleanup;
	if (kernel) {
		struct kernel_funcs_opts ko = {
			.sz = sizeof(ko), .env = &env, .print = log_print, .pre = pre,
			.vmlinux_btf = vmlinux_btf,
			/* the image to save copies it */
			.keep_name_index = cache && !popts.ksyms_image,
		};

		dopts.btf_funcs = btf_funcs;
		err = kernel_funcs__find(&ko, &dopts, &vd, &d, &progress);
		if (err)
			goto cleanup;
		run_cache__set_discovery(cache, d);
		run_cache__digest_btf(cache, vmlinux_btf);
		if (hunt)
			report_hunt(d, hunt);
	}
	err = join_funcs(d, uf, &all, &tf);
	if (err)
		goto cleanup;

	if (stop__requested()) {
		err = -EINTR;
		goto cleanup;
	}
	if (env.dry_run) {
		report_dry_run(d, &tf, mode, feat_err ? NULL : &feat);
		printf("Dry run successful, exiting...\n");
		printf("DONE in %ld ms.\n", now_ms() - start_ms);
		goto cleanup;
	}
	owner = (struct kernel_btf_owner){
		.vmlinux_btf = &vmlinux_btf, .d = d, .funcs = all, .kernel_cnt = tf.cnt - tf.user_cnt,
	};
	tgt.drop_kernel_btf = drop_kernel_btf;
	tgt.drop_ctx = &owner;
	tgt.after_first_poll = run_cache__save;
	tgt.after_ctx = cache;
	err = trace_cmd__run(&env, d, &tf, &feat, vd, log_print, progress, &tgt);
	if (!err && tgt.cmd)
		cmd_status = tgt.exit_status;
cleanup:
	stop__set_phase(STOP_STARTING);
	cmd_launch__free(tgt.cmd);
	json_out = NULL;
	if (tgt.out)
		fclose(tgt.out);
	progress__free(progress);
	progress = NULL;
	free(all);
	user_funcs__free(uf);
	/* the save reads discovery's lists: done before they go (and the BTF copy with it) */
	run_cache__save(cache);
	run_cache__free(cache);
	func_discovery__free(d);
	vmlinux_dwarf__free(vd);
	btf__free(vmlinux_btf);
	kernel_features__release(calib);
	kernel_features__release(tgt.calib);
	prefetch__free(pre);
	return err;
}

int main(int argc, char **argv)
{
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
#ifdef __GLIBC__
	/*
	 * Start-up allocates and frees several buffers of megabytes (kallsyms, BTF copies):
	 * a fixed threshold keeps them mmap()ed, so freeing one gives its memory back, where
	 * glibc's adaptive one would keep later ones on the heap after the first free.
	 */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
	err = cli__parse(argc, argv, &env, log_print);
	if (err) {
		env__free(&env);
		/* every command-line error, whichever parser path found it: EX_USAGE */
		return 64;
	}
	if (env.show_help) {
		cli__print_help(stderr);
		goto out;
	}
	if (env.show_usage) {
		cli__print_usage(stdout);
		goto out;
	}
	if (env.show_config_help) {
		cli__print_config_help(stdout);
		goto out;
	}
	libbpf_set_print(libbpf_print_fn);
	if (env.show_version) {
		err = print_version();
		goto out;
	}

	trace_cmd__phase_done(log_print, "command line");
	/* from here on a signal stops the run (stop.h), whatever phase it is in */
	stop__catch();
	warn_privileges();
	if (lockdown_refuses()) {
		err = EPERM;
		goto out;
	}
	err = -run();
	/*
	 * Stopped before tracing began: as a shell would report a process the signal killed
	 * (130 for SIGINT), whatever the step said. A stop while tracing is the normal end.
	 */
	if (err && stop__requested()) {
		log_msg(log_print, LOG_WARN, "Interrupted by %s before tracing began; nothing was traced.\n",
			stop__signal_name());
		err = stop__exit_status();
	}
	/* `-- CMD` ran, or could not: its status is retsnoop's */
	if (cmd_status >= 0)
		err = cmd_status;
out:
	env__free(&env);
	return err;
}
