// SPDX-License-Identifier: BSD-2-Clause
/*
 * Command line (src/cli.c). Input: argv words separated by newlines, optionally followed
 * by a NUL and the contents of a file that the word "@FILE" (alone or after -e/-a/-d/-n/-N/
 * -J, or glued as -e@FILE) names. cli__parse() accepts or refuses with its documented
 * errors, never exits, and what it accepts satisfies its validation; every word is also
 * tried as a -C "group.key=value" setting.
 */
#include <errno.h>
#include <limits.h>
#include "fuzz.h"
#include "cli.h"

#define MAX_ARGS 64

/* "@FILE" anywhere in a word becomes "@<path of the in-memory file>". */
static char *expand_word(const char *w, const char *path)
{
	const char *at = strstr(w, "@FILE");
	char *s;

	if (!at)
		return strdup(w);
	if (asprintf(&s, "%.*s@%s%s", (int)(at - w), w, path, at + 5) < 0)
		return NULL;
	return s;
}

/* What every accepted value satisfies; @complete: cli__parse() succeeded. */
static void check_env(const struct env *env, bool complete)
{
	size_t i;

	for (i = 0; i < env->allow_comm_cnt; i++)
		FUZZ_CHECK(strlen(env->allow_comms[i]) <= 15);
	for (i = 0; i < env->deny_comm_cnt; i++)
		FUZZ_CHECK(strlen(env->deny_comms[i]) <= 15);
	for (i = 0; i < env->allow_pid_cnt; i++)
		FUZZ_CHECK(env->allow_pids[i] > 0);
	for (i = 0; i < env->deny_pid_cnt; i++)
		FUZZ_CHECK(env->deny_pids[i] > 0);
	for (i = 0; i < env->entry_globs.cnt; i++)
		FUZZ_CHECK(env->entry_globs.specs[i].name[0]);
	for (i = 0; i < env->inject_probe_cnt; i++)
		FUZZ_CHECK(strchr(env->inject_probes[i].spec, ':') && env->inject_probes[i].name[0] &&
			   env->inject_probes[i].display);
	FUZZ_CHECK(env->cfg.ringbuf_size >= 1 && env->cfg.sessions_size >= 0);	/* 0: task storage */
	FUZZ_CHECK(env->cfg.args_fmt_max_arg_width >= 0 && env->cfg.args_fmt_max_arg_width <= 250);
	FUZZ_CHECK(env->longer_ms >= 0 && env->longer_ms <= LONG_MAX / 1000000);
	FUZZ_CHECK(!complete || env->emit_call_stack || env->emit_func_trace);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t args_len = nul ? (size_t)(nul - data) : size;
	char *args = fuzz_strdup(data, args_len), *argv[MAX_ARGS + 2], *copy[MAX_ARGS + 2];
	const char *path;
	struct env env;
	FILE *saved;
	int argc = 1, i, err;
	char *w, *next;

	path = nul ? fuzz_file(0, nul + 1, size - args_len - 1) : "/nonexistent/fuzz";
	argv[0] = strdup("retsnoop");
	for (w = args; w && argc <= MAX_ARGS; w = next) {
		next = strchr(w, '\n');
		if (next)
			*next++ = '\0';
		argv[argc++] = expand_word(w, path);
		if (!argv[argc - 1])
			abort();
	}
	argv[argc] = NULL;
	/* argp permutes argv; keep the originals to free and to reuse as -C values */
	memcpy(copy, argv, sizeof(argv));

	saved = fuzz_stderr_quiet();
	err = cli__parse(argc, argv, &env, NULL);
	FUZZ_CHECK(!err || err == -EINVAL || err == -E2BIG || err == -ENOMEM);
	if (!err) {
		check_env(&env, true);
		if (env.show_help)
			cli__print_help(stderr);
		if (env.show_usage)
			cli__print_usage(stderr);
		if (env.show_config_help)
			cli__print_config_help(stderr);
	}
	for (i = 1; i < argc; i++) {
		err = cli__parse_config(&env, copy[i], NULL);
		FUZZ_CHECK(!err || err == -EINVAL);
	}
	check_env(&env, false);
	fuzz_stderr_restore(saved);

	env__free(&env);
	for (i = 0; i < argc; i++)
		free(copy[i]);
	free(args);
	return 0;
}
