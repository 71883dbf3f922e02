// SPDX-License-Identifier: BSD-2-Clause
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_int.h"
#include "lbr.h"

enum {
	OPT_DRY_RUN = 0x100,
	OPT_LBR_MAX_COUNT,
	OPT_DEBUG,
	OPT_CONFIG_HELP,
	OPT_USAGE,
	OPT_JSON,
	OPT_NO_FOLLOW_FORKS,
};

static const char program_doc[] =
	"retsnoop tool shows kernel call stacks and function call traces of kernel functions\n"
	"that returned errors (or any result, with -S), for a set of traced functions.\n";

static const char usage_line[] =
	"Usage: retsnoop [-v] [-e GLOB]* [-a GLOB]* [-T] [-B] [-A] [-J PROBE]*\n"
	"       retsnoop [OPTIONS] -- CMD [ARGS...]   (no globs needed: hunts the whole kernel)\n";

static const char args_doc[] = "[-- CMD [ARGS...]]";

static const struct argp_option opts[] = {
	{ NULL, 0, NULL, 0, "TARGETING\n=========", 1 },
	{ "case", 'c', "CASE", 0,
	  "Use a pre-defined set of entry/allow/deny globs for a use case (supported: bpf, perf)", 1 },
	{ "entry", 'e', "GLOB", 0,
	  "Entry function glob: GLOB, 'GLOB [MODGLOB]', :SRCPATHGLOB, @FILE, or user space: "
	  "'GLOB [PATH|LIBGLOB] =RULE' (see the man page)", 1 },
	{ "allow", 'a', "GLOB", 0, "Glob of allowed (non-entry) functions, same forms as -e", 1 },
	{ "deny", 'd', "GLOB", 0, "Glob of denied functions, same forms as -e; always wins", 1 },
	{ "user", 'u', "USER", 0, "With -- CMD: run CMD as this user (name or UID; default: as retsnoop)",
	  1 },
	{ "no-follow-forks", OPT_NO_FOLLOW_FORKS, NULL, 0,
	  "With -- CMD: trace CMD's own process only, not the processes it forks", 1 },

	{ NULL, 0, NULL, 0, "RUNMODE\n=======", 2 },
	{ "call-stack", 'E', NULL, 0, "Emit the call stack view (default; needed only with -T)", 2 },
	{ "trace", 'T', NULL, 0, "Emit a detailed trace of function calls (function call trace view)", 2 },
	{ "capture-args", 'A', NULL, 0, "Capture and emit function arguments", 2 },
	{ "user-stacks", 'U', NULL, 0,
	  "Show the user-space stack of the thread above its kernel frames (unwound from .eh_frame)",
	  2 },
	{ "inject-probe", 'J', "PROBE", 0,
	  "Inject an extra probe: kprobe:NAME[+OFF], kretprobe:NAME, rawtp:NAME, tp:CAT:NAME or @FILE",
	  2 },
	{ "interim-stacks", 'I', NULL, 0,
	  "Emit interim (incomplete) call stacks when data would otherwise be lost", 2 },
	{ "lbr", 'B', "SPEC", OPTION_ARG_OPTIONAL,
	  "Capture and print LBR (last branch records) with the given flags (any_return by default)",
	  2 },
	{ NULL, 'R', NULL, OPTION_ALIAS, NULL, 2 },
	{ "lbr-max-count", OPT_LBR_MAX_COUNT, "N", 0,
	  "Print at most N LBR records (same as -C fmt.lbr-max-count=N)", 2 },
	{ "output", 'o', "FILE", 0,
	  "Write samples to FILE instead of stdout (with -- CMD: apart from CMD's output)", 2 },
	{ "json", OPT_JSON, NULL, 0,
	  "Print samples and run events as JSON lines (one object per line; docs/json.md)", 2 },
	{ "dry-run", OPT_DRY_RUN, NULL, 0,
	  "Discover functions and report what would be done, without loading or attaching BPF", 2 },
	{ "kprobes-multi", 'M', NULL, 0, "Use multi-attach kprobes (the default where supported)", 2 },
	{ "kprobes", 'K', NULL, 0, "Use single-attach kprobes/kretprobes", 2 },
	{ "fentries", 'F', NULL, 0, "Use fentry/fexit BPF trampolines", 2 },

	{ NULL, 0, NULL, 0, "FILTERING\n=========", 3 },
	{ "pid", 'p', "PID", 0, "Only trace the given process", 3 },
	{ "no-pid", 'P', "PID", 0, "Never trace the given process", 3 },
	{ "comm", 'n', "COMM", 0, "Only trace threads with this name (or names listed in @FILE)", 3 },
	{ "no-comm", 'N', "COMM", 0, "Never trace threads with this name (or names in @FILE)", 3 },
	{ "longer", 'L', "MS", 0, "Only emit sessions whose entry function ran at least MS ms", 3 },
	{ "success-stacks", 'S', "y|n", OPTION_ARG_OPTIONAL,
	  "Also emit sessions that did not fail (-S, -Sy); -Sn: only errors", 3 },
	{ "allow-errors", 'x', "ERROR", 0,
	  "Only report sessions with this error (EINVAL, -ENOENT, NULL, ...; 'any' resets)", 3 },
	{ "deny-errors", 'X', "ERROR", 0, "Never report sessions with this error", 3 },

	{ NULL, 0, NULL, 0, "ADVANCED\n========", 4 },
	{ "kernel", 'k', "PATH", 0, "Path to the vmlinux image with DWARF debug info", 4 },
	{ "symbolize", 's', "LEVEL", OPTION_ARG_OPTIONAL,
	  "Stack symbolization: -s line info, -ss (-sinlines) with inlined calls, -sn (-snone) none",
	  4 },
	{ "debug", OPT_DEBUG, "FEATURE", 0, "Debug features: multi-kprobe, full-lbr, bpf", 4 },

	{ NULL, 0, NULL, 0, "EXTRA CONFIGURATION\n===================", 5 },
	{ "config", 'C', "KEY=VAL", 0, "Advanced setting group.key=value (see --config-help)", 5 },
	{ "config-help", OPT_CONFIG_HELP, NULL, 0, "Print the supported -C settings", 5 },

	{ NULL, 0, NULL, 0, "USAGE, HELP, VERSION\n====================", 6 },
	{ "help", 'h', NULL, 0, "Show the full help", 6 },
	{ "usage", OPT_USAGE, NULL, 0, "Show a short usage summary", 6 },
	{ "verbose", 'v', NULL, 0, "Verbose output (-vv, -vvv for more)", 6 },
	{ "version", 'V', NULL, 0, "Print the version (with -v: also kernel feature detection)", 6 },
	{},
};


/* One error line through the caller's print callback; EINVAL (argp's convention). */
int cli_err(const struct cli_state *st, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	log_msg(st->print, LOG_ERROR, "%s\n", n < 0 ? "Out of memory." : msg);
	if (n >= 0)
		free(msg);
	return EINVAL;
}

/* Strict integer: the whole string, in [min, max]. */
int cli_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* An option's string value; the last one given wins. */
static int set_str(struct cli_state *st, char **dst, const char *arg)
{
	free(*dst);
	*dst = strdup(arg);
	if (!*dst)
		return cli_err(st, "Out of memory.");
	return 0;
}

static int parse_error_arg(struct cli_state *st, int key, const char *arg)
{
	struct env *env = st->env;
	int e;

	if (key == 'x') {
		if (st->success_policy > 0)
			return cli_err(st, "Can't specify -S/-Sy and -x arguments at the same time!");
		st->x_seen = true;
		st->success_policy = -1;
		if (strcmp(arg, "any") == 0) {
			memset(env->allow_errors, 0, sizeof(env->allow_errors));
			env->has_error_filter = false;
			return 0;
		}
	}
	e = errno__parse(arg);
	if (e < 0)
		return cli_err(st, "Unrecognized error '%s' (expected a name like EINVAL or -EINVAL, or NULL%s).",
			       arg, key == 'x' ? ", or any" : "");
	if (key == 'x') {
		env->allow_errors[e] = true;
		env->has_error_filter = true;
	} else {
		env->deny_errors[e] = true;
	}
	return 0;
}

static int parse_success(struct cli_state *st, const char *arg)
{
	int policy;

	if (!arg || strcmp(arg, "y") == 0)
		policy = 1;
	else if (strcmp(arg, "n") == 0)
		policy = -1;
	else
		return cli_err(st, "Invalid -S value '%s': use -S (or -Sy) to include successes, -Sn for errors only.",
			       arg);
	if (policy > 0 && st->x_seen)
		return cli_err(st, "Conflicting combination of -S/-Sn/-Sy and -x arguments specified!");
	st->success_policy = policy;
	return 0;
}

static int parse_symb(struct cli_state *st, const char *arg)
{
	struct env *env = st->env;

	if (!arg || strcmp(arg, "linenum") == 0)
		env->symb_mode = SYMB_LINENUM;
	else if (strcmp(arg, "s") == 0 || strcmp(arg, "inlines") == 0)
		env->symb_mode = SYMB_INLINES;
	else if (strcmp(arg, "n") == 0 || strcmp(arg, "none") == 0)
		env->symb_mode = SYMB_NONE;
	else
		return cli_err(st, "Unrecognized symbolization setting '%s', only -s, -ss (-s inlines) and -sn (-s none) are supported.",
			       arg);
	return 0;
}

static int parse_debug(struct cli_state *st, const char *arg)
{
	struct env *env = st->env;

	if (strcmp(arg, "multi-kprobe") == 0)
		env->debug_feats |= DEBUG_MULTI_KPROBE;
	else if (strcmp(arg, "full-lbr") == 0)
		env->debug_feats |= DEBUG_FULL_LBR;
	else if (strcmp(arg, "bpf") == 0)
		env->debug_feats |= DEBUG_BPF;
	else
		return cli_err(st, "Unrecognized --debug feature '%s', supported: multi-kprobe, full-lbr, bpf.",
			       arg);
	return 0;
}

static int parse_mode(struct cli_state *st, enum attach_mode mode)
{
	if (st->mode_set && st->env->attach_mode != mode)
		return cli_err(st, "Can't specify -M, -K or -F simultaneously, pick one.");
	st->mode_set = true;
	st->env->attach_mode = mode;
	return 0;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct cli_state *st = state->input;
	struct env *env = st->env;
	__u64 flags;
	long v;
	int err;

	switch (key) {
	case 'c':
		return cli_lists__add_use_case(st, arg);
	case 'e':
		return cli_lists__add_glob(st, &env->entry_globs, arg, true);
	case 'a':
		return cli_lists__add_glob(st, &env->allow_globs, arg, false);
	case 'd':
		return cli_lists__add_glob(st, &env->deny_globs, arg, false);
	case 'E':
		env->emit_call_stack = true;
		break;
	case 'T':
		env->emit_func_trace = true;
		break;
	case 'A':
		env->capture_args = true;
		break;
	case 'U':
		env->user_stacks = true;
		break;
	case 'J':
		return cli_lists__add_probe(st, arg);
	case 'I':
		env->emit_interim_stacks = true;
		break;
	case 'B':
	case 'R':
		env->use_lbr = true;
		if (!arg)
			break;
		if (lbr__parse_spec(arg, &flags))
			return cli_err(st, "Unrecognized LBR spec '%s', expected a number or one of: %s.",
				       arg, lbr__aliases());
		env->lbr_flags |= flags;
		break;
	case OPT_LBR_MAX_COUNT:
		if (cli_parse_long(arg, 1, INT_MAX, &v))
			return cli_err(st, "Invalid --lbr-max-count value '%s'. Expected valid integer in [1, %d] range.",
				       arg, INT_MAX);
		env->cfg.lbr_max_count = v;
		break;
	case OPT_DRY_RUN:
		env->dry_run = true;
		break;
	case OPT_JSON:
		env->json = true;
		break;
	case 'o':
		return set_str(st, &env->output_path, arg);
	case 'u':
		return set_str(st, &env->run_as_user, arg);
	case OPT_NO_FOLLOW_FORKS:
		env->no_follow_forks = true;
		break;
	case 'M':
		return parse_mode(st, ATTACH_KPROBE_MULTI);
	case 'K':
		return parse_mode(st, ATTACH_KPROBE_SINGLE);
	case 'F':
		return parse_mode(st, ATTACH_FENTRY);
	case 'p':
		return cli_lists__add_pid(st, &env->allow_pids, &env->allow_pid_cnt, arg);
	case 'P':
		return cli_lists__add_pid(st, &env->deny_pids, &env->deny_pid_cnt, arg);
	case 'n':
		return cli_lists__add_comm(st, &env->allow_comms, &env->allow_comm_cnt, arg);
	case 'N':
		return cli_lists__add_comm(st, &env->deny_comms, &env->deny_comm_cnt, arg);
	case 'L':
		if (cli_parse_long(arg, 1, LONG_MAX / 1000000, &v))
			return cli_err(st, "Invalid -L duration: %s (expected a positive number of milliseconds).",
				       arg);
		env->longer_ms = v;
		break;
	case 'S':
		return parse_success(st, arg);
	case 'x':
	case 'X':
		return parse_error_arg(st, key, arg);
	case 'k':
		return set_str(st, &env->vmlinux_path, arg);
	case 's':
		return parse_symb(st, arg);
	case OPT_DEBUG:
		return parse_debug(st, arg);
	case 'C':
		err = cli_config__set(st, arg);
		return err ? -err : 0;
	case OPT_CONFIG_HELP:
		env->show_config_help = true;
		break;
	case 'h':
		env->show_help = true;
		break;
	case OPT_USAGE:
		env->show_usage = true;
		break;
	case 'v':
		env->verbose++;
		break;
	case 'V':
		env->show_version = true;
		break;
	case ARGP_KEY_ARG:
		/* argp would add its own "Too many arguments" to an error returned here */
		if (!st->stray_arg)
			st->stray_arg = arg;
		break;
	case ARGP_KEY_END:
		/*
		 * As in the seeds: the stack view always follows a -T table (-E is accepted
		 * and changes nothing), and successful sessions show only with -S.
		 */
		env->emit_call_stack = true;
		env->success_stacks = st->success_policy > 0;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.options = opts,
	.parser = parse_arg,
	.args_doc = args_doc,
	.doc = program_doc,
};

static void env__init(struct env *env)
{
	memset(env, 0, sizeof(*env));
	env->attach_mode = ATTACH_AUTO;
	env->symb_mode = SYMB_AUTO;
	env->cfg.ringbuf_size = 8 * 1024 * 1024;
	env->cfg.uprobe_session = true;
	env->cfg.kprobe_session = true;
	env->cfg.fsession = true;
	env->cfg.fsession_multi = true;
	env->cfg.prune = true;
	env->cfg.boot_cache = true;
	env->cfg.sessions_size = 0;	/* task storage, or a map of 4096 (the tracer decides) */
	env->cfg.session_table = -1;	/* tracer__default_table_slots() where needed */
	env->cfg.args_max_total_args_size = 3072;
	env->cfg.args_max_sized_arg_size = 256;
	env->cfg.args_max_str_arg_size = 256;
	env->cfg.args_fmt_mode = ARGS_FMT_COMPACT;
	env->cfg.args_fmt_max_arg_width = 120;
}

int cli__parse(int argc, char **argv, struct env *env, log_print_fn print)
{
	struct cli_state st = { .env = env, .print = print };
	int err, sep;

	env__init(env);
	/* argv[argc] is NULL: the command's words are a NULL-terminated slice of argv */
	sep = cli_cmd__find_sep(argc, argv, opts);
	if (sep < argc && sep + 1 < argc)
		env->cmd_argv = argv + sep + 1;
	/*
	 * NO_EXIT: never exit from inside the parser (tests call it); NO_HELP: -h, --usage and
	 * -V are ours. argp still reports unknown options itself, with a --help hint.
	 */
	err = argp_parse(&argp, sep, argv, ARGP_NO_EXIT | ARGP_NO_HELP, NULL, &st);
	if (err)
		return -err;
	if (st.stray_arg) {
		cli_err(&st, "Unexpected argument '%s': retsnoop takes options only, and a command after '--' (optional values must be glued: -Sn, --lbr=any).",
			st.stray_arg);
		return -E2BIG;
	}
	err = cli_cmd__check(&st, env, sep < argc);
	return err ? -err : 0;
}

static void free_strs(char **arr, size_t cnt)
{
	size_t i;

	for (i = 0; i < cnt; i++)
		free(arr[i]);
	free(arr);
}

void env__free(struct env *env)
{
	size_t i;

	glob_list__free(&env->entry_globs);
	glob_list__free(&env->allow_globs);
	glob_list__free(&env->deny_globs);
	free(env->allow_pids);
	free(env->deny_pids);
	free_strs(env->allow_comms, env->allow_comm_cnt);
	free_strs(env->deny_comms, env->deny_comm_cnt);
	for (i = 0; i < env->inject_probe_cnt; i++)
		probe_spec__free(&env->inject_probes[i]);
	free(env->inject_probes);
	free(env->vmlinux_path);
	free(env->run_as_user);
	free(env->output_path);
	memset(env, 0, sizeof(*env));
}

void cli__print_help(FILE *f)
{
	/* argp reads this once, on first use */
	setenv("ARGP_HELP_FMT", "rmargin=99", 0);
	argp_help(&argp, f, ARGP_HELP_STD_HELP, "retsnoop");
}

void cli__print_usage(FILE *f)
{
	fputs(program_doc, f);
	fputs(usage_line, f);
	fputs("See `retsnoop --help` for all options and `retsnoop --config-help` for -C settings.\n",
	      f);
}
