// SPDX-License-Identifier: BSD-2-Clause
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli.h"
#include "cli_int.h"
#include "lbr.h"
#include "retsnoop.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define COMM_MAX_LEN 15		/* TASK_COMM_LEN - 1: what the kernel keeps of a name */

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

struct use_case {
	const char *name;
	const char *const *entry, *const *allow, *const *deny;
};

static const char *const bpf_entry[] = { "*_sys_bpf", NULL };
static const char *const bpf_allow[] = {
	"*bpf*", "*btf*", "do_check*", "reg_*", "check_*", "resolve_*", "convert_*",
	"adjust_*", "sanitize_*", "map_*", "ringbuf_*", "array_*", "__vmalloc_*", "__alloc*",
	"pcpu_*", "memdup_*", "stack_map_*", "htab_*", "generic_map_*", "*copy_from*",
	"*copy_to*", NULL,
};
static const char *const bpf_deny[] = {
	"bpf_get_smp_processor_id", "bpf_get_current_pid_tgid", "*migrate*", "rcu_read_lock*",
	"rcu_read_unlock*", "bpf_lsm_*", "check_cfs_rq_runtime", "find_busiest_group",
	"find_vma*", "btf_sec_info_cmp", "copy_to_user_nofault", NULL,
};
/* upstream's "*_sys__perf_event_open" (double underscore) matched no syscall wrapper */
static const char *const perf_entry[] = { "*_sys_perf_event_open", "perf_ioctl", NULL };
static const char *const perf_allow[] = { "*perf_*", NULL };
static const char *const no_globs[] = { NULL };

static const struct use_case use_cases[] = {
	{ "bpf", bpf_entry, bpf_allow, bpf_deny },
	{ "perf", perf_entry, perf_allow, no_globs },
};

enum cfg_type { CFG_INT, CFG_BOOL, CFG_ARGS_FMT, CFG_SYMB };

struct cfg_key {
	const char *name;
	enum cfg_type type;
	size_t off;		/* into struct env_config */
	long min, max;
	const char *help;
};

#define CFG_OFF(field) offsetof(struct env_config, field)

static const struct cfg_key cfg_keys[] = {
	{ "bpf.ringbuf-size", CFG_INT, CFG_OFF(ringbuf_size), 1, INT_MAX,
	  "BPF ring buffer size in bytes (defaults to 8388608, i.e. 8MB).\n"
	  "\tIncrease it if samples get dropped; the kernel needs a power-of-2 multiple of the page size" },
	{ "bpf.sessions-size", CFG_INT, CFG_OFF(sessions_size), 1, INT_MAX,
	  "BPF sessions map capacity; setting it uses that map instead of task storage "
	  "(default: task storage on 5.11+, else a map of 4096)" },
	{ "stacks.symb-mode", CFG_SYMB, 0, 0, 0,
	  "Stack symbolization mode: none (n), linenum (l) or inlines (i).\n"
	  "\tSame as -sn, -s and -ss; by default inlines when a DWARF vmlinux is found" },
	{ "stacks.unfiltered", CFG_BOOL, CFG_OFF(stacks_unfiltered), 0, 0,
	  "Keep BPF trampoline and program frames in stacks and don't trim irrelevant LBR records\n"
	  "\t(defaults to false)" },
	{ "stacks.emit-addrs", CFG_BOOL, CFG_OFF(stacks_emit_addrs), 0, 0,
	  "Prefix stack and LBR symbols with their raw addresses (defaults to false)" },
	{ "stacks.dec-offs", CFG_BOOL, CFG_OFF(stacks_dec_offs), 0, 0,
	  "Print symbol offsets in decimal instead of hex (defaults to false)" },
	{ "args.max-total-args-size", CFG_INT, CFG_OFF(args_max_total_args_size), 1, 65536,
	  "Total bytes of captured arguments per function call (defaults to 3072)" },
	{ "args.max-sized-arg-size", CFG_INT, CFG_OFF(args_max_sized_arg_size), 1, 16384,
	  "Bytes captured per fixed-size argument or pointed-to value (defaults to 256)" },
	{ "args.max-str-arg-size", CFG_INT, CFG_OFF(args_max_str_arg_size), 1, 16384,
	  "Bytes captured per string argument (defaults to 256)" },
	{ "args.capture-raw-ptrs", CFG_BOOL, CFG_OFF(args_capture_raw_ptrs), 0, 0,
	  "Also capture and print raw pointer values (defaults to false)" },
	{ "args.fmt-mode", CFG_ARGS_FMT, CFG_OFF(args_fmt_mode), 0, 0,
	  "Argument formatting: compact (c), multiline (m) or verbose (v) (defaults to compact)" },
	{ "args.fmt-max-arg-width", CFG_INT, CFG_OFF(args_fmt_max_arg_width), 0, 250,
	  "Truncate each printed argument to this width, 0 for no limit (defaults to 120).\n"
	  "\tNot applied in verbose mode" },
	{ "stacks.user-stack-size", CFG_INT, CFG_OFF(ustack_size), 256, USTACK_MAX_SIZE,
	  "-U: bytes of user stack copied from the stack pointer up, for unwinding\n"
	  "\t(defaults to 16384, at most 16384; a deeper stack is unwound as far as it reaches)" },
	{ "fmt.lbr-max-count", CFG_INT, CFG_OFF(lbr_max_count), 1, INT_MAX,
	  "Print at most this many LBR records (defaults to all)" },
};

/* Parser state beyond struct env: order-dependent checks. */
struct cli_state {
	struct env *env;
	int success_policy;	/* +1 -S/-Sy, -1 -Sn or -x, 0 unset */
	bool x_seen;
	bool mode_set;
	const char *stray_arg;	/* first positional argument: a usage error */
	log_print_fn print;	/* where the one error line goes */
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
static int parse_long(const char *s, long min, long max, long *out)
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

static int add_glob_spec(struct cli_state *st, struct glob_list *list, const char *arg,
			 bool mandatory);

/* An option's string value; the last one given wins. */
static int set_str(struct cli_state *st, char **dst, const char *arg)
{
	free(*dst);
	*dst = strdup(arg);
	if (!*dst)
		return cli_err(st, "Out of memory.");
	return 0;
}

struct file_glob_ctx {
	struct cli_state *st;
	struct glob_list *list;
	bool mandatory;
};

static int file_glob_cb(const char *tok, void *ctx)
{
	struct file_glob_ctx *c = ctx;

	/* a token is a glob: no nested @FILE */
	return add_glob_spec(c->st, c->list, tok, c->mandatory);
}

/* -e/-a/-d value; returns positive errno after printing why (argp convention). */
static int add_glob(struct cli_state *st, struct glob_list *list, const char *arg, bool mandatory)
{
	struct file_glob_ctx ctx = { st, list, mandatory };
	int err;

	if (arg[0] != '@')
		return add_glob_spec(st, list, arg, mandatory);
	err = glob__for_each_file_token(arg + 1, file_glob_cb, &ctx);
	if (err < 0)
		return cli_err(st, "Failed to read globs from '%s': %s.", arg + 1, strerror(-err));
	return err;
}

static int add_glob_spec(struct cli_state *st, struct glob_list *list, const char *arg,
			 bool mandatory)
{
	struct glob_spec spec;
	int err;

	err = glob_spec__parse(arg, &spec);
	switch (err) {
	case 0:
		break;
	case -EINVAL:
		return cli_err(st, "Empty glob provided.");
	case -EOPNOTSUPP:
		return cli_err(st, "Unsupported glob '%s'.", arg);
	case -EBADMSG:
		return cli_err(st, "Invalid glob '%s': expected 'GLOB', 'GLOB [MODGLOB]' or 'GLOB [IMAGE]'.", arg);
	case -ENOMSG:
		return cli_err(st, "Invalid error rule in '%s': '=RULE' (errno-positive, le0, false, never, default) follows a user-space glob 'GLOB [IMAGE]' only.", arg);
	default:
		return cli_err(st, "Failed to add glob '%s': %s.", arg, strerror(-err));
	}
	/* source-path entry globs may legitimately match nothing in vmlinux DWARF */
	spec.mandatory = mandatory && spec.kind == GLOB_NAME;
	err = glob_list__push(list, &spec);
	if (err) {
		glob_spec__free(&spec);
		return cli_err(st, "Out of memory.");
	}
	return 0;
}

static int add_use_case(struct cli_state *st, const char *name)
{
	struct env *env = st->env;
	const struct use_case *uc = NULL;
	const char *const *g;
	size_t i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(use_cases); i++) {
		if (strcmp(use_cases[i].name, name) == 0)
			uc = &use_cases[i];
	}
	if (!uc)
		return cli_err(st, "Unknown use case '%s' specified (-c), supported: bpf, perf.", name);
	for (g = uc->entry; *g && !err; g++)
		err = add_glob(st, &env->entry_globs, *g, true);
	for (g = uc->allow; *g && !err; g++)
		err = add_glob(st, &env->allow_globs, *g, false);
	for (g = uc->deny; *g && !err; g++)
		err = add_glob(st, &env->deny_globs, *g, false);
	return err;
}

static int push_str(char ***arr, size_t *cnt, const char *s)
{
	char **n = realloc(*arr, (*cnt + 1) * sizeof(**arr));

	if (!n)
		return -ENOMEM;
	*arr = n;
	n[*cnt] = strdup(s);
	if (!n[*cnt])
		return -ENOMEM;
	(*cnt)++;
	return 0;
}

struct comm_ctx {
	struct cli_state *st;
	char ***arr;
	size_t *cnt;
};

static int add_comm_cb(const char *comm, void *ctx)
{
	struct comm_ctx *c = ctx;
	struct cli_state *st = c->st;

	if (strlen(comm) > COMM_MAX_LEN)
		return cli_err(st, "Process name '%s' is too long: the kernel keeps only %d characters of thread names.",
			       comm, COMM_MAX_LEN);
	if (push_str(c->arr, c->cnt, comm))
		return cli_err(st, "Out of memory.");
	return 0;
}

static int add_comm(struct cli_state *st, char ***arr, size_t *cnt, const char *arg)
{
	struct comm_ctx ctx = { st, arr, cnt };
	int err;

	if (arg[0] != '@')
		return add_comm_cb(arg, &ctx);
	err = glob__for_each_file_token(arg + 1, add_comm_cb, &ctx);
	if (err < 0)
		return cli_err(st, "Failed to read process names from '%s': %s.", arg + 1, strerror(-err));
	return err;
}

static int add_pid(struct cli_state *st, int **arr, size_t *cnt, const char *arg)
{
	long pid;
	int *n;

	if (parse_long(arg, 1, INT_MAX, &pid))
		return cli_err(st, "Invalid PID: %s", arg);
	n = realloc(*arr, (*cnt + 1) * sizeof(**arr));
	if (!n)
		return cli_err(st, "Out of memory.");
	*arr = n;
	n[(*cnt)++] = pid;
	return 0;
}

static int add_probe_cb(const char *arg, void *ctx)
{
	struct cli_state *st = ctx;
	struct env *env = st->env;
	struct probe_spec *n, spec;
	int err;

	err = probe_spec__parse(arg, &spec);
	if (err == -EINVAL)
		return cli_err(st, "Invalid probe '%s': expected " PROBE_SPEC_FORMATS ".", arg);
	if (err)
		return cli_err(st, "Out of memory.");
	n = realloc(env->inject_probes, (env->inject_probe_cnt + 1) * sizeof(*n));
	if (!n) {
		probe_spec__free(&spec);
		return cli_err(st, "Out of memory.");
	}
	env->inject_probes = n;
	n[env->inject_probe_cnt++] = spec;
	return 0;
}

static int add_probe(struct cli_state *st, const char *arg)
{
	int err;

	if (arg[0] != '@')
		return add_probe_cb(arg, st);
	err = glob__for_each_file_token(arg + 1, add_probe_cb, st);
	if (err < 0)
		return cli_err(st, "Failed to read probes from '%s': %s.", arg + 1, strerror(-err));
	return err;
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

static int parse_bool(const char *v, bool *out)
{
	if (!strcasecmp(v, "true") || !strcasecmp(v, "y") || !strcmp(v, "1"))
		*out = true;
	else if (!strcasecmp(v, "false") || !strcasecmp(v, "n") || !strcmp(v, "0"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

/* Full (case-insensitive) name or its one-letter alias. */
static int parse_enum(const char *v, const char *const *names, int cnt)
{
	int i;

	for (i = 0; i < cnt; i++) {
		/* tolower() takes an unsigned char value: a byte >= 0x80 is not EOF */
		if (!strcasecmp(v, names[i]) ||
		    (strlen(v) == 1 && tolower((unsigned char)v[0]) == names[i][0]))
			return i;
	}
	return -EINVAL;
}

static int parse_config(struct cli_state *st, const char *arg)
{
	static const char *const symb_names[] = { "none", "linenum", "inlines" };
	static const enum symb_mode symb_modes[] = { SYMB_NONE, SYMB_LINENUM, SYMB_INLINES };
	static const char *const fmt_names[] = { "compact", "multiline", "verbose" };
	const struct cfg_key *k = NULL;
	const char *eq = strchr(arg, '='), *dot = strchr(arg, '.'), *val;
	struct env *env = st->env;
	char *base = (char *)&env->cfg;
	size_t i, klen;
	long v;
	bool b;
	int e;

	if (!eq || !dot || dot > eq || dot == arg || dot + 1 == eq)
		return -cli_err(st, "Invalid configuration value '%s', expected format is 'group.key=value'.",
				arg);
	klen = eq - arg;
	val = eq + 1;
	for (i = 0; i < ARRAY_SIZE(cfg_keys); i++) {
		if (strlen(cfg_keys[i].name) == klen && strncmp(cfg_keys[i].name, arg, klen) == 0)
			k = &cfg_keys[i];
	}
	if (!k)
		return -cli_err(st, "Config '%.*s' unrecognized! See --config-help for the supported keys.",
				(int)klen, arg);
	switch (k->type) {
	case CFG_INT:
		if (parse_long(val, k->min, k->max, &v))
			return -cli_err(st, "Invalid '%s' config value '%s'. Expected valid integer in [%ld, %ld] range.",
					k->name, val, k->min, k->max);
		*(long *)(base + k->off) = v;
		break;
	case CFG_BOOL:
		if (parse_bool(val, &b))
			return -cli_err(st, "Invalid '%s' config value '%s'. Expected a boolean: true/false, y/n or 1/0.",
					k->name, val);
		*(bool *)(base + k->off) = b;
		break;
	case CFG_SYMB:
		e = parse_enum(val, symb_names, ARRAY_SIZE(symb_names));
		if (e < 0)
			return -cli_err(st, "Invalid '%s' config value '%s'. Expected none (n), linenum (l) or inlines (i).",
					k->name, val);
		env->symb_mode = symb_modes[e];
		break;
	case CFG_ARGS_FMT:
		e = parse_enum(val, fmt_names, ARRAY_SIZE(fmt_names));
		if (e < 0)
			return -cli_err(st, "Invalid '%s' config value '%s'. Expected compact (c), multiline (m) or verbose (v).",
					k->name, val);
		env->cfg.args_fmt_mode = e;
		break;
	}
	return 0;
}

int cli__parse_config(struct env *env, const char *arg, log_print_fn print)
{
	struct cli_state st = { .env = env, .print = print };

	return parse_config(&st, arg);
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
		return add_use_case(st, arg);
	case 'e':
		return add_glob(st, &env->entry_globs, arg, true);
	case 'a':
		return add_glob(st, &env->allow_globs, arg, false);
	case 'd':
		return add_glob(st, &env->deny_globs, arg, false);
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
		return add_probe(st, arg);
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
		if (parse_long(arg, 1, INT_MAX, &v))
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
		return add_pid(st, &env->allow_pids, &env->allow_pid_cnt, arg);
	case 'P':
		return add_pid(st, &env->deny_pids, &env->deny_pid_cnt, arg);
	case 'n':
		return add_comm(st, &env->allow_comms, &env->allow_comm_cnt, arg);
	case 'N':
		return add_comm(st, &env->deny_comms, &env->deny_comm_cnt, arg);
	case 'L':
		if (parse_long(arg, 1, LONG_MAX / 1000000, &v))
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
		err = parse_config(st, arg);
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
	env->cfg.sessions_size = 0;	/* task storage, or a map of 4096 (the tracer decides) */
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

void cli__print_config_help(FILE *f)
{
	size_t i;

	fputs("It's possible to tune retsnoop's internal details with one or more\n"
	      "--config KEY=VALUE (-C KEY=VALUE) arguments.\n"
	      "\n"
	      "Supported configuration parameters:\n", f);
	for (i = 0; i < ARRAY_SIZE(cfg_keys); i++)
		fprintf(f, "  %s - %s\n", cfg_keys[i].name, cfg_keys[i].help);
}
