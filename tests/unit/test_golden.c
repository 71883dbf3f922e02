// SPDX-License-Identifier: BSD-2-Clause
/*
 * Golden files: tests/golden/NAME.cap is a real run in a test guest (ring-buffer records
 * plus every symbol answer; tools/record-golden.sh), NAME.out what that run printed. The
 * decoder, session store and renderers must reproduce NAME.out byte for byte.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "capture.h"
#include "render.h"

struct out_state {
	struct sample_build_opts b;
	struct text_sink_opts o;
	FILE *f;
};

static int on_session(void *ctx, const struct sess_recs *r)
{
	struct out_state *st = ctx;
	struct sample *s;
	int err = sample__build(r, &st->b, &s);

	if (err)
		return err;
	err = render_text__sample(st->f, s, &st->o);
	sample__free(s);
	return err;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, len;

	if (!f)
		return NULL;
	len = getdelim(&buf, &cap, '\0', f);
	fclose(f);
	if ((ssize_t)len < 0) {
		free(buf);
		return strdup("");
	}
	return buf;
}

static char *replay(const char *cap)
{
	struct out_state st = {};
	struct session_store_opts so = { .sz = sizeof(so), .on_session = on_session, .ctx = &st };
	struct session_store *store;
	struct replay *r = replay__open(cap);
	char *buf = NULL;
	size_t len = 0;

	assert_non_null(r);
	replay__build_opts(r, &st.b);
	replay__text_opts(r, &st.o);
	store = session_store__new(&so);
	st.f = open_memstream(&buf, &len);
	assert_int_equal(replay__feed(r, store), 0);
	fclose(st.f);
	session_store__free(store);
	replay__free(r);
	/* the live run's blank line before "Detaching..." is not part of the samples */
	while (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return buf;
}

static void test_goldens(void **state)
{
	const char *dir = getenv("GOLDEN_DIR") ?: "tests/golden";
	struct dirent *de;
	DIR *d = opendir(dir);
	int checked = 0;

	/* captured in a UTC guest; headers are local time */
	setenv("TZ", "UTC", 1);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char cap[512], out[512], *want, *got;

		if (n < 5 || strcmp(de->d_name + n - 4, ".cap") != 0)
			continue;
		snprintf(cap, sizeof(cap), "%s/%s", dir, de->d_name);
		snprintf(out, sizeof(out), "%s/%.*s.out", dir, (int)(n - 4), de->d_name);
		want = read_all(out);
		assert_non_null(want);
		while (strlen(want) && want[strlen(want) - 1] == '\n')
			want[strlen(want) - 1] = '\0';
		got = replay(cap);
		if (strcmp(got, want) != 0)
			print_error("golden mismatch for %s:\n--- want\n%s\n--- got\n%s\n", cap, want, got);
		assert_string_equal(got, want);
		assert_non_null(strstr(got, "TID/PID"));
		free(want);
		free(got);
		checked++;
	}
	closedir(d);
	assert_true(checked >= 4);	/* an empty directory must not pass */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_goldens),
	};

	return cmocka_run_group_tests_name("golden", tests, NULL, NULL);
}
