// SPDX-License-Identifier: BSD-2-Clause
/*
 * stamp [-r READY] [-t CMD] [-l LAST] [-T SECS] [-k] -- PROG [ARG...]
 *
 * Run PROG on a pseudo-terminal, as a user at a terminal would (so stdio is line-buffered
 * in any program), and print each line it writes prefixed with the seconds since PROG was
 * started. Drive it through one benchmark run:
 *
 *   -r READY  an extended regex: the line that says PROG is ready ("Receiving data");
 *             without it, PROG is ready when started;
 *   -t CMD    once ready, run `sh -c CMD` (its output goes straight to stdout, unstamped);
 *   -l LAST   after CMD started, wait for a line matching LAST (the last line of the
 *             sample CMD provokes);
 *   -k        when done, leave PROG running (the caller powers the guest off instead of
 *             waiting for a long detach); otherwise send it SIGINT and wait for its exit;
 *   -T SECS   give up waiting for READY/CMD/LAST after SECS (default 900): SIGINT.
 *
 * Done means: READY seen (or PROG exited), CMD finished, LAST seen. The last line printed
 * is a summary, times in seconds since the start (-1: did not happen):
 *
 *   @stamp ready=T trigger=T cmd_done=T last=T stop=T exit=T rc=N timeout=0|1 vmhwm_kb=K cpu_s=C
 *
 * vmhwm_kb is PROG's own peak RSS (VmHWM), read every 20 ms while it runs; its children
 * (retsnoop's symbolization sidecar) are not part of it. cpu_s is the CPU time (user +
 * system) PROG and the children it waited for used from its start to its exit (-1: left
 * running, -k), from wait4()'s resource usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <regex.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define HWM_PERIOD	0.02

struct run {
	double start;
	pid_t pid, cmd_pid;
	regex_t ready_re, last_re;
	bool has_ready, has_last;
	const char *cmd;
	double ready, trigger, cmd_done, last, stop, exit;
	int rc;
	bool timeout;
	long hwm_kb;
	double hwm_at;
	double cpu;
	char line[8192];
	size_t len;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double since(const struct run *r)
{
	return now() - r->start;
}

/* VmHWM only grows; the last value read before PROG exits is its peak. */
static void read_hwm(struct run *r)
{
	char path[64], buf[128];
	FILE *f;

	if (r->exit >= 0 || since(r) - r->hwm_at < HWM_PERIOD)
		return;
	r->hwm_at = since(r);
	snprintf(path, sizeof(path), "/proc/%d/status", r->pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(buf, sizeof(buf), f)) {
		long kb;

		if (sscanf(buf, "VmHWM: %ld kB", &kb) == 1 && kb > r->hwm_kb)
			r->hwm_kb = kb;
	}
	fclose(f);
}

static void start_cmd(struct run *r)
{
	fflush(stdout);
	r->trigger = since(r);
	r->cmd_pid = fork();
	if (r->cmd_pid == 0) {
		execl("/bin/sh", "sh", "-c", r->cmd, (char *)NULL);
		_exit(127);
	}
	if (r->cmd_pid < 0) {
		perror("stamp: fork");
		r->cmd_done = since(r);
	}
}

static void on_line(struct run *r)
{
	double t = since(r);

	r->line[r->len] = '\0';
	if (r->len && r->line[r->len - 1] == '\r')
		r->line[--r->len] = '\0';
	printf("%10.6f %s\n", t, r->line);
	fflush(stdout);
	r->len = 0;
	if (r->ready < 0 && !regexec(&r->ready_re, r->line, 0, NULL, 0)) {
		r->ready = t;
		if (r->cmd)
			start_cmd(r);
	} else if (r->ready >= 0 && r->has_last && r->last < 0 &&
		   !regexec(&r->last_re, r->line, 0, NULL, 0)) {
		r->last = t;
	}
}

static void pump(struct run *r, int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[4096];
	ssize_t n, i;

	if (poll(&p, 1, timeout_ms) <= 0)
		return;
	n = read(fd, buf, sizeof(buf));
	for (i = 0; i < n; i++) {
		if (buf[i] == '\n' || r->len == sizeof(r->line) - 1)
			on_line(r);
		if (buf[i] != '\n')
			r->line[r->len++] = buf[i];
	}
}

static void reap(struct run *r)
{
	struct rusage ru;
	int status;

	if (r->cmd_pid > 0 && waitpid(r->cmd_pid, &status, WNOHANG) == r->cmd_pid) {
		r->cmd_done = since(r);
		r->cmd_pid = 0;
	}
	if (r->exit < 0 && wait4(r->pid, &status, WNOHANG, &ru) == r->pid) {
		r->exit = since(r);
		r->cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
			 ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
		r->rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
}

static bool done(const struct run *r)
{
	if (r->exit >= 0)
		return true;
	if (r->ready < 0)
		return false;
	if (r->cmd && r->cmd_done < 0)
		return false;
	return !r->has_last || r->last >= 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: stamp [-r READY] [-t CMD] [-l LAST] [-T SECS] [-k] -- PROG [ARG...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct winsize ws = { .ws_row = 50, .ws_col = 200 };
	struct run r = { .ready = -1, .trigger = -1, .cmd_done = -1, .last = -1, .stop = -1,
			 .exit = -1, .rc = -1 };
	double limit = 900, drain;
	bool keep = false;
	int opt, fd;

	while ((opt = getopt(argc, argv, "+r:t:l:T:k")) != -1) {
		switch (opt) {
		case 'r':
		case 'l':
			if (regcomp(opt == 'r' ? &r.ready_re : &r.last_re, optarg, REG_EXTENDED | REG_NOSUB)) {
				fprintf(stderr, "stamp: bad regex '%s'\n", optarg);
				return 2;
			}
			*(opt == 'r' ? &r.has_ready : &r.has_last) = true;
			break;
		case 't': r.cmd = optarg; break;
		case 'T': limit = atof(optarg); break;
		case 'k': keep = true; break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();

	r.start = now();
	r.pid = forkpty(&fd, NULL, NULL, &ws);
	if (r.pid < 0) {
		perror("stamp: forkpty");
		return 1;
	}
	if (r.pid == 0) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "stamp: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	if (!r.has_ready) {
		r.ready = 0;
		if (r.cmd)
			start_cmd(&r);
	}

	while (!done(&r)) {
		if (since(&r) > limit) {
			r.timeout = true;
			break;
		}
		pump(&r, fd, 10);
		read_hwm(&r);
		reap(&r);
	}
	if (r.exit < 0 && !keep) {
		r.stop = since(&r);
		kill(r.pid, SIGINT);
		while (r.exit < 0) {
			pump(&r, fd, 10);
			read_hwm(&r);
			reap(&r);
		}
	}
	/* what PROG wrote just before it exited (its children may hold the terminal open) */
	for (drain = since(&r); since(&r) - drain < 0.2; )
		pump(&r, fd, 10);
	if (r.len)
		on_line(&r);
	printf("@stamp ready=%.6f trigger=%.6f cmd_done=%.6f last=%.6f stop=%.6f exit=%.6f rc=%d timeout=%d vmhwm_kb=%ld cpu_s=%.3f\n",
	       r.ready, r.trigger, r.cmd_done, r.last, r.stop, r.exit, r.rc, r.timeout, r.hwm_kb,
	       r.exit >= 0 ? r.cpu : -1.0);
	return 0;
}
