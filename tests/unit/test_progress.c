// SPDX-License-Identifier: BSD-2-Clause
/* The terminal status line (progress.c): silent at first, throttled, erased before output. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "progress.h"

static long fake_now;

static long fake_clock(void)
{
	return fake_now;
}

/* Everything written to @f so far, as a string. */
static const char *written(FILE *f)
{
	static char buf[4096];
	size_t n;

	fflush(f);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fseek(f, 0, SEEK_END);
	return buf;
}

static struct progress *new_progress(FILE *f)
{
	struct progress_opts o = {
		.sz = sizeof(o), .out = f, .delay_ms = 1000, .interval_ms = 100,
		.now_ms = fake_clock,
	};

	fake_now = 5000;
	return progress__new(&o);
}

static void test_delay_and_throttle(void **state)
{
	FILE *f = tmpfile();
	struct progress *p = new_progress(f);

	assert_non_null(p);
	/* a step that ends within the delay says nothing */
	progress__update(p, "attaching functions", 10, 100);
	fake_now += 999;
	progress__update(p, "attaching functions", 50, 100);
	assert_string_equal(written(f), "");

	fake_now += 1;
	progress__update(p, "attaching functions", 60, 100);
	assert_string_equal(written(f), "\r\033[Kretsnoop: attaching functions 60/100 (60%)");
	/* within the interval: not redrawn ... */
	fake_now += 50;
	progress__update(p, "attaching functions", 70, 100);
	assert_string_equal(written(f), "\r\033[Kretsnoop: attaching functions 60/100 (60%)");
	/* ... except the step's last unit */
	progress__update(p, "attaching functions", 100, 100);
	assert_non_null(strstr(written(f), "\r\033[Kretsnoop: attaching functions 100/100 (100%)"));
	/* a step that can't be counted */
	fake_now += 100;
	progress__update(p, "reading kallsyms", 0, 0);
	assert_non_null(strstr(written(f), "\r\033[Kretsnoop: reading kallsyms..."));
	progress__free(p);
	fclose(f);
}

static void test_clear(void **state)
{
	FILE *f = tmpfile();
	struct progress *p = new_progress(f);
	const char *s;

	/* nothing shown: nothing to erase */
	progress__clear(p);
	assert_string_equal(written(f), "");
	fake_now += 2000;
	progress__update(p, "detaching", 1, 4);
	progress__clear(p);
	s = written(f);
	assert_string_equal(s, "\r\033[Kretsnoop: detaching 1/4 (25%)\r\033[K");
	/* after erasing, the next update draws at once, interval or not */
	progress__update(p, "detaching", 2, 4);
	assert_non_null(strstr(written(f), "detaching 2/4 (50%)"));
	/* freeing erases what is shown */
	progress__free(p);
	s = written(f);
	assert_int_equal(strcmp(s + strlen(s) - 4, "\r\033[K"), 0);
	fclose(f);
}

static void test_opts_and_null(void **state)
{
	struct progress_opts o = { .sz = sizeof(o) };

	/* no stream, no object */
	assert_null(progress__new(&o));
	assert_null(progress__new(NULL));
	/* the callbacks take NULL: callers pass what progress__new() gave */
	progress__update(NULL, "x", 1, 2);
	progress__clear(NULL);
	progress__free(NULL);
}

static void test_wanted(void **state)
{
	FILE *f = tmpfile();
	int fd = fileno(f), pty, tty;

	/* not a terminal, --json, or -v: never */
	assert_false(progress__wanted(fd, false, 0));
	assert_false(progress__wanted(fd, true, 0));
	assert_false(progress__wanted(fd, false, 1));
	fclose(f);

	/* a real terminal (a pseudo-terminal's far end): then TERM decides */
	pty = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(pty >= 0);
	assert_int_equal(grantpt(pty), 0);
	assert_int_equal(unlockpt(pty), 0);
	tty = open(ptsname(pty), O_RDWR | O_NOCTTY);
	assert_true(tty >= 0 && isatty(tty));
	unsetenv("TERM");
	assert_false(progress__wanted(tty, false, 0));
	setenv("TERM", "dumb", 1);
	assert_false(progress__wanted(tty, false, 0));
	setenv("TERM", "xterm", 1);
	assert_true(progress__wanted(tty, false, 0));
	assert_false(progress__wanted(tty, true, 0));
	assert_false(progress__wanted(tty, false, 2));
	close(tty);
	close(pty);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delay_and_throttle),
		cmocka_unit_test(test_clear),
		cmocka_unit_test(test_opts_and_null),
		cmocka_unit_test(test_wanted),
	};

	return cmocka_run_group_tests_name("progress", tests, NULL, NULL);
}
