/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The command of `retsnoop -- CMD [ARGS...]`: forked at once but held before exec, so a
 * tracer can attach and add its process to the traced set first, then released. It keeps
 * the caller's stdin/stdout/stderr. Never prints: failures come back as negative errnos.
 *
 *   new (fork, held) -> pid -> release (exec) -> wait... -> exit_code -> free
 *
 * free() before release kills and reaps the held child, which never runs CMD.
 */
#ifndef RETSNOOP_CMD_LAUNCH_H
#define RETSNOOP_CMD_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct cmd_launch_opts {
	size_t sz;			/* sizeof(struct cmd_launch_opts) */
	/* run CMD as this user (a name or a numeric UID) and its groups; NULL: as we are */
	const char *user;
	/* PATH to search a CMD without '/' in; NULL: getenv("PATH"), else "/bin:/usr/bin" */
	const char *path;
};

struct cmd_launch;

/*
 * Find @argv[0] in PATH and fork a child that waits to exec it. 0 and *@out, or:
 * -ENOENT (no such command), -EACCES (found but not executable), -ESRCH (no such user),
 * -EINVAL (empty @argv), or the errno of fork()/pipe(). Nothing runs on failure.
 */
int cmd_launch__new(char *const *argv, const struct cmd_launch_opts *opts,
		    struct cmd_launch **out);
/*
 * What execvp() would run for @cmd under $PATH, as cmd_launch__new() finds it, into @out:
 * 0, -ENOENT, -EACCES or -ENAMETOOLONG (--dry-run, which launches nothing).
 */
int cmd_launch__resolve(const char *cmd, char *out, size_t sz);
/*
 * Does @path start with "#!" (a script: its interpreter runs it, no function of its own
 * to trace)? false if it can't be read.
 */
bool cmd_launch__is_script(const char *path);
/*
 * Is @path a 32-bit ELF program (i386, x32, AArch32: its syscalls enter the compat
 * wrappers)? false if it can't be read.
 */
bool cmd_launch__is_32bit(const char *path);
/* The held (later: running) process. */
pid_t cmd_launch__pid(const struct cmd_launch *c);
/* The file that will be (or was) executed, PATH resolved. */
const char *cmd_launch__path(const struct cmd_launch *c);

/*
 * Let the child exec CMD. 0 once exec succeeded, or the negative errno exec (or
 * switching to opts.user) failed with; the child has then exited (status 127).
 */
int cmd_launch__release(struct cmd_launch *c);

/*
 * Has CMD exited? Waits up to @timeout_ms (0: just look, -1: until it does). 1 when it
 * has (and it is reaped: cmd_launch__exit_code() is final), 0 when it still runs,
 * negative errno on failure.
 */
int cmd_launch__wait(struct cmd_launch *c, int timeout_ms);
/* Send @sig to CMD if it still runs (a no-op afterwards); 0 or negative errno. */
int cmd_launch__kill(struct cmd_launch *c, int sig);
/*
 * A descriptor that becomes readable when CMD exits (a pidfd, Linux 5.3+), for a caller's
 * poll to wake up at once where it would look again only after its timeout. Owned by @c,
 * open until cmd_launch__free(). A negative errno where there is none: -ESRCH once CMD is
 * reaped, -ENOSYS on older kernels.
 */
int cmd_launch__exit_fd(struct cmd_launch *c);

/* After wait() returned 1: the shell's convention, the code, or 128+N for signal N. */
int cmd_launch__exit_code(const struct cmd_launch *c);
/* After wait() returned 1: the signal that ended CMD, 0 when it exited normally. */
int cmd_launch__term_signal(const struct cmd_launch *c);
/* The raw wait status: WIFEXITED() and friends. -1 before CMD exited. */
int cmd_launch__wstatus(const struct cmd_launch *c);

/* Kill a child not released yet (it never ran CMD) and reap it; a running CMD is left. */
void cmd_launch__free(struct cmd_launch *c);

#endif
