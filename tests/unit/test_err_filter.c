// SPDX-License-Identifier: BSD-2-Clause
/* -x/-X: which error samples are reported, judged on the decoded sample's failed frames. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "errnos.h"
#include "err_filter.h"
#include "records.h"

static const struct func funcs[] = {
	{ .name = "__x64_sys_bpf" },
	{ .name = "__sys_bpf", .flags = FUNC_NEEDS_SIGN_EXT },
	{ .name = "array_map_alloc", .flags = FUNC_RET_PTR },
	{ .name = "bpf_map_alloc_percpu", .flags = FUNC_RET_PTR },
	{ .name = "log_helper", .flags = FUNC_RET_VOID | FUNC_CANT_FAIL },
};

static bool allowed[ERRNO_NAME_MAX + 1], denied[ERRNO_NAME_MAX + 1];

/* @type: REC_SESSION_END, or an interim sample's (-I) */
static bool check_kind(const char *x, const char *X, const __s64 *res, int n, bool is_err,
		       __u32 type)
{
	struct rec_session_interim *in = calloc(1, sizeof(*in));
	struct rec_session_end *e = &in->end;
	struct rec_session_start st = {};
	struct sess_recs r = { .start = &st, .end = e,
			       .interim = type == REC_SESSION_END ? NULL : in };
	struct sample_build_opts b = { .sz = sizeof(b), .funcs = funcs, .func_cnt = 5 };
	struct err_filter f = { .allowed = x ? allowed : NULL, .denied = X ? denied : NULL };
	struct sample *s;
	bool pass;
	int i;

	memset(allowed, 0, sizeof(allowed));
	memset(denied, 0, sizeof(denied));
	if (x)
		allowed[errno__parse(x)] = true;
	if (X)
		denied[errno__parse(X)] = true;
	e->type = type;
	in->probe_id = -1;
	e->is_err = is_err;
	e->stack.max_depth = n;
	for (i = 0; i < n; i++) {
		e->stack.func_ids[i] = i;
		e->stack.func_res[i] = res[i];
	}
	assert_int_equal(sample__build(&r, &b, &s), 0);
	pass = err_filter__pass(&f, s);
	sample__free(s);
	free(in);
	return pass;
}

static bool check_err(const char *x, const char *X, const __s64 *res, int n, bool is_err)
{
	return check_kind(x, X, res, n, is_err, REC_SESSION_END);
}

static bool check(const char *x, const char *X, const __s64 *res, int n)
{
	return check_err(x, X, res, n, true);
}

static void test_allow_deny(void **state)
{
	/* -ENOMEM bubbling up from a NULL allocation */
	const __s64 enomem[] = { -12, 0xfffffff4LL, -12, 0 };
	const __s64 e2big[] = { -7, -7 };

	assert_true(check(NULL, NULL, enomem, 4));
	assert_true(check("ENOMEM", NULL, enomem, 4));
	assert_true(check("NULL", NULL, enomem, 4));		/* the NULL pointer return */
	assert_false(check("EINVAL", NULL, enomem, 4));
	assert_false(check(NULL, "ENOMEM", enomem, 4));
	assert_false(check(NULL, "NULL", enomem, 4));
	assert_true(check(NULL, "EINVAL", enomem, 4));
	assert_false(check("EINVAL", NULL, e2big, 2));
	assert_false(check(NULL, "E2BIG", e2big, 2));
	assert_true(check("E2BIG", NULL, e2big, 2));
}

static void test_successful_values_ignored(void **state)
{
	/* fd 5 and a void helper are not errno 5 (EIO) or anything else */
	const __s64 res[] = { -22, 5, -22, 0, 0 };

	assert_false(check("EIO", NULL, res, 2));
	assert_true(check("EINVAL", "EIO", res, 2));
}

static void test_success_samples_pass(void **state)
{
	/* -S samples are BPF's decision; -x/-X only judge errors */
	const __s64 res[] = { 3, 0 };

	assert_true(check_err("EINVAL", NULL, res, 2, false));
	assert_true(check_err(NULL, "EINVAL", res, 2, false));
}

/*
 * -I: a probe's sample is shown whatever -x/-X say (it shows where the probe fired); an
 * interim error chain about to be overwritten is judged like a final one.
 */
static void test_interim_samples(void **state)
{
	const __s64 enomem[] = { -12, -12 };

	assert_true(check_kind(NULL, "ENOMEM", enomem, 2, true, REC_SESSION_PROBE));
	assert_true(check_kind("EINVAL", NULL, enomem, 2, true, REC_SESSION_PROBE));
	assert_false(check_kind(NULL, "ENOMEM", enomem, 2, true, REC_SESSION_STITCH));
	assert_true(check_kind("ENOMEM", NULL, enomem, 2, true, REC_SESSION_STITCH));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allow_deny),
		cmocka_unit_test(test_successful_values_ignored),
		cmocka_unit_test(test_success_samples_pass),
		cmocka_unit_test(test_interim_samples),
	};

	return cmocka_run_group_tests_name("err_filter", tests, NULL, NULL);
}
