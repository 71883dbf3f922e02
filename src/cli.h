/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Command line: argp options of retsnoop (the seed's letters, newer spellings as aliases),
 * each value validated into struct env. Never exits; -h/--usage/-V/--config-help only set
 * flags for main to act on.
 */
#ifndef RETSNOOP_CLI_H
#define RETSNOOP_CLI_H

#include <stdio.h>
#include "env.h"
#include "log.h"

/*
 * Parse @argv into @env (initialised here; env__free() it even on failure). Returns 0 or a
 * negative errno after saying why in one line through @print (LOG_WARN; NULL: silent):
 * -EINVAL for a bad option or value, -E2BIG for a stray positional argument (a usage
 * error, exit status 64). argp itself still reports an unknown option on stderr.
 */
int cli__parse(int argc, char **argv, struct env *env, log_print_fn print);
void env__free(struct env *env);

/* Full grouped help (-h), the short program doc (--usage), the -C key list (--config-help). */
void cli__print_help(FILE *f);
void cli__print_usage(FILE *f);
void cli__print_config_help(FILE *f);

/* Parse one "group.key=value" setting into @env, as -C does (errors as cli__parse()'s). */
int cli__parse_config(struct env *env, const char *arg, log_print_fn print);

#endif
