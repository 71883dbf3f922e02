// SPDX-License-Identifier: BSD-2-Clause
/*
 * The function list's image: what ftrace_funcs__open() maps back is the list written,
 * entry for entry; text still opens; a damaged image is refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include <linux/types.h>
#include "ftrace_funcs.h"

static const char text[] =
	"do_sys_open\n"
	"dup_static\n"
	"dup_static\n"
	"__ftrace_invalid_address___64\n"
	"kvm_one [kvm]\n"
	"kvm_two [kvm]\n"
	"xfs_one [xfs]\n"
	"kvm_three [kvm]\n"
	"last_one\n";

static char path[64];

static int setup(void **state)
{
	int fd;

	(void)state;
	strcpy(path, "/tmp/retsnoop-aff-image.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void write_image(const struct ftrace_funcs *ff)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(ftrace_funcs__write_image(ff, f), 0);
	assert_int_equal(fclose(f), 0);
}

static void test_roundtrip(void **state)
{
	struct ftrace_funcs *want = ftrace_funcs__parse(text, sizeof(text) - 1), *got;
	const struct ftrace_func *a, *b;
	const char *name;
	FILE *f;
	size_t i;

	(void)state;
	assert_non_null(want);
	assert_int_equal(ftrace_funcs__cnt(want), 8);
	write_image(want);
	assert_int_equal(ftrace_funcs__check_image(path), 0);
	got = ftrace_funcs__open(path);
	assert_non_null(got);
	assert_int_equal(ftrace_funcs__cnt(got), 8);
	for (i = 0; i < ftrace_funcs__cnt(want); i++) {
		a = ftrace_funcs__get(want, i);
		b = ftrace_funcs__get(got, i);
		assert_string_equal(a->name, b->name);
		if (a->module)
			assert_string_equal(a->module, b->module);
		else
			assert_null(b->module);
	}
	assert_null(ftrace_funcs__get(got, 8));
	/* the strings outlive the entry made for them */
	name = ftrace_funcs__get(got, 3)->name;
	b = ftrace_funcs__get(got, 5);
	assert_string_equal(b->module, "xfs");
	assert_string_equal(name, "kvm_one");
	/* a list from an image is not written again: its file is copied */
	f = fopen("/dev/null", "w");
	assert_int_equal(ftrace_funcs__write_image(got, f), -EINVAL);
	fclose(f);
	ftrace_funcs__free(want);
	ftrace_funcs__free(got);
}

/* text opens as text (a copy an older build kept); an empty list round-trips */
static void test_text_and_empty(void **state)
{
	struct ftrace_funcs *ff;
	FILE *f = fopen(path, "w");

	(void)state;
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	ff = ftrace_funcs__open(path);
	assert_non_null(ff);
	assert_int_equal(ftrace_funcs__cnt(ff), 8);
	assert_string_equal(ftrace_funcs__get(ff, 7)->name, "last_one");
	ftrace_funcs__free(ff);
	assert_int_equal(ftrace_funcs__check_image(path), -EINVAL);

	ff = ftrace_funcs__parse("", 0);
	write_image(ff);
	ftrace_funcs__free(ff);
	ff = ftrace_funcs__open(path);
	assert_non_null(ff);
	assert_int_equal(ftrace_funcs__cnt(ff), 0);
	ftrace_funcs__free(ff);
}

/* A damaged image is refused (EINVAL), never half read */
static void test_damaged(void **state)
{
	struct ftrace_funcs *want = ftrace_funcs__parse(text, sizeof(text) - 1);
	char *good, *bad;
	size_t len;
	__u32 off;

	(void)state;
	write_image(want);
	ftrace_funcs__free(want);
	good = unit_read_file(path, &len);
	bad = malloc(len);
	assert_non_null(bad);

	/* cut short: the check of the header and size says so too */
	unit_write_file(path, good, len - 1);
	errno = 0;
	assert_null(ftrace_funcs__open(path));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ftrace_funcs__check_image(path), -EINVAL);
	/* a name's offset past the names (the first record, after the 24-byte header) */
	memcpy(bad, good, len);
	off = 0x7fffffff;
	memcpy(bad + 24, &off, sizeof(off));
	unit_write_file(path, bad, len);
	errno = 0;
	assert_null(ftrace_funcs__open(path));
	assert_int_equal(errno, EINVAL);
	/* names that don't end with a NUL */
	memcpy(bad, good, len);
	bad[len - 1] = 'x';
	unit_write_file(path, bad, len);
	assert_null(ftrace_funcs__open(path));
	/* the check reads the header alone: damage inside a whole-sized file is the open's */
	assert_int_equal(ftrace_funcs__check_image(path), 0);
	free(bad);
	free(good);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_and_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
