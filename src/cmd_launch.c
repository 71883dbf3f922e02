// SPDX-License-Identifier: BSD-2-Clause
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "cmd_launch.h"
#include "opts.h"

struct cmd_launch {
	pid_t pid;
	int release_fd;		/* write end: one byte lets the child exec */
	int status_fd;		/* read end: EOF once exec succeeded, else the child's errno */
	bool released;
	bool exited;
	int wstatus;
	int exit_fd;		/* cmd_launch__exit_fd()'s pidfd, -1 before */
	char path[PATH_MAX];
};

/* A regular file we may execute: 0, -EACCES (exists, not executable) or -ENOENT. */
static int check_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return errno == EACCES ? -EACCES : -ENOENT;
	if (!S_ISREG(st.st_mode) || access(path, X_OK))
		return -EACCES;
	return 0;
}

/*
 * What execvp() would run, found before forking so that a missing command is said before
 * anything is attached. Like execvp(), a PATH entry that isn't executable is remembered
 * and the search goes on; an empty entry is the current directory.
 */
static int resolve(const char *cmd, const char *path_list, char *out, size_t sz)
{
	const char *p, *end;
	int err, seen = -ENOENT;
	size_t dlen;

	if (!cmd[0])
		return -ENOENT;
	if (strchr(cmd, '/')) {
		if (strlen(cmd) >= sz)
			return -ENAMETOOLONG;
		strcpy(out, cmd);
		return check_exec(out);
	}
	for (p = path_list; ; p = end + 1) {
		end = strchrnul(p, ':');
		dlen = end - p;
		if (dlen + 1 + strlen(cmd) < sz) {
			if (dlen)
				snprintf(out, sz, "%.*s/%s", (int)dlen, p, cmd);
			else
				snprintf(out, sz, "%s", cmd);
			err = check_exec(out);
			if (!err)
				return 0;
			if (err == -EACCES)
				seen = -EACCES;
		}
		if (!*end)
			break;
	}
	return seen;
}

int cmd_launch__resolve(const char *cmd, char *out, size_t sz)
{
	return resolve(cmd, getenv("PATH") ?: "/bin:/usr/bin", out, sz);
}

struct cred {
	bool set;
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	int group_cnt;
};

/*
 * A passwd entry by name or UID: NSS first, then /etc/passwd itself (a static build has
 * no NSS modules to load). Copied into @pw, @buf holding its strings.
 */
static bool find_user(const char *name, long uid, struct passwd *pw, char *buf, size_t sz)
{
	struct passwd *r = NULL;
	FILE *f;

	if (name)
		getpwnam_r(name, pw, buf, sz, &r);
	else
		getpwuid_r(uid, pw, buf, sz, &r);
	if (r)
		return true;
	f = fopen("/etc/passwd", "re");
	if (!f)
		return false;
	while (!r && fgetpwent_r(f, pw, buf, sz, &r) == 0)
		if (name ? strcmp(r->pw_name, name) != 0 : r->pw_uid != (uid_t)uid)
			r = NULL;
	fclose(f);
	return r != NULL;
}

/* @user's supplementary groups: NSS's list, else /etc/group's members. */
static int user_groups(const char *user, gid_t gid, struct cred *c)
{
	int n = 0, cap = 16;
	struct group *g;
	FILE *f;

	getgrouplist(user, gid, NULL, &n);
	if (n > 1) {
		c->groups = calloc(n, sizeof(*c->groups));
		if (!c->groups)
			return -ENOMEM;
		c->group_cnt = n;
		if (getgrouplist(user, gid, c->groups, &c->group_cnt) >= 0)
			return 0;
		free(c->groups);
	}
	c->groups = calloc(cap, sizeof(*c->groups));
	if (!c->groups)
		return -ENOMEM;
	c->groups[c->group_cnt++] = gid;
	f = fopen("/etc/group", "re");
	while (f && (g = fgetgrent(f)) && c->group_cnt < cap) {
		char **m;

		for (m = g->gr_mem; *m; m++)
			if (strcmp(*m, user) == 0 && g->gr_gid != gid)
				c->groups[c->group_cnt++] = g->gr_gid;
	}
	if (f)
		fclose(f);
	return 0;
}

/* -u USER: a name, or a numeric UID with that user's primary group. */
static int lookup_user(const char *user, struct cred *c)
{
	struct passwd pw;
	char buf[4096], *end;
	long v;

	if (!find_user(user, 0, &pw, buf, sizeof(buf))) {
		v = strtol(user, &end, 10);
		if (!*user || *end || v < 0 || v >= INT_MAX)
			return -ESRCH;
		if (!find_user(NULL, v, &pw, buf, sizeof(buf))) {
			/* a bare UID with no passwd entry: its own group, no others */
			c->set = true;
			c->uid = c->gid = v;
			return 0;
		}
	}
	c->set = true;
	c->uid = pw.pw_uid;
	c->gid = pw.pw_gid;
	return user_groups(pw.pw_name, pw.pw_gid, c);
}

/* The child, between fork and exec: only async-signal-safe calls from here on. */
static __attribute__((noreturn)) void child(struct cmd_launch *c, int release_rd,
					    int status_wr, const struct cred *cr,
					    char *const *argv)
{
	sigset_t none;
	char b;
	int err;

	/*
	 * retsnoop's stop handlers are no business of the held child: a Ctrl-C before the
	 * release ends it (and exec would reset them anyway). CMD starts with no signal
	 * blocked, whatever retsnoop's threads block.
	 */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* EOF: retsnoop gave up (or died) before releasing us; CMD never runs */
	if (read(release_rd, &b, 1) != 1)
		_exit(127);
	if (cr->set && (setgroups(cr->group_cnt, cr->groups) || setgid(cr->gid) ||
			setuid(cr->uid)))
		goto fail;
	execv(c->path, argv);
fail:
	err = errno;
	/* a failed write changes nothing: the parent sees EOF and the 127 status */
	if (write(status_wr, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

int cmd_launch__new(char *const *argv, const struct cmd_launch_opts *opts,
		    struct cmd_launch **out)
{
	struct cmd_launch_opts o = { .sz = sizeof(o) };
	const char *user, *path_list;
	int rel[2] = { -1, -1 }, st[2] = { -1, -1 }, err;
	struct cred cr = {};
	struct cmd_launch *c;

	*out = NULL;
	/* NULL opts: the defaults */
	if (opts && OPTS_COPY(&o, opts))
		return -EINVAL;
	user = o.user;
	path_list = o.path;
	if (!argv || !argv[0])
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->release_fd = c->status_fd = c->exit_fd = -1;
	c->wstatus = -1;
	if (!path_list)
		path_list = getenv("PATH") ?: "/bin:/usr/bin";
	err = resolve(argv[0], path_list, c->path, sizeof(c->path));
	if (!err && user)
		err = lookup_user(user, &cr);
	if (err)
		goto err;
	/* CLOEXEC: the status pipe's write end closes at exec, which is how success shows */
	if (pipe2(rel, O_CLOEXEC) || pipe2(st, O_CLOEXEC)) {
		err = -errno;
		goto err;
	}
	c->pid = fork();
	if (c->pid < 0) {
		err = -errno;
		goto err;
	}
	if (c->pid == 0) {
		close(rel[1]);
		close(st[0]);
		child(c, rel[0], st[1], &cr, argv);
	}
	close(rel[0]);
	close(st[1]);
	c->release_fd = rel[1];
	c->status_fd = st[0];
	free(cr.groups);
	*out = c;
	return 0;
err:
	if (rel[0] >= 0) {
		close(rel[0]);
		close(rel[1]);
	}
	if (st[0] >= 0) {
		close(st[0]);
		close(st[1]);
	}
	free(cr.groups);
	free(c);
	return err;
}

pid_t cmd_launch__pid(const struct cmd_launch *c)
{
	return c->pid;
}

const char *cmd_launch__path(const struct cmd_launch *c)
{
	return c->path;
}

int cmd_launch__release(struct cmd_launch *c)
{
	ssize_t n;
	int child_err;
	char b = 1;

	if (c->released)
		return -EALREADY;
	c->released = true;
	if (write(c->release_fd, &b, 1) != 1)
		return -errno;
	close(c->release_fd);
	c->release_fd = -1;
	do
		n = read(c->status_fd, &child_err, sizeof(child_err));
	while (n < 0 && errno == EINTR);
	close(c->status_fd);
	c->status_fd = -1;
	if (n == 0)
		return 0;
	/* the child exits right after telling us */
	cmd_launch__wait(c, -1);
	return n == sizeof(child_err) && child_err > 0 ? -child_err : -EIO;
}

static int reap(struct cmd_launch *c, int flags)
{
	int status;
	pid_t r;

	if (c->exited)
		return 1;
	r = waitpid(c->pid, &status, flags);
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	if (r == 0)
		return 0;
	c->exited = true;
	c->wstatus = status;
	return 1;
}

int cmd_launch__wait(struct cmd_launch *c, int timeout_ms)
{
	struct timespec tick = { 0, 10 * 1000000 };
	int r, waited = 0;

	if (timeout_ms < 0)
		return reap(c, 0);
	for (;;) {
		r = reap(c, WNOHANG);
		if (r || waited >= timeout_ms)
			return r;
		/* a signal cuts the sleep short: the caller has something to do */
		if (nanosleep(&tick, NULL))
			return 0;
		waited += 10;
	}
}

int cmd_launch__kill(struct cmd_launch *c, int sig)
{
	if (c->exited)
		return 0;
	return kill(c->pid, sig) ? -errno : 0;
}

int cmd_launch__exit_code(const struct cmd_launch *c)
{
	if (!c->exited)
		return -1;
	if (WIFSIGNALED(c->wstatus))
		return 128 + WTERMSIG(c->wstatus);
	return WEXITSTATUS(c->wstatus);
}

int cmd_launch__term_signal(const struct cmd_launch *c)
{
	return c->exited && WIFSIGNALED(c->wstatus) ? WTERMSIG(c->wstatus) : 0;
}

int cmd_launch__wstatus(const struct cmd_launch *c)
{
	return c->exited ? c->wstatus : -1;
}

void cmd_launch__free(struct cmd_launch *c)
{
	if (!c)
		return;
	if (!c->released) {
		/* closing the release pipe alone would do; the kill makes it prompt */
		kill(c->pid, SIGKILL);
		reap(c, 0);
	}
	if (c->release_fd >= 0)
		close(c->release_fd);
	if (c->status_fd >= 0)
		close(c->status_fd);
	if (c->exit_fd >= 0)
		close(c->exit_fd);
	free(c);
}

int cmd_launch__exit_fd(struct cmd_launch *c)
{
	int fd;

	if (c->exit_fd >= 0)
		return c->exit_fd;
	/* unreaped, CMD's pid can't be anyone else's */
	if (c->exited)
		return -ESRCH;
#ifdef SYS_pidfd_open
	/* the syscall: glibc before 2.36 has no wrapper; a pidfd is always close-on-exec */
	fd = syscall(SYS_pidfd_open, c->pid, 0);
	if (fd < 0)
		return -errno;
	c->exit_fd = fd;
	return fd;
#else
	(void)fd;
	return -ENOSYS;
#endif
}

bool cmd_launch__is_32bit(const char *path)
{
	unsigned char ident[EI_NIDENT];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool yes;

	if (fd < 0)
		return false;
	yes = read(fd, ident, sizeof(ident)) == sizeof(ident) &&
	      memcmp(ident, ELFMAG, SELFMAG) == 0 && ident[EI_CLASS] == ELFCLASS32;
	close(fd);
	return yes;
}

/* Does @path start with "#!" (a script, run by an interpreter that names its program)? */
bool cmd_launch__is_script(const char *path)
{
	char magic[2];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool yes;

	if (fd < 0)
		return false;
	yes = read(fd, magic, sizeof(magic)) == sizeof(magic) && magic[0] == '#' && magic[1] == '!';
	close(fd);
	return yes;
}
