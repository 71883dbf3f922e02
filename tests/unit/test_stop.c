// SPDX-License-Identifier: BSD-2-Clause
/*
 * The stop request (stop.c): the first of SIGINT/SIGTERM/SIGHUP is recorded and sets the
 * flag; the next ones kill, hurry or hand off by phase; held signals wait; forwarding
 * reaches the child.
 * Each test runs in a child process of its own: the handlers and the flag are per process.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "unit.h"
#include "stop.h"

/* Run @fn in a fresh child; returns its wait status. */
static int child_status(void (*fn)(void))
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

/* Run @fn in a fresh child; it exits 0 when all its checks hold. */
static void in_child(void (*fn)(void))
{
	int status = child_status(fn);

	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

#define check(cond) do { if (!(cond)) _exit(__LINE__ & 0xff ?: 1); } while (0)

static void first_signal_wins(void)
{
	check(stop__catch() == 0);
	check(!stop__requested() && stop__signal() == 0);
	raise(SIGTERM);
	check(stop__requested() && *stop__flag());
	/* before samples flow a stop hurries everything at once */
	check(*stop__hurry_flag());
	check(stop__signal() == SIGTERM);
	check(stop__exit_status() == 128 + SIGTERM);
	check(strcmp(stop__signal_name(), "SIGTERM") == 0);
	/* a later stop from code does not change what asked first */
	stop__request(SIGHUP);
	check(stop__signal() == SIGTERM);
}

/* Nothing attached: a second signal kills, whichever of the three it is. */
static void second_kills(void)
{
	check(stop__catch() == 0);
	raise(SIGTERM);
	raise(SIGINT);
	_exit(1);	/* not reached */
}

static void test_first_signal_wins(void **state)
{
	int status;

	in_child(first_signal_wins);
	status = child_status(second_kills);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGINT);
}

/* Samples flow: stop, then hurry, then hand off (exits 128 + the signal). */
static void sampling(void)
{
	check(stop__catch() == 0);
	stop__set_phase(STOP_SAMPLING);
	raise(SIGINT);
	check(stop__requested() && !*stop__hurry_flag());
	raise(SIGINT);
	check(*stop__hurry_flag());
	raise(SIGHUP);
	_exit(1);	/* not reached */
}

/* Attached: the second signal hands off at once. */
static void attached(void)
{
	check(stop__catch() == 0);
	stop__set_phase(STOP_ATTACHED);
	raise(SIGINT);
	check(stop__requested() && *stop__hurry_flag());
	raise(SIGTERM);
	_exit(1);	/* not reached */
}

/*
 * The process exits with 128 + the signal; the pipe's write end, which it had open (as it
 * would have its links), is released by the background child, never kept by it: the
 * reader sees the end of the pipe.
 */
static void check_hand_off(void (*fn)(void), int sig)
{
	int fds[2], status, devnull, saved;
	char c;

	assert_int_equal(pipe(fds), 0);
	/* the notice goes to stderr: not into the test's output */
	saved = dup(STDERR_FILENO);
	devnull = open("/dev/null", O_WRONLY);
	assert_true(saved >= 0 && devnull >= 0);
	dup2(devnull, STDERR_FILENO);
	status = child_status(fn);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(devnull);
	close(fds[1]);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 128 + sig);
	assert_int_equal(read(fds[0], &c, 1), 0);
	close(fds[0]);
}

static void test_phases(void **state)
{
	check_hand_off(sampling, SIGHUP);
	check_hand_off(attached, SIGTERM);
}

/*
 * GNU timeout's kill of its child and then of its group: one process's kill(2) of the same
 * signal right after the first is that first stop's echo, not a second stop. Another
 * process's, or the same one's later, is a second stop.
 */
static void echo_ignored(void)
{
	pid_t self = getpid(), pid;
	int status;

	check(stop__catch() == 0);
	stop__set_phase(STOP_SAMPLING);
	check(kill(self, SIGINT) == 0);
	check(stop__requested() && !*stop__hurry_flag());
	check(kill(self, SIGINT) == 0);
	check(!*stop__hurry_flag());		/* the echo */
	/* another sender: a second stop (hurry: finish the samples without sources) */
	pid = fork();
	check(pid >= 0);
	if (pid == 0)
		_exit(kill(self, SIGINT) ? 1 : 0);
	/* no SA_RESTART: the signal may end the wait early */
	while (waitpid(pid, &status, 0) < 0)
		check(errno == EINTR);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	check(*stop__hurry_flag());
	_exit(0);
}

static void echo_too_late(void)
{
	struct timespec wait = { .tv_nsec = 300000000 };
	pid_t self = getpid();

	check(stop__catch() == 0);
	stop__set_phase(STOP_SAMPLING);
	check(kill(self, SIGTERM) == 0);
	nanosleep(&wait, NULL);
	check(kill(self, SIGTERM) == 0);
	check(*stop__hurry_flag());
	_exit(0);
}

static void test_echo(void **state)
{
	in_child(echo_ignored);
	in_child(echo_too_late);
}

/* A child already releasing (detach_child.h): the second signal names it, forks none. */
static void releasing(void)
{
	check(stop__catch() == 0);
	stop__set_phase(STOP_ATTACHED);
	stop__set_releaser(4242);
	raise(SIGINT);
	raise(SIGINT);
	_exit(1);	/* not reached */
}

static void test_releaser(void **state)
{
	int fds[2], status, saved;
	char buf[512];
	ssize_t n, len = 0;

	assert_int_equal(pipe(fds), 0);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	dup2(fds[1], STDERR_FILENO);
	status = child_status(releasing);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(fds[1]);
	/* EOF comes at once: no other child holds the pipe */
	while ((n = read(fds[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	close(fds[0]);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 128 + SIGINT);
	assert_non_null(strstr(buf, "in the background (pid 4242); exiting now."));
}

static void sighup_and_request(void)
{
	check(stop__catch() == 0);
	raise(SIGHUP);
	check(stop__exit_status() == 129);
	check(strcmp(stop__signal_name(), "SIGHUP") == 0);
}

static void code_request(void)
{
	stop__request(0);
	check(stop__requested() && stop__signal() == 0);
	/* asked from code: as Ctrl-C would */
	check(stop__exit_status() == 130);
	check(strcmp(stop__signal_name(), "a request") == 0);
}

static void test_sighup_and_request(void **state)
{
	in_child(sighup_and_request);
	in_child(code_request);
}

/* Held: the signal waits until release, so "not stopped, say ready" is never split. */
static void hold(void)
{
	sigset_t old;

	check(stop__catch() == 0);
	stop__hold(&old);
	raise(SIGINT);
	check(!stop__requested());
	stop__release(&old);
	check(stop__requested() && stop__signal() == SIGINT);
}

static void test_hold(void **state)
{
	in_child(hold);
}

/* The handler passes the signal on to the pid it was given, before the stop. */
static void forward(void)
{
	int status;
	pid_t child = fork();

	check(child >= 0);
	if (child == 0) {
		pause();	/* SIGTERM's default action ends it */
		_exit(0);
	}
	check(stop__catch() == 0);
	stop__forward_to(child);
	raise(SIGTERM);
	check(stop__requested());
	check(waitpid(child, &status, 0) == child);
	check(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
}

static void test_forward(void **state)
{
	in_child(forward);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_signal_wins),
		cmocka_unit_test(test_sighup_and_request),
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_echo),
		cmocka_unit_test(test_releaser),
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_forward),
	};

	return cmocka_run_group_tests_name("stop", tests, NULL, NULL);
}
