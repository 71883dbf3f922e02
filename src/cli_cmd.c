// SPDX-License-Identifier: BSD-2-Clause
/*
 * The command line's `-- CMD [ARGS...]` part: where retsnoop's options end, and which
 * options go with a command. Part of the cli module (cli.h).
 */
#include <argp.h>
#include <string.h>
#include "cli_int.h"

/* Does @word, one of @opts with or without its value, take the next word as its value? */
static bool takes_next_word(const struct argp_option *opts, const char *word)
{
	const struct argp_option *o;
	size_t len;

	if (word[0] != '-' || !word[1])
		return false;
	if (word[1] == '-') {
		/* --name VALUE; getopt also takes an unambiguous prefix of the name */
		if (strchr(word, '='))
			return false;
		len = strlen(word + 2);
		for (o = opts; o->name || o->key || o->doc; o++)
			if (o->name && o->arg && !(o->flags & OPTION_ARG_OPTIONAL) &&
			    strncmp(o->name, word + 2, len) == 0)
				return true;
		return false;
	}
	/* -vxe VALUE: the first option letter with a value takes the rest or the next word */
	for (word++; *word; word++) {
		for (o = opts; o->name || o->key || o->doc; o++)
			if (o->key == *word && o->arg)
				break;
		if (o->name || o->key || o->doc)
			return !(o->flags & OPTION_ARG_OPTIONAL) && !word[1];
	}
	return false;
}

/*
 * The "--" that ends retsnoop's options and starts the command: the first one that isn't
 * the value of an option (-e -- is a glob, however odd). @argc if there is none.
 */
int cli_cmd__find_sep(int argc, char **argv, const struct argp_option *opts)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return i;
		if (takes_next_word(opts, argv[i]))
			i++;
	}
	return argc;
}

/* `-- CMD`: what goes with it and what doesn't. */
int cli_cmd__check(const struct cli_state *st, struct env *env, bool sep_seen)
{
	if (sep_seen && !env->cmd_argv)
		return cli_err(st, "'--' must be followed by the command to trace: retsnoop [OPTIONS] -- CMD [ARGS...].");
	if (env->cmd_argv && env->allow_pid_cnt)
		return cli_err(st, "-p can't be combined with '-- CMD': retsnoop traces the processes of CMD it starts; drop -p or the command.");
	if (!env->cmd_argv && env->run_as_user)
		return cli_err(st, "-u USER needs a command to run: retsnoop -u USER -- CMD [ARGS...].");
	if (!env->cmd_argv && env->no_follow_forks)
		return cli_err(st, "--no-follow-forks needs a command to run: retsnoop --no-follow-forks -- CMD [ARGS...].");
	/* a failing command is answered with its own stack above the kernel's */
	if (env->cmd_argv && !env->user_stacks)
		env->user_stacks = env->user_stacks_implied = true;
	return 0;
}

