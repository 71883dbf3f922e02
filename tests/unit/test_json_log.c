// SPDX-License-Identifier: BSD-2-Clause
/*
 * --json errors and warnings (json_sink__log): each a JSON line of its own that a consumer
 * of the sample stream parses like every other record.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "unit.h"
#include "log.h"
#include "sink.h"

static int log_to(FILE *f, int level, const char *fmt, ...)
{
	va_list args;
	int err;

	va_start(args, fmt);
	err = json_sink__log(f, level, fmt, args);
	va_end(args);
	return err;
}

/* The lines written to @f, parsed; @n: how many. */
static json_t **records(FILE *f, size_t *n)
{
	static json_t *recs[16];
	static char line[8192];
	json_error_t jerr;

	*n = 0;
	fflush(f);
	rewind(f);
	while (*n < 16 && fgets(line, sizeof(line), f)) {
		/* one record per line: the newline ends it, none is inside */
		assert_non_null(strchr(line, '\n'));
		recs[*n] = json_loads(line, 0, &jerr);
		assert_non_null(recs[*n]);
		++*n;
	}
	return recs;
}

static const char *str_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	assert_non_null(v);
	return json_string_value(v);
}

static void test_kinds(void **state)
{
	FILE *f = tmpfile();
	json_t **r;
	size_t n, i;

	assert_int_equal(log_to(f, LOG_ERROR, "Failed to attach %s: %d\n", "x", -22), 0);
	assert_int_equal(log_to(f, LOG_WARN, "WARNING: entry function '%s' is non-failing!\n",
				"y"), 0);
	r = records(f, &n);
	assert_int_equal(n, 2);
	assert_int_equal(json_integer_value(json_object_get(r[0], "version")), 1);
	assert_string_equal(str_of(r[0], "type"), "error");
	/* the text's final newline is the line's, not the message's */
	assert_string_equal(str_of(r[0], "message"), "Failed to attach x: -22");
	assert_string_equal(str_of(r[1], "type"), "warning");
	assert_string_equal(str_of(r[1], "message"),
			    "WARNING: entry function 'y' is non-failing!");
	for (i = 0; i < n; i++)
		json_decref(r[i]);
	fclose(f);
}

/* A verifier log: long, many lines, any bytes; still one valid record. */
static void test_long_multiline(void **state)
{
	FILE *f = tmpfile();
	char *log = malloc(5000);
	json_t **r;
	size_t n;

	assert_non_null(log);
	memset(log, 'v', 4999);
	log[4999] = '\0';
	log[100] = '\n';
	log[200] = '\xff';	/* not UTF-8 */
	assert_int_equal(log_to(f, LOG_ERROR, "clone rejected:\n%s\n", log), 0);
	r = records(f, &n);
	assert_int_equal(n, 1);
	/* "clone rejected:\n" + 4999 bytes, the bad byte as U+FFFD (3 bytes) */
	assert_int_equal(strlen(str_of(r[0], "message")), 16 + 4999 + 2);
	assert_non_null(strstr(str_of(r[0], "message"), "\xef\xbf\xbd"));
	assert_non_null(strstr(str_of(r[0], "message"), "vv\nvv"));
	json_decref(r[0]);
	free(log);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_long_multiline),
	};

	return cmocka_run_group_tests_name("json_log", tests, NULL, NULL);
}
