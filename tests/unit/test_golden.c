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
#include <jansson.h>
#include "capture.h"
#include "render.h"
#include "result_fmt.h"

struct out_state {
	struct sample_build_opts b;	/* the capture's view: what the run showed */
	FILE *f;
};

static int on_session(void *ctx, const struct sess_recs *r)
{
	struct out_state *st = ctx;
	struct sample *s;
	int err = sample__build(r, &st->b, &s);

	if (err)
		return err;
	err = render_text__sample(st->f, s, &st->b.view);
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

/*
 * The JSON sink on the same samples: every line parses, and each sample carries the frames,
 * results and durations the text shows (checked against the text of the same sample).
 */
struct json_state {
	struct sample_build_opts b;	/* the capture's view: what the run showed */
	struct sink *json;
	char *jbuf;
	size_t jlen;
	FILE *jf;
	int samples, frames;
};

static void check_frame(json_t *f, const char *text)
{
	const char *kind = json_string_value(json_object_get(f, "kind"));
	char want[256];

	assert_non_null(kind);
	if (strcmp(kind, "kernel") == 0) {
		/* the text line shows symbol+0xoffset (or the bare address) */
		if (json_object_get(f, "symbol"))
			snprintf(want, sizeof(want), "%s+0x%llx", json_string_value(json_object_get(f, "symbol")),
				 (unsigned long long)json_integer_value(json_object_get(f, "offset")));
		else
			snprintf(want, sizeof(want), "%s", json_string_value(json_object_get(f, "addr")));
		if (!strstr(text, want))
			fail_msg("kernel frame '%s' not in the text:\n%s", want, text);
		return;
	}
	/* traced frames: "<dur>us [<result>]  <symbol+off or function>", "... [...]" running */
	if (json_is_true(json_object_get(f, "running")))
		snprintf(want, sizeof(want), "... [...]");
	else
		snprintf(want, sizeof(want), "%lldus [%s]",
			 (long long)json_integer_value(json_object_get(f, "duration_ns")) / 1000,
			 json_string_value(json_object_get(f, "result_text")));
	if (!strstr(text, want))
		fail_msg("traced frame '%s' (%s) not in the text:\n%s", want,
			 json_string_value(json_object_get(f, "function")), text);
	assert_non_null(strstr(text, json_string_value(json_object_get(f, "function"))));
}

static int on_session_json(void *ctx, const struct sess_recs *r)
{
	struct json_state *st = ctx;
	struct sample *s;
	char *tbuf = NULL, *line;
	size_t tlen = 0, i;
	FILE *tf = open_memstream(&tbuf, &tlen);
	json_error_t jerr;
	json_t *obj, *stack;
	const char *kind;

	assert_int_equal(sample__build(r, &st->b, &s), 0);
	assert_int_equal(render_text__sample(tf, s, &st->b.view), 0);
	fclose(tf);
	/* the JSON of this one sample: the last line written */
	fflush(st->jf);
	assert_int_equal(sink__sample(st->json, s), 0);
	fflush(st->jf);
	assert_true(st->jlen > 0 && st->jbuf[st->jlen - 1] == '\n');
	/* the start of the last line */
	line = st->jbuf + st->jlen - 1;
	while (line > st->jbuf && line[-1] != '\n')
		line--;
	obj = json_loads(line, 0, &jerr);
	if (!obj)
		fail_msg("not JSON (%s): %s", jerr.text, line);
	assert_string_equal(json_string_value(json_object_get(obj, "type")), "sample");
	assert_int_equal(json_integer_value(json_object_get(obj, "version")), 1);
	assert_int_equal(json_integer_value(json_object_get(obj, "tid")), s->tid);
	stack = json_object_get(obj, "stack");
	assert_true(json_is_array(stack));
	assert_int_equal(json_array_size(stack), s->frame_cnt);
	for (i = 0; i < json_array_size(stack); i++)
		check_frame(json_array_get(stack, i), tbuf);
	if (s->has_trace)
		assert_int_equal(json_array_size(json_object_get(obj, "trace")), s->row_cnt);
	/* -I: an interim sample says which kind, a probe's names the probe of its last row */
	kind = json_string_value(json_object_get(obj, "sample_kind"));
	assert_non_null(kind);
	assert_string_equal(kind, s->kind == SAMPLE_PROBE ? "probe" :
				  s->kind == SAMPLE_STITCH ? "stitch" : "final");
	if (s->kind == SAMPLE_PROBE && s->has_trace && s->row_cnt > 0) {
		assert_int_equal(s->rows[s->row_cnt - 1].kind, TRACE_PROBE);
		assert_string_equal(json_string_value(json_object_get(obj, "probe")),
				    sample__probe(s, s->rows[s->row_cnt - 1].probe_id));
	}
	st->samples++;
	st->frames += json_array_size(stack);
	json_decref(obj);
	free(tbuf);
	sample__free(s);
	return 0;
}

static void test_goldens_json(void **state)
{
	const char *dir = getenv("GOLDEN_DIR") ?: "tests/golden";
	struct dirent *de;
	DIR *d = opendir(dir);
	int files = 0;

	setenv("TZ", "UTC", 1);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		struct json_state st = {};
		struct session_store_opts so = { .sz = sizeof(so), .on_session = on_session_json,
						 .ctx = &st };
		struct json_sink_opts jo = { .sz = sizeof(jo) };
		struct session_store *store;
		struct replay *r;
		char cap[512];

		if (n < 5 || strcmp(de->d_name + n - 4, ".cap") != 0)
			continue;
		snprintf(cap, sizeof(cap), "%s/%s", dir, de->d_name);
		r = replay__open(cap);
		assert_non_null(r);
		replay__build_opts(r, &st.b);
		st.jf = open_memstream(&st.jbuf, &st.jlen);
		jo.out = st.jf;
		st.json = json_sink__new(&jo);
		assert_non_null(st.json);
		store = session_store__new(&so);
		assert_int_equal(replay__feed(r, store), 0);
		assert_true(st.samples > 0);
		assert_true(st.frames > 0);
		session_store__free(store);
		sink__free(st.json);
		fclose(st.jf);
		free(st.jbuf);
		replay__free(r);
		files++;
	}
	closedir(d);
	assert_true(files >= 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_goldens),
		cmocka_unit_test(test_goldens_json),
	};

	return cmocka_run_group_tests_name("golden", tests, NULL, NULL);
}
