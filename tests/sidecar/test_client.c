// SPDX-License-Identifier: BSD-2-Clause
/*
 * The sidecar's client (src/addr2line.c), running the sidecar embedded in this test binary
 * from memory: symbolization and globs through it, failures, the sidecar's own session and
 * its death with its parent, interruptible waits, statistics.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "unit.h"
#include "addr2line.h"
#include "fixture_util.h"

/* addr2line__new() as 0 or a negative errno, for the assertions */
static int a2l_new(const char *elf_path, const struct addr2line_opts *opts, struct addr2line **a)
{
	*a = addr2line__new(elf_path, opts);
	return *a ? 0 : -errno;
}

#define nm_addr(sym) nm_addr_in(SIDECAR_FIXTURE, sym)

struct glob_seen {
	unsigned long long one, two;
	int n, ok;
};

static int glob_cb(void *ctx, const char *func, __u64 addr, const char *file)
{
	struct glob_seen *g = ctx;

	g->n++;
	if (strcmp(file, FIX_B) == 0 &&
	    ((strcmp(func, "fixture_b_one") == 0 && addr == g->one) ||
	     (strcmp(func, "fixture_b_two") == 0 && addr == g->two)))
		g->ok++;
	return 0;
}

static int stop_cb(void *ctx, const char *func, __u64 addr, const char *file)
{
	return -ECANCELED;
}

/* The client module, running the sidecar embedded in this test binary from memory. */
static void test_client_embedded(void **state)
{
	int call_mid_col, call_mid = tag_line(FIX_C, "call_mid", "fixture_mid(", &call_mid_col);
	int mark_col, mark = tag_line(FIX_H, "mark_inner", "asm", &mark_col);
	struct glob_seen g = { nm_addr("fixture_b_one"), nm_addr("fixture_b_two") };
	struct addr2line_opts opts = { .sz = sizeof(opts) };
	struct src_frame f[8];
	struct addr2line *a;

	assert_int_equal(a2l_new(SIDECAR_FIXTURE, &opts, &a), 0);
	assert_true(addr2line__pid(a) > 0);
	assert_int_equal(addr2line__symbolize(a, nm_addr("fixture_mark_inner"), f, 8), 3);
	assert_string_equal(f[0].func, "fixture_outer");
	assert_string_equal(f[0].file, FIX_C);
	assert_int_equal(f[0].line, call_mid);
	assert_int_equal(f[0].col, call_mid_col);
	assert_string_equal(f[1].func, "fixture_mid");
	assert_string_equal(f[2].func, "fixture_inner");
	assert_int_equal(f[2].line, mark);
	assert_int_equal(f[2].col, mark_col);
	/* too few slots: the innermost frames are kept */
	assert_int_equal(addr2line__symbolize(a, nm_addr("fixture_mark_inner"), f, 2), 2);
	assert_string_equal(f[0].func, "fixture_mid");
	assert_string_equal(f[1].func, "fixture_inner");
	/* outside the code: nothing known, not an error */
	assert_int_equal(addr2line__symbolize(a, 0, f, 8), 0);

	assert_int_equal(addr2line__find_by_source_glob(a, "*/fixture_b.c", glob_cb, &g), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.ok, 2);
	assert_int_equal(addr2line__find_by_source_glob(a, "tests/*", stop_cb, NULL), -ECANCELED);
	assert_int_equal(addr2line__find_by_source_glob(a, "a\nb", glob_cb, &g), -EINVAL);
	/* still in sync after a callback stopped the walk early */
	assert_int_equal(addr2line__symbolize(a, nm_addr("fixture_mark_plain"), f, 8), 1);
	assert_string_equal(f[0].func, "fixture_plain");

	/* the sidecar dies mid-run: an error to degrade on, every time, no SIGPIPE */
	assert_int_equal(kill(addr2line__pid(a), SIGKILL), 0);
	assert_int_equal(addr2line__symbolize(a, nm_addr("fixture_mark_plain") + 1, f, 8), -EPIPE);
	assert_int_equal(addr2line__symbolize(a, nm_addr("fixture_mark_plain"), f, 8), -EPIPE);
	assert_int_equal(addr2line__find_by_source_glob(a, "*", glob_cb, &g), -EPIPE);
	addr2line__free(a);
}

static void test_client_errors(void **state)
{
	struct addr2line_opts opts = { .sz = sizeof(opts) };
	struct addr2line *a = (void *)1;

	assert_int_equal(a2l_new("/nonexistent/vmlinux", &opts, &a), -ENOENT);
	assert_null(a);
	assert_int_equal(a2l_new(SIDECAR_FIXTURE_DIR "/fixture.c", NULL, &a), -ENOEXEC);
	/* an explicit sidecar binary instead of the embedded one */
	opts.sidecar_path = SIDECAR_SAN;
	assert_int_equal(a2l_new(SIDECAR_FIXTURE, &opts, &a), 0);
	addr2line__free(a);
	opts.sidecar_path = "/nonexistent/sidecar";
	assert_int_equal(a2l_new(SIDECAR_FIXTURE, &opts, &a), -EPIPE);
}

/* The sidecar runs in a session (and so a process group) of its own. */
static void test_client_own_session(void **state)
{
	struct addr2line *a;
	pid_t pid;

	assert_int_equal(a2l_new(SIDECAR_FIXTURE, NULL, &a), 0);
	pid = addr2line__pid(a);
	assert_int_equal(getsid(pid), pid);
	assert_int_equal(getpgid(pid), pid);
	assert_int_not_equal(getpgid(pid), getpgrp());
	addr2line__free(a);
}

static volatile sig_atomic_t got_sigint;

static void on_sigint(int sig)
{
	got_sigint++;
}

/*
 * Ctrl-C on a terminal signals the whole foreground process group: retsnoop's handler
 * runs, and the sidecar must not see it, so what is drained afterwards still gets lines.
 */
static void test_client_survives_group_sigint(void **state)
{
	unsigned long long addr = nm_addr("fixture_mark_inner");
	int status;
	pid_t child;

	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct src_frame f[8];
		struct addr2line *a;

		setpgid(0, 0);	/* a group like a shell gives retsnoop */
		signal(SIGINT, on_sigint);
		if (a2l_new(SIDECAR_FIXTURE, NULL, &a))
			_exit(10);
		kill(0, SIGINT);
		if (!got_sigint)
			_exit(11);
		if (addr2line__symbolize(a, addr, f, 8) != 3 || strcmp(f[2].func, "fixture_inner"))
			_exit(12);
		addr2line__free(a);
		_exit(0);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* waitpid() for at most @ms; fails the test if @pid is still running then. */
static void wait_exit(pid_t pid, int *status, int ms)
{
	pid_t r;

	while ((r = waitpid(pid, status, WNOHANG)) == 0 && ms > 0) {
		usleep(10 * 1000);
		ms -= 10;
	}
	if (r != pid)
		kill(pid, SIGKILL);
	assert_int_equal(r, pid);
}

/*
 * When the process that started it dies without a word, the sidecar dies too, even while
 * another process keeps its connection open (so no EOF tells it to exit).
 */
static void test_client_dies_with_parent(void **state)
{
	pid_t child, pids[2];	/* the sidecar, and a process holding its socket */
	int p[2], status;

	/* orphans come to us, so the sidecar's end can be waited for */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_int_equal(pipe(p), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct addr2line *a;

		if (a2l_new(SIDECAR_FIXTURE, NULL, &a))
			_exit(10);
		pids[0] = addr2line__pid(a);
		pids[1] = fork();
		if (pids[1] == 0) {
			/* inherited the client's end of the socket; gone in 10 s whatever happens */
			close(1);
			close(2);
			alarm(10);
			pause();
			_exit(0);
		}
		if (write(p[1], pids, sizeof(pids)) != sizeof(pids))
			_exit(11);
		pause();	/* killed below, the sidecar still running */
		_exit(12);
	}
	close(p[1]);
	assert_int_equal(read(p[0], pids, sizeof(pids)), sizeof(pids));
	close(p[0]);
	assert_true(pids[1] > 0);
	assert_int_equal(kill(child, SIGKILL), 0);
	assert_int_equal(waitpid(child, &status, 0), child);
	/* reparented to us: killed by PR_SET_PDEATHSIG, its socket still open in pids[1] */
	wait_exit(pids[0], &status, 5000);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	assert_int_equal(kill(pids[1], SIGKILL), 0);
	assert_int_equal(waitpid(pids[1], &status, 0), pids[1]);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static volatile sig_atomic_t cancel_flag;
static struct addr2line *alarm_a2l;

static void on_alarm_flag(int sig)
{
	cancel_flag = 1;
}

static void on_alarm_interrupt(int sig)
{
	addr2line__interrupt(alarm_a2l);
}

static void alarm_in(int ms, void (*handler)(int))
{
	struct itimerval it = { .it_value = { .tv_sec = ms / 1000, .tv_usec = ms % 1000 * 1000 } };
	struct sigaction sa = { .sa_handler = handler, .sa_flags = SA_RESTART };

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
}

static void *flag_later(void *arg)
{
	usleep(100 * 1000);
	cancel_flag = 2;	/* no signal: the wait must notice by itself */
	return NULL;
}

/*
 * A slow reply (the stand-in sidecar takes a second per address) can be interrupted by
 * a flag a signal handler changes, by addr2line__interrupt() from a handler, and by a flag
 * changed without any signal; later calls skip the interrupted replies and work.
 */
static void test_client_interruptible(void **state)
{
	struct addr2line_opts opts = { .sz = sizeof(opts), .sidecar_path = SIDECAR_SLOW,
				       .cancel = &cancel_flag };
	struct src_frame f[4];
	struct addr2line *a;
	pthread_t th;
	long long t0;

	cancel_flag = 0;
	assert_int_equal(a2l_new("/dev/null", &opts, &a), 0);
	alarm_a2l = a;

	/* SIGINT-like: the handler sets the flag */
	alarm_in(100, on_alarm_flag);
	t0 = mono_ms();
	assert_int_equal(addr2line__symbolize(a, 0x1, f, 4), -EINTR);
	assert_true(mono_ms() - t0 < 500);

	/* the flag stays set: later calls are not interrupted, and get their own reply */
	assert_int_equal(addr2line__symbolize(a, 0x2, f, 4), 1);
	assert_string_equal(f[0].func, "slow_2");

	/* the handler calls addr2line__interrupt() */
	alarm_in(100, on_alarm_interrupt);
	t0 = mono_ms();
	assert_int_equal(addr2line__symbolize(a, 0x3, f, 4), -EINTR);
	assert_true(mono_ms() - t0 < 500);

	/* changed by another thread, no signal at all */
	assert_int_equal(pthread_create(&th, NULL, flag_later, NULL), 0);
	t0 = mono_ms();
	assert_int_equal(addr2line__symbolize(a, 0x4, f, 4), -EINTR);
	assert_true(mono_ms() - t0 < 500);
	pthread_join(th, NULL);

	/* two interrupted replies to skip, then this one's */
	assert_int_equal(addr2line__symbolize(a, 0x5, f, 4), 1);
	assert_string_equal(f[0].func, "slow_5");
	signal(SIGALRM, SIG_DFL);
	/* a pending reply would make free wait: it kills instead, so this is quick too */
	alarm_in(100, on_alarm_flag);
	cancel_flag = 0;
	assert_int_equal(addr2line__symbolize(a, 0x6, f, 4), -EINTR);
	t0 = mono_ms();
	addr2line__free(a);
	assert_true(mono_ms() - t0 < 500);
	signal(SIGALRM, SIG_DFL);
}

static void test_client_stats(void **state)
{
	struct addr2line_stats st;
	struct src_frame f[8];
	struct addr2line *a;

	assert_int_equal(a2l_new(SIDECAR_FIXTURE, NULL, &a), 0);
	assert_int_equal(addr2line__stats(a, &st), 0);
	assert_int_equal(st.requests, 0);
	assert_int_equal(st.cus_indexed, 0);
	assert_int_equal(addr2line__symbolize(a, nm_addr("fixture_mark_inner"), f, 8), 3);
	assert_int_equal(addr2line__symbolize(a, nm_addr("fixture_mark_inner"), f, 8), 3);
	assert_int_equal(addr2line__stats(a, &st), 0);
	assert_int_equal(st.requests, 2);
	assert_int_equal(st.cache_hits, 1);
	assert_int_equal(st.cus_indexed, 1);
	addr2line__free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_client_embedded),
		cmocka_unit_test(test_client_errors),
		cmocka_unit_test(test_client_own_session),
		cmocka_unit_test(test_client_survives_group_sigint),
		cmocka_unit_test(test_client_dies_with_parent),
		cmocka_unit_test(test_client_interruptible),
		cmocka_unit_test(test_client_stats),
	};

	return cmocka_run_group_tests_name("sidecar-client", tests, NULL, NULL);
}
