/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * struct env: everything the command line asked for, as the CLI parsed and validated it.
 * Plain data; cli__parse() fills it and env__free() releases it.
 */
#ifndef RETSNOOP_ENV_H
#define RETSNOOP_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "arg_fmt.h"
#include "errnos.h"
#include "glob.h"
#include "mass_attacher.h"
#include "probe_spec.h"
#include "vmlinux_dwarf.h"

enum debug_feat {
	DEBUG_MULTI_KPROBE	= 0x1,
	DEBUG_FULL_LBR		= 0x2,
	DEBUG_BPF		= 0x4,
};

/* -C group.key=value settings. */
struct env_config {
	long ringbuf_size;		/* bpf.ringbuf-size */
	long sessions_size;		/* bpf.sessions-size */
	long session_table;		/* bpf.session-table; -1: the tracer's default */
	bool stacks_unfiltered;		/* stacks.unfiltered */
	bool stacks_emit_addrs;		/* stacks.emit-addrs */
	bool stacks_dec_offs;		/* stacks.dec-offs */
	long args_max_total_args_size;
	long args_max_sized_arg_size;
	long args_max_str_arg_size;
	bool args_capture_raw_ptrs;
	enum args_fmt_mode args_fmt_mode;
	long args_fmt_max_arg_width;
	long lbr_max_count;		/* fmt.lbr-max-count, --lbr-max-count; 0 = all */
	long ustack_size;		/* stacks.user-stack-size; 0 = USTACK_DEFAULT_SIZE */
	bool uprobe_session;		/* bpf.uprobe-session, true by default */
	bool kprobe_session;		/* bpf.kprobe-session: session links where the kernel has them */
	bool fsession;			/* bpf.fsession: -F's fsession programs where the kernel has them */
	bool fsession_multi;		/* bpf.fsession-multi: on one tracing multi-link */
	bool prune;			/* bpf.prune: dead code dropped before the load */
	bool irq_calls;			/* bpf.irq-calls: interrupts' calls kept in sessions */
	bool boot_cache;		/* start.boot-cache, true by default (boot_cache.h) */
};

struct env {
	/* what main does instead of tracing */
	bool show_help;			/* -h */
	bool show_usage;		/* --usage */
	bool show_version;		/* -V */
	bool show_config_help;		/* --config-help */

	int verbose;			/* -v count */
	bool dry_run;
	enum attach_mode attach_mode;	/* -M / -K / -F, ATTACH_AUTO by default */
	unsigned int debug_feats;	/* enum debug_feat */

	/* function selection; entry globs from -e and -c are mandatory */
	struct glob_list entry_globs, allow_globs, deny_globs;

	/* views */
	bool emit_call_stack;		/* resolved: stack view on */
	bool emit_func_trace;		/* -T */
	bool emit_interim_stacks;	/* -I */
	bool capture_args;		/* -A */
	bool user_stacks;		/* -U */
	bool user_stacks_implied;	/* on only because of `-- CMD`, not asked with -U */
	bool use_lbr;			/* -B / -R / --lbr */
	bool json;			/* --json: JSON lines instead of text */
	__u64 lbr_flags;		/* ORed --lbr=SPEC values; 0 = any_return */

	/* filters */
	bool success_stacks;		/* resolved: report successful sessions too */
	bool has_error_filter;		/* some -x given (not reset by -x any) */
	bool allow_errors[ERRNO_NAME_MAX + 1];	/* -x, indexed by errno, [0] = NULL */
	bool deny_errors[ERRNO_NAME_MAX + 1];	/* -X */
	int *allow_pids, *deny_pids;	/* -p / -P */
	size_t allow_pid_cnt, deny_pid_cnt;
	char **allow_comms, **deny_comms;	/* -n / -N */
	size_t allow_comm_cnt, deny_comm_cnt;
	long longer_ms;			/* -L, 0 = off */

	/* symbolization */
	char *vmlinux_path;		/* -k */
	enum symb_mode symb_mode;	/* -s / -C stacks.symb-mode */

	/* -J probes, in the order given (a probe's id is its index) */
	struct probe_spec *inject_probes;
	size_t inject_probe_cnt;

	/* `-- CMD [ARGS...]`: the command to run and trace */
	char **cmd_argv;		/* NULL-terminated, borrowed from main's argv; NULL: none */
	bool no_follow_forks;		/* --no-follow-forks: CMD's own process only */
	char *run_as_user;		/* -u USER */
	char *output_path;		/* -o FILE: samples there instead of stdout */

	struct env_config cfg;
};

#endif
