/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside the cli module (cli.c, cli_lists.c, cli_config.c, cli_cmd.c): what its files share.
 */
#ifndef RETSNOOP_CLI_INT_H
#define RETSNOOP_CLI_INT_H

#include <argp.h>
#include <stdbool.h>
#include "env.h"
#include "log.h"

/* Parser state beyond struct env: order-dependent checks. */
struct cli_state {
	struct env *env;
	int success_policy;	/* +1 -S/-Sy, -1 -Sn or -x, 0 unset */
	bool x_seen;
	bool mode_set;
	const char *stray_arg;	/* first positional argument: a usage error */
	log_print_fn print;	/* where the one error line goes */
};

/* Print one error line (a newline is added); returns EINVAL, argp's positive errno. */
__attribute__((format(printf, 2, 3)))
int cli_err(const struct cli_state *st, const char *fmt, ...);
/* Strict integer: the whole string, in [min, max]; 0 or -EINVAL. */
int cli_parse_long(const char *s, long min, long max, long *out);

/* cli_lists.c: each returns 0 or EINVAL after one line (argp's positive errno). */
int cli_lists__add_use_case(struct cli_state *st, const char *name);
int cli_lists__add_glob(struct cli_state *st, struct glob_list *list, const char *arg,
			bool mandatory);
int cli_lists__add_comm(struct cli_state *st, char ***arr, size_t *cnt, const char *arg);
int cli_lists__add_pid(struct cli_state *st, int **arr, size_t *cnt, const char *arg);
int cli_lists__add_probe(struct cli_state *st, const char *arg);

/* cli_config.c: one -C setting; 0 or -EINVAL after one line. */
int cli_config__set(struct cli_state *st, const char *arg);

/*
 * The "--" that ends retsnoop's options (@opts) and starts the command: the first one that
 * isn't an option's value (-e -- is a glob, however odd); @argc if there is none.
 */
int cli_cmd__find_sep(int argc, char **argv, const struct argp_option *opts);
/*
 * After parsing: the options that need or refuse a command; -U on with one. 0 or EINVAL
 * after one line. @sep_seen: a "--" was there, followed by a command or not.
 */
int cli_cmd__check(const struct cli_state *st, struct env *env, bool sep_seen);

#endif
