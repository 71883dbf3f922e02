/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * `retsnoop -- CMD`: the command's part of a tracing run, in the user's words. Starts CMD
 * held (cmd_launch), releases it once everything is attached, notices its end, and turns
 * its end into retsnoop's exit status. Its one-line errors go to @print (LOG_ERROR).
 */
#ifndef RETSNOOP_CMD_TRACE_H
#define RETSNOOP_CMD_TRACE_H

#include <stdbool.h>
#include "cmd_launch.h"
#include "env.h"
#include "log.h"
#include "sink.h"

/* Exit status when CMD can't be run (not found, not executable, exec failed): the shell's. */
#define CMD_TRACE_NOT_RUN 127

/*
 * Fork @env's command, held before exec. 0 and *@out, or after one error line: a
 * negative errno (-ENOENT/-EACCES: CMD not runnable, exit CMD_TRACE_NOT_RUN; -ESRCH: no
 * such -u user, a usage error).
 */
int cmd_trace__launch(const struct env *env, log_print_fn print, struct cmd_launch **out);

/* Let CMD run; 0, or after one error line the negative errno its exec failed with. */
int cmd_trace__release(struct cmd_launch *c, const struct env *env, log_print_fn print);

/*
 * Recording stopped because of signal @stop_sig (0: CMD exited): give CMD, which got the
 * signal first, a moment to end, so its status is known.
 */
void cmd_trace__settle(struct cmd_launch *c, int stop_sig);

/* Tell @sink how CMD ended (after cmd_trace__settle()). */
void cmd_trace__report(struct cmd_launch *c, const struct env *env, int exec_err,
		       struct sink *sink);

/*
 * retsnoop's exit status for a run of CMD that went as far as releasing it: CMD's own
 * (128+N for a signal), CMD_TRACE_NOT_RUN if exec failed, 128+@stop_sig if CMD still runs.
 */
int cmd_trace__exit_status(struct cmd_launch *c, int exec_err, int stop_sig);

#endif
