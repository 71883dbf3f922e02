// SPDX-License-Identifier: BSD-2-Clause
/* Extensible opts (opts.h): older callers' smaller structs work, newer callers' unknown fields must be zero. */
#include <string.h>
#include "unit.h"
#include "opts.h"

struct old_opts { size_t sz; int a; };
struct cur_opts { size_t sz; int a; long b; };
struct new_opts { size_t sz; int a; long b; long c; };

static void test_copy(void **state)
{
	struct old_opts old = { .sz = sizeof(old), .a = 7 };
	struct new_opts newer = { .sz = sizeof(newer), .a = 1, .b = 2 };
	struct cur_opts cur;

	/* an older caller: the field it doesn't know reads as zero */
	memset(&cur, 0xff, sizeof(cur));
	assert_int_equal(opts__copy(&cur, sizeof(cur), &old), 0);
	assert_int_equal(cur.sz, sizeof(cur));
	assert_int_equal(cur.a, 7);
	assert_int_equal(cur.b, 0);
	/* a newer caller that leaves the new field zero */
	assert_int_equal(OPTS_COPY(&cur, (struct cur_opts *)&newer), 0);
	assert_int_equal(cur.b, 2);
	/* ... and one that sets it: refused, this build can't honour it */
	newer.c = 3;
	assert_false(opts__valid(&newer, sizeof(cur)));
	assert_int_equal(OPTS_COPY(&cur, (struct cur_opts *)&newer), -EINVAL);
	assert_false(opts__valid(NULL, sizeof(cur)));
	old.sz = 0;
	assert_false(opts__valid(&old, sizeof(cur)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy),
	};

	return cmocka_run_group_tests_name("opts", tests, NULL, NULL);
}
