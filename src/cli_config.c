// SPDX-License-Identifier: BSD-2-Clause
/* -C group.key=value settings and their --config-help text. Part of the cli module (cli.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "cli.h"
#include "cli_int.h"
#include "records.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

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
	  "BPF sessions map capacity; setting it uses that map instead of task storage or "
	  "the session table (default: unset; task storage, else the session table)" },
	{ "bpf.session-table", CFG_INT, CFG_OFF(session_table), 0, 65536,
	  "Slots of the session table, rounded up to a power of 2: a session lives in the slot\n"
	  "\tof its thread id's low bits or one of the next 3, which a probe finds with an array\n"
	  "\tlookup instead of a task storage lookup; it caps concurrent sessions, more are\n"
	  "\tdropped and counted (NO SESSION SLOT). Defaults, where task storage can't hold a\n"
	  "\tsession (7.x) or there is none (5.10), to 4 per thread alive at the start, at least\n"
	  "\t1024 and at most 4096; else 0: task storage" },
	{ "bpf.kprobe-session", CFG_BOOL, CFG_OFF(kprobe_session), 0, 0,
	  "kprobe.multi: one session link per set, run at entry and return (Linux 6.10+), instead\n"
	  "\tof an entry and a return link (defaults to true where the kernel has them)" },
	{ "bpf.fsession", CFG_BOOL, CFG_OFF(fsession), 0, 0,
	  "-F: one fsession program per function, run at entry and return with one trampoline\n"
	  "\tlink (Linux 7.0+), instead of an fentry and an fexit program and link: about half the\n"
	  "\tattach and detach time (defaults to true where the kernel has them)" },
	{ "bpf.fsession-multi", CFG_BOOL, CFG_OFF(fsession_multi), 0, 0,
	  "-F with fsession: one program for all of vmlinux's functions (and one per module),\n"
	  "\tverified once and linked to them all with one tracing multi-link (Linux 7.x on\n"
	  "\tx86-64), instead of a program and a link per function (defaults to true where the\n"
	  "\tkernel has them)" },
	{ "bpf.prune", CFG_BOOL, CFG_OFF(prune), 0, 0,
	  "Drop the BPF code this run's settings never run before the kernel's verifier reads it,\n"
	  "\ta faster load (defaults to true; false leaves that to the verifier)" },
	{ "bpf.irq-calls", CFG_BOOL, CFG_OFF(irq_calls), 0, 0,
	  "Keep the calls of an interrupt that comes while a session runs (a timer tick's\n"
	  "\thandler, the softirqs run at its end) in that session, as the original does\n"
	  "\t(defaults to false: left out, told apart by the stack they run on)" },
	{ "bpf.uprobe-session", CFG_BOOL, CFG_OFF(uprobe_session), 0, 0,
	  "Attach user-space functions with session links where the kernel has them (6.13+):\n"
	  "\tone program at entry and return, the return skipped for calls outside sessions\n"
	  "\t(defaults to true, false keeps the entry and return pair of uprobe.multi)" },
	{ "start.boot-cache", CFG_BOOL, CFG_OFF(boot_cache), 0, 0,
	  "Keep kallsyms' functions and available_filter_functions in /run/retsnoop for later\n"
	  "\truns in the same boot with the same modules loaded, which then start without the\n"
	  "\tkernel formatting them again, and in /var/cache/retsnoop for later boots of the\n"
	  "\tsame kernel and modules (defaults to true, false neither reads nor writes them)" },
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

int cli_config__set(struct cli_state *st, const char *arg)
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
		if (cli_parse_long(val, k->min, k->max, &v))
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

	return cli_config__set(&st, arg);
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
