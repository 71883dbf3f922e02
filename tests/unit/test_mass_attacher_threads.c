// SPDX-License-Identifier: BSD-2-Clause
/*
 * The mass attacher's threads (mass_attacher_threads.c): every item done exactly once,
 * helpers never take signals, progress only from the calling thread and ending at the
 * total, every fd released.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "unit.h"
#include "mass_attacher_int.h"

#define ITEMS 1000

struct count_job {
	size_t next, done;
	unsigned char seen[ITEMS];
	pthread_t caller;
	int helper_took_sigint;		/* a helper had SIGINT unblocked */
	int helpers_ran;
};

static bool count_step(void *arg)
{
	struct count_job *job = arg;
	size_t i = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED);
	sigset_t cur;

	if (i >= ITEMS)
		return false;
	__atomic_fetch_add(&job->seen[i], 1, __ATOMIC_RELAXED);
	if (!pthread_equal(pthread_self(), job->caller)) {
		pthread_sigmask(SIG_SETMASK, NULL, &cur);
		if (!sigismember(&cur, SIGINT))
			__atomic_store_n(&job->helper_took_sigint, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&job->helpers_ran, 1, __ATOMIC_RELAXED);
	} else {
		int waited = 0;

		/* the caller takes no item before a helper took one (loaded hosts: up to 5 s) */
		while (!__atomic_load_n(&job->helpers_ran, __ATOMIC_RELAXED) && waited++ < 5000)
			usleep(1000);
	}
	usleep(200);	/* an item takes time: every thread gets some */
	__atomic_fetch_add(&job->done, 1, __ATOMIC_RELAXED);
	return true;
}

static pthread_t progress_thread;
static size_t last_done, last_total, progress_calls;
static int progress_elsewhere;

static void record_progress(void *ctx, const char *stage, size_t done, size_t total)
{
	if (!pthread_equal(pthread_self(), progress_thread))
		progress_elsewhere = 1;
	assert_string_equal(stage, ctx);
	assert_true(done <= total);
	last_done = done;
	last_total = total;
	progress_calls++;
}

static void test_run_steps(void **state)
{
	static struct count_job job;
	struct ma_steps st = {
		.step = count_step, .arg = &job, .progress = record_progress, .ctx = "counting",
		.stage = "counting", .done = &job.done, .total = ITEMS,
	};
	size_t i;

	memset(&job, 0, sizeof(job));
	job.caller = progress_thread = pthread_self();
	progress_elsewhere = 0;
	progress_calls = 0;
	ma__run_steps(4, &st);
	for (i = 0; i < ITEMS; i++)
		assert_int_equal(job.seen[i], 1);
	assert_int_equal(job.done, ITEMS);
	assert_true(job.helpers_ran);
	assert_false(job.helper_took_sigint);
	assert_false(progress_elsewhere);
	assert_true(progress_calls > 0);
}

static void test_close_all(void **state)
{
	int fds[2 * 64], i;

	for (i = 0; i < 64; i++)
		assert_int_equal(pipe(&fds[2 * i]), 0);
	progress_thread = pthread_self();
	progress_elsewhere = 0;
	progress_calls = 0;
	/* no libbpf links here: the fds alone, then links alone (NULL links are no-ops) */
	assert_int_equal(ma__close_all(NULL, 0, fds, 128, 8, 0, record_progress, "detaching"), 128);
	for (i = 0; i < 128; i++)
		assert_int_equal(fcntl(fds[i], F_GETFD), -1);
	assert_int_equal(last_done, 128);
	assert_int_equal(last_total, 128);
	assert_false(progress_elsewhere);
	{
		struct bpf_link *links[40] = {};

		assert_int_equal(ma__close_all(links, 40, NULL, 0, 0, 0, record_progress, "detaching"), 40);
		assert_int_equal(last_done, 40);
		assert_int_equal(last_total, 40);
	}
	/* nothing to release: no progress call, no thread */
	progress_calls = 0;
	assert_int_equal(ma__close_all(NULL, 0, NULL, 0, 0, 0, record_progress, "detaching"), 0);
	assert_int_equal(progress_calls, 0);
}

/* A deadline already past: nothing is started, every fd is still open, 0 released. */
static void test_close_all_deadline(void **state)
{
	struct timespec ts;
	int fds[2 * 8], i;
	long now;

	for (i = 0; i < 8; i++)
		assert_int_equal(pipe(&fds[2 * i]), 0);
	progress_thread = pthread_self();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	assert_int_equal(ma__close_all(NULL, 0, fds, 16, 4, now - 1, NULL, NULL), 0);
	for (i = 0; i < 16; i++)
		assert_true(fcntl(fds[i], F_GETFD) >= 0);
	/* one far ahead: all of them */
	assert_int_equal(ma__close_all(NULL, 0, fds, 16, 4, now + 600000, NULL, NULL), 16);
	for (i = 0; i < 16; i++)
		assert_int_equal(fcntl(fds[i], F_GETFD), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_steps),
		cmocka_unit_test(test_close_all),
		cmocka_unit_test(test_close_all_deadline),
	};

	return cmocka_run_group_tests_name("mass_attacher_threads", tests, NULL, NULL);
}
