// SPDX-License-Identifier: BSD-2-Clause
/* -x/-X filtering of error samples (user-space half of the tracer). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "errnos.h"
#include "tracer.h"

static const struct func_desc funcs[] = {
	{ "__x64_sys_bpf", 0 },
	{ "__sys_bpf", FUNC_NEEDS_SIGN_EXT },
	{ "array_map_alloc", FUNC_RET_PTR },
	{ "bpf_map_alloc_percpu", FUNC_RET_PTR },
	{ "log_helper", FUNC_RET_VOID | FUNC_CANT_FAIL },
};

static bool allowed[ERRNO_NAME_MAX + 1], denied[ERRNO_NAME_MAX + 1];

static bool check(const char *x, const char *X, const __s64 *res, int n)
{
	struct rec_session_end *e = calloc(1, sizeof(*e));
	struct rec_session_start st = {};
	struct sample s = { .start = &st, .end = e };
	bool pass;
	int i;

	memset(allowed, 0, sizeof(allowed));
	memset(denied, 0, sizeof(denied));
	if (x)
		allowed[errno__parse(x)] = true;
	if (X)
		denied[errno__parse(X)] = true;
	e->is_err = 1;
	e->stack.max_depth = n;
	for (i = 0; i < n; i++) {
		e->stack.func_ids[i] = i;
		e->stack.func_res[i] = res[i];
	}
	pass = tracer__errors_pass(&s, funcs, 5, x ? allowed : NULL, X ? denied : NULL);
	free(e);
	return pass;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allow_deny),
		cmocka_unit_test(test_successful_values_ignored),
	};

	return cmocka_run_group_tests_name("tracer", tests, NULL, NULL);
}
