// SPDX-License-Identifier: BSD-2-Clause
/*
 * Options whose values add up into lists: -c use cases, -e/-a/-d globs, -n/-N process names,
 * -p/-P PIDs, -J probes; each may also come from @FILE. Part of the cli module (cli.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "cli_int.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define COMM_MAX_LEN 15		/* TASK_COMM_LEN - 1: what the kernel keeps of a name */

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

static int add_glob_spec(struct cli_state *st, struct glob_list *list, const char *arg,
			 bool mandatory);

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
int cli_lists__add_glob(struct cli_state *st, struct glob_list *list, const char *arg,
			bool mandatory)
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

int cli_lists__add_use_case(struct cli_state *st, const char *name)
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
		err = cli_lists__add_glob(st, &env->entry_globs, *g, true);
	for (g = uc->allow; *g && !err; g++)
		err = cli_lists__add_glob(st, &env->allow_globs, *g, false);
	for (g = uc->deny; *g && !err; g++)
		err = cli_lists__add_glob(st, &env->deny_globs, *g, false);
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

int cli_lists__add_comm(struct cli_state *st, char ***arr, size_t *cnt, const char *arg)
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

int cli_lists__add_pid(struct cli_state *st, int **arr, size_t *cnt, const char *arg)
{
	long pid;
	int *n;

	if (cli_parse_long(arg, 1, INT_MAX, &pid))
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

int cli_lists__add_probe(struct cli_state *st, const char *arg)
{
	int err;

	if (arg[0] != '@')
		return add_probe_cb(arg, st);
	err = glob__for_each_file_token(arg + 1, add_probe_cb, st);
	if (err < 0)
		return cli_err(st, "Failed to read probes from '%s': %s.", arg + 1, strerror(-err));
	return err;
}
