/* SPDX-License-Identifier: BSD-2-Clause */
/* Inside the cli module (cli.c, cli_cmd.c): what its files share. */
#ifndef RETSNOOP_CLI_INT_H
#define RETSNOOP_CLI_INT_H

#include <argp.h>
#include <stdbool.h>
#include "env.h"

/* One parse: the env being filled and where errors go (cli.c). */
struct cli_state;

/* Print one error line (a newline is added); returns EINVAL, argp's positive errno. */
__attribute__((format(printf, 2, 3)))
int cli_err(const struct cli_state *st, const char *fmt, ...);

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
