// SPDX-License-Identifier: BSD-2-Clause
/*
 * The stop request (stop.c): the first of SIGINT/SIGTERM/SIGHUP is recorded and sets the
 * flag, the handler then resets itself, held signals wait, forwarding reaches the child.
 * Each test runs in a child process of its own: the handlers and the flag are per process.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "unit.h"
#include "stop.h"

/* Run @fn in a fresh child; it exits 0 when all its checks hold. */
static void in_child(void (*fn)(void))
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

#define check(cond) do { if (!(cond)) _exit(__LINE__ & 0xff ?: 1); } while (0)

static void first_signal_wins(void)
{
	struct sigaction sa;

	check(stop__catch() == 0);
	check(!stop__requested() && stop__signal() == 0);
	raise(SIGTERM);
	check(stop__requested() && *stop__flag());
	check(stop__signal() == SIGTERM);
	check(stop__exit_status() == 128 + SIGTERM);
	check(strcmp(stop__signal_name(), "SIGTERM") == 0);
	/* the handler reset all three: any second signal would kill */
	sigaction(SIGTERM, NULL, &sa);
	check(sa.sa_handler == SIG_DFL);
	sigaction(SIGINT, NULL, &sa);
	check(sa.sa_handler == SIG_DFL);
	sigaction(SIGHUP, NULL, &sa);
	check(sa.sa_handler == SIG_DFL);
	/* a later stop from code does not change what asked first */
	stop__request(SIGHUP);
	check(stop__signal() == SIGTERM);
}

static void test_first_signal_wins(void **state)
{
	in_child(first_signal_wins);
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
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_forward),
	};

	return cmocka_run_group_tests_name("stop", tests, NULL, NULL);
}
