// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cmd_trace.h"

/* How long CMD gets to end after a signal retsnoop passed on (or it got from the tty). */
#define SETTLE_MS 1000

int cmd_trace__launch(const struct env *env, log_print_fn print, struct cmd_launch **out)
{
	struct cmd_launch_opts o = { .sz = sizeof(o), .user = env->run_as_user };
	const char *cmd = env->cmd_argv[0];
	int err;

	err = cmd_launch__new(env->cmd_argv, &o, out);
	switch (err) {
	case 0:
		break;
	case -ENOENT:
		log_msg(print, LOG_ERROR, "Can't run '%s': no such command%s (check the name, or give its path).\n",
			cmd, strchr(cmd, '/') ? "" : " in PATH");
		break;
	case -EACCES:
		log_msg(print, LOG_ERROR, "Can't run '%s': not an executable file (check its permissions).\n",
			cmd);
		break;
	case -ESRCH:
		log_msg(print, LOG_ERROR, "-u: no such user '%s' (give a user name or a numeric UID).\n",
			env->run_as_user);
		break;
	default:
		log_msg(print, LOG_ERROR, "Can't start '%s': %s.\n", cmd, strerror(-err));
		break;
	}
	return err;
}

int cmd_trace__release(struct cmd_launch *c, const struct env *env, log_print_fn print)
{
	int err = cmd_launch__release(c);

	if (err)
		log_msg(print, LOG_ERROR, "Can't run '%s'%s%s: %s.\n", cmd_launch__path(c),
			env->run_as_user ? " as user " : "", env->run_as_user ?: "",
			strerror(-err));
	return err;
}

void cmd_trace__settle(struct cmd_launch *c, int stop_sig)
{
	if (stop_sig)
		cmd_launch__wait(c, SETTLE_MS);
}

void cmd_trace__report(struct cmd_launch *c, const struct env *env, int exec_err,
		       struct sink *sink)
{
	struct cmd_report r = {
		.argv = env->cmd_argv,
		.pid = cmd_launch__pid(c),
		.exited = cmd_launch__wait(c, 0) == 1,
		.exec_errno = -exec_err,
	};

	if (r.exited) {
		r.exit_code = cmd_launch__exit_code(c);
		r.signal = cmd_launch__term_signal(c);
	}
	sink__command(sink, &r);
}

int cmd_trace__exit_status(struct cmd_launch *c, int exec_err, int stop_sig)
{
	if (exec_err)
		return CMD_TRACE_NOT_RUN;
	if (cmd_launch__wait(c, 0) == 1)
		return cmd_launch__exit_code(c);
	return 128 + stop_sig;
}
