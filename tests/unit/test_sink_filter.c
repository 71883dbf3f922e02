// SPDX-License-Identifier: BSD-2-Clause
/*
 * -x/-X in front of the real sink: the samples err_filter rejects never reach it, the
 * others do with the real sink's result; every lifecycle call goes through as is, and the
 * real sink stays the caller's.
 */
#include <errno.h>
#include <string.h>
#include "unit.h"
#include "errnos.h"
#include "sink_filter.h"

/* The real sink: what reached it. */
struct rec_sink {
	struct sink sink;
	int samples, ready, drops, detaching, detached, command;
	const struct sample *last;
	const struct drop_report *d;
	const struct cmd_report *r;
	long ms;
	int bg_pid;
};

static int rec_sample(struct sink *sk, const struct sample *s)
{
	struct rec_sink *rs = (struct rec_sink *)sk;

	rs->samples++;
	rs->last = s;
	return -EIO;	/* not 0: the filter must hand it back */
}

static void rec_ready(struct sink *sk)
{
	((struct rec_sink *)sk)->ready++;
}

static void rec_drops(struct sink *sk, const struct drop_report *d)
{
	((struct rec_sink *)sk)->drops++;
	((struct rec_sink *)sk)->d = d;
}

static void rec_detaching(struct sink *sk, const struct drop_report *d)
{
	((struct rec_sink *)sk)->detaching++;
	((struct rec_sink *)sk)->d = d;
}

static void rec_detached(struct sink *sk, long ms, int bg_pid)
{
	struct rec_sink *rs = (struct rec_sink *)sk;

	rs->detached++;
	rs->ms = ms;
	rs->bg_pid = bg_pid;
}

static void rec_command(struct sink *sk, const struct cmd_report *r)
{
	((struct rec_sink *)sk)->command++;
	((struct rec_sink *)sk)->r = r;
}

static void rec_free(struct sink *sk)
{
	free(sk);
}

static const struct sink_ops rec_ops = {
	.sample = rec_sample,
	.ready = rec_ready,
	.drops = rec_drops,
	.detaching = rec_detaching,
	.detached = rec_detached,
	.command = rec_command,
	.free = rec_free,
};

static struct rec_sink *rec_new(void)
{
	struct rec_sink *rs = calloc(1, sizeof(*rs));

	assert_non_null(rs);
	rs->sink.ops = &rec_ops;
	return rs;
}

static const struct func funcs[] = { { .name = "do_sys_open" }, { .name = "getname" } };

/* An error sample whose two traced frames both failed with @err (a positive errno). */
static void error_sample(struct sample *s, struct sample_frame *fr, int err)
{
	int i;

	memset(s, 0, sizeof(*s));
	memset(fr, 0, 2 * sizeof(*fr));
	for (i = 0; i < 2; i++) {
		fr[i].func_id = i;
		fr[i].failed = true;
		fr[i].res = -err;
	}
	s->kind = SAMPLE_FINAL;
	s->probe_id = -1;
	s->is_err = true;
	s->funcs = funcs;
	s->func_cnt = 2;
	s->frames = fr;
	s->frame_cnt = 2;
	s->deepest = 1;
}

static void test_samples_filtered(void **state)
{
	static bool allowed[ERRNO_NAME_MAX + 1], denied[ERRNO_NAME_MAX + 1];
	struct err_filter f = { .allowed = allowed, .denied = denied };
	struct rec_sink *rs = rec_new();
	struct sample_frame fr[2];
	struct sample s;
	struct sink *sk;

	/* -x ENOENT -x EACCES -X EACCES: the deny wins */
	allowed[ENOENT] = allowed[EACCES] = true;
	denied[EACCES] = true;
	sk = filter_sink__new(&rs->sink, &f);
	assert_non_null(sk);
	/* copied: the caller's struct may go */
	memset(&f, 0, sizeof(f));

	error_sample(&s, fr, ENOENT);
	assert_int_equal(sink__sample(sk, &s), -EIO);
	assert_int_equal(rs->samples, 1);
	assert_ptr_equal(rs->last, &s);

	error_sample(&s, fr, EACCES);
	assert_int_equal(sink__sample(sk, &s), 0);
	error_sample(&s, fr, ENOMEM);
	assert_int_equal(sink__sample(sk, &s), 0);
	assert_int_equal(rs->samples, 1);

	/* a success sample (-S) is BPF's decision: it goes through */
	error_sample(&s, fr, ENOMEM);
	s.is_err = false;
	assert_int_equal(sink__sample(sk, &s), -EIO);
	assert_int_equal(rs->samples, 2);

	sink__free(sk);
	sink__free(&rs->sink);
}

/* No -x/-X: every sample goes through. */
static void test_no_filter(void **state)
{
	struct err_filter f = {};
	struct rec_sink *rs = rec_new();
	struct sample_frame fr[2];
	struct sink *sk = filter_sink__new(&rs->sink, &f);
	struct sample s;

	assert_non_null(sk);
	error_sample(&s, fr, ENOMEM);
	assert_int_equal(sink__sample(sk, &s), -EIO);
	assert_int_equal(rs->samples, 1);
	sink__free(sk);
	sink__free(&rs->sink);
}

/* The lifecycle calls reach the real sink with their arguments; freeing leaves it alone. */
static void test_lifecycle_forwarded(void **state)
{
	static bool denied[ERRNO_NAME_MAX + 1] = { [ENOMEM] = true };
	struct err_filter f = { .denied = denied };
	struct rec_sink *rs = rec_new();
	struct drop_report d = { .dropped_sessions = 3 };
	struct cmd_report r = { .pid = 42, .exited = true };
	struct sink *sk = filter_sink__new(&rs->sink, &f);

	assert_non_null(sk);
	sink__ready(sk);
	assert_int_equal(rs->ready, 1);
	sink__drops(sk, &d);
	assert_int_equal(rs->drops, 1);
	assert_ptr_equal(rs->d, &d);
	sink__command(sk, &r);
	assert_int_equal(rs->command, 1);
	assert_ptr_equal(rs->r, &r);
	rs->d = NULL;
	sink__detaching(sk, &d);
	assert_int_equal(rs->detaching, 1);
	assert_ptr_equal(rs->d, &d);
	sink__detached(sk, 25, 1234);
	assert_int_equal(rs->detached, 1);
	assert_int_equal(rs->ms, 25);
	assert_int_equal(rs->bg_pid, 1234);
	sink__free(sk);
	/* still the caller's (ASan: a use after free if the filter had freed it) */
	sink__ready(&rs->sink);
	assert_int_equal(rs->ready, 2);
	sink__free(&rs->sink);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples_filtered),
		cmocka_unit_test(test_no_filter),
		cmocka_unit_test(test_lifecycle_forwarded),
	};

	return cmocka_run_group_tests_name("sink_filter", tests, NULL, NULL);
}
