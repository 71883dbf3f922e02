// SPDX-License-Identifier: BSD-2-Clause
/*
 * The releasing child (detach_child.c): it begins only on go (or once this process is
 * gone), keeps no fd but the probes', says how far it is, and a wait ends on the child's
 * end, a deadline or a cancel flag. The child's release here works on a shared page, the
 * one thing it shares with the test besides its exit.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "unit.h"
#include "detach_child.h"

struct shared {
	int began;
	int quit;		/* set by the test: the release may end */
	int acked;		/* the test's progress callback saw 2 of 4 */
};

static struct shared *sh;

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
}

/* Wait up to 5 s for *@v (the other process's write). */
static bool wait_for(volatile int *v)
{
	int i;

	for (i = 0; i < 500 && !*v; i++)
		sleep_ms(10);
	return *v;
}

static void release_quick(struct detach_child *dc, void *ctx)
{
	(void)dc;
	(void)ctx;
	__atomic_store_n(&sh->began, 1, __ATOMIC_SEQ_CST);
}

/* Says 2 of 4, then waits for the test to have seen it (or quit). */
static void release_reporting(struct detach_child *dc, void *ctx)
{
	(void)ctx;
	__atomic_store_n(&sh->began, 1, __ATOMIC_SEQ_CST);
	detach_child__progress(dc, "detaching", 2, 4);
	wait_for(&sh->acked);
}

static void release_until_quit(struct detach_child *dc, void *ctx)
{
	(void)dc;
	(void)ctx;
	__atomic_store_n(&sh->began, 1, __ATOMIC_SEQ_CST);
	wait_for(&sh->quit);
}

static void on_progress(void *ctx, const char *stage, size_t done, size_t total)
{
	int *calls = ctx;

	(*calls)++;
	if (strcmp(stage, "detaching") == 0 && done == 2 && total == 4)
		__atomic_store_n(&sh->acked, 1, __ATOMIC_SEQ_CST);
}

static int setup(void **state)
{
	(void)state;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	return sh == MAP_FAILED ? -1 : 0;
}

static int reset(void **state)
{
	(void)state;
	memset(sh, 0, sizeof(*sh));
	return 0;
}

/* Nothing before go (this process still holds its references); then to the end. */
static void test_go_then_done(void **state)
{
	struct detach_child *dc = detach_child__start(release_quick, NULL);

	(void)state;
	assert_non_null(dc);
	assert_true(detach_child__pid(dc) > 0);
	sleep_ms(100);
	assert_int_equal(sh->began, 0);
	detach_child__go(dc);
	assert_int_equal(detach_child__wait(dc, 0, NULL, NULL, NULL), 0);
	assert_int_equal(sh->began, 1);
	/* reaped: no such child any more */
	assert_int_equal(waitpid(detach_child__pid(dc), NULL, WNOHANG), -1);
	detach_child__free(dc);
}

/* The child's progress reaches the waiting side's callback. */
static void test_progress(void **state)
{
	struct detach_child *dc = detach_child__start(release_reporting, NULL);
	int calls = 0;

	(void)state;
	assert_non_null(dc);
	detach_child__go(dc);
	assert_int_equal(detach_child__wait(dc, 0, NULL, on_progress, &calls), 0);
	assert_int_equal(sh->acked, 1);
	assert_true(calls > 0);
	detach_child__free(dc);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A deadline or a cancel ends the wait, the child going on; a later wait sees its end. */
static void test_deadline_and_cancel(void **state)
{
	struct detach_child *dc = detach_child__start(release_until_quit, NULL);
	volatile sig_atomic_t cancel = 0;
	long t0;

	(void)state;
	assert_non_null(dc);
	detach_child__go(dc);
	assert_true(wait_for(&sh->began));
	t0 = now_ms();
	assert_int_equal(detach_child__wait(dc, t0 + 50, NULL, NULL, NULL), -ETIMEDOUT);
	assert_true(now_ms() - t0 < 2000);
	cancel = 1;
	assert_int_equal(detach_child__wait(dc, 0, &cancel, NULL, NULL), -ECANCELED);
	/* still working */
	assert_int_equal(waitpid(detach_child__pid(dc), NULL, WNOHANG), 0);
	sh->quit = 1;
	assert_int_equal(detach_child__wait(dc, 0, NULL, NULL, NULL), 0);
	detach_child__free(dc);
}

/*
 * The child lets go of every other fd at once: a pipe's reader sees the end of it as
 * soon as this process closes its own end, while the child still works.
 */
static void test_keeps_no_other_fd(void **state)
{
	struct detach_child *dc;
	int fds[2];
	char c;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	dc = detach_child__start(release_until_quit, NULL);
	assert_non_null(dc);
	close(fds[1]);
	detach_child__go(dc);
	assert_true(wait_for(&sh->began));
	assert_int_equal(read(fds[0], &c, 1), 0);
	close(fds[0]);
	sh->quit = 1;
	assert_int_equal(detach_child__wait(dc, 0, NULL, NULL, NULL), 0);
	detach_child__free(dc);
}

/* Never told to go: the child begins once its parent is gone, and runs to its end. */
static void test_parent_gone(void **state)
{
	pid_t pid = fork();
	int status;

	(void)state;
	assert_true(pid >= 0);
	if (pid == 0) {
		struct detach_child *dc = detach_child__start(release_quick, NULL);

		sleep_ms(100);
		_exit(dc && !sh->began ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(wait_for(&sh->began));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_go_then_done, reset),
		cmocka_unit_test_setup(test_progress, reset),
		cmocka_unit_test_setup(test_deadline_and_cancel, reset),
		cmocka_unit_test_setup(test_keeps_no_other_fd, reset),
		cmocka_unit_test_setup(test_parent_gone, reset),
	};

	return cmocka_run_group_tests_name("detach_child", tests, setup, NULL);
}
