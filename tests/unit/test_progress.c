// SPDX-License-Identifier: BSD-2-Clause
/*
 * The terminal status line (progress.c): silent at first, throttled, erased before output;
 * plain lines where there is no terminal.
 */
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

static void test_style(void **state)
{
	FILE *f = tmpfile();
	int fd = fileno(f), pty, tty;

	/* not a terminal, --json, or -v: plain lines */
	assert_int_equal(progress__style(fd, false, 0), PROGRESS_PLAIN);
	assert_int_equal(progress__style(fd, true, 0), PROGRESS_PLAIN);
	assert_int_equal(progress__style(fd, false, 1), PROGRESS_PLAIN);
	fclose(f);

	/* a real terminal (a pseudo-terminal's far end): then TERM decides */
	pty = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(pty >= 0);
	assert_int_equal(grantpt(pty), 0);
	assert_int_equal(unlockpt(pty), 0);
	tty = open(ptsname(pty), O_RDWR | O_NOCTTY);
	assert_true(tty >= 0 && isatty(tty));
	unsetenv("TERM");
	assert_int_equal(progress__style(tty, false, 0), PROGRESS_PLAIN);
	setenv("TERM", "dumb", 1);
	assert_int_equal(progress__style(tty, false, 0), PROGRESS_PLAIN);
	setenv("TERM", "xterm", 1);
	assert_int_equal(progress__style(tty, false, 0), PROGRESS_LINE);
	assert_int_equal(progress__style(tty, true, 0), PROGRESS_PLAIN);
	assert_int_equal(progress__style(tty, false, 2), PROGRESS_PLAIN);
	close(tty);
	close(pty);
}

static struct progress *new_plain(FILE *f)
{
	struct progress_opts o = {
		.sz = sizeof(o), .out = f, .plain = true, .now_ms = fake_clock,
	};

	fake_now = 5000;
	return progress__new(&o);
}

/* Plain lines: only for a step longer than 10 s, then every 10 s, never a control byte. */
static void test_plain(void **state)
{
	FILE *f = tmpfile();
	struct progress *p = new_plain(f);

	assert_non_null(p);
	/* a short step says nothing, however often it reports */
	progress__update(p, "reading kallsyms", 0, 0);
	fake_now += 9999;
	progress__update(p, "reading kallsyms", 0, 0);
	/* a new step starts its own clock: 9.9 s into the first is 0 s into this one */
	progress__update(p, "attaching functions", 1, 400);
	fake_now += 9999;
	progress__update(p, "attaching functions", 100, 400);
	assert_string_equal(written(f), "");
	fake_now += 1;
	progress__update(p, "attaching functions", 101, 400);
	assert_string_equal(written(f),
			    "retsnoop: attaching functions 101/400 (25%), 10 s so far\n");
	/* then at most one line per 10 s */
	fake_now += 9999;
	progress__update(p, "attaching functions", 300, 400);
	assert_string_equal(written(f),
			    "retsnoop: attaching functions 101/400 (25%), 10 s so far\n");
	fake_now += 1;
	progress__update(p, "attaching functions", 301, 400);
	assert_string_equal(written(f),
			    "retsnoop: attaching functions 101/400 (25%), 10 s so far\n"
			    "retsnoop: attaching functions 301/400 (75%), 20 s so far\n");
	/* the last unit is no news: what follows says the step ended */
	fake_now += 20000;
	progress__update(p, "attaching functions", 400, 400);
	assert_int_equal(strlen(written(f)), 2 * strlen("retsnoop: attaching functions 101/400 (25%), 10 s so far\n"));
	/* an uncountable step, and nothing to erase */
	progress__update(p, "loading BPF programs", 0, 0);
	fake_now += 12000;
	progress__update(p, "loading BPF programs", 0, 0);
	progress__clear(p);
	progress__free(p);
	assert_non_null(strstr(written(f), "20 s so far\nretsnoop: loading BPF programs..., 12 s so far\n"));
	assert_null(strchr(written(f), '\r'));
	assert_null(strchr(written(f), '\033'));
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delay_and_throttle),
		cmocka_unit_test(test_clear),
		cmocka_unit_test(test_opts_and_null),
		cmocka_unit_test(test_style),
		cmocka_unit_test(test_plain),
	};

	return cmocka_run_group_tests_name("progress", tests, NULL, NULL);
}
