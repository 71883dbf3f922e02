// SPDX-License-Identifier: BSD-2-Clause
/*
 * The JSON sink's view of a code location (struct code_loc): kernel locations keep their
 * fields, user-space ones add the address space and the binary (path, build ID, offset),
 * and a location without source lines says why when the model knows; traced frames carry
 * the '!'/'^' markers.
 */
#include <stdio.h>
#include <string.h>
#include "unit.h"
#include <jansson.h>
#include "sink.h"
#include "seqpacket_out.h"

static const struct func funcs[] = { { .name = "<unknown>" } };

/* The sample line of a one-sample JSON run over @s. */
static json_t *render_sample(struct sample *s)
{
	struct json_sink_opts jo = { .sz = sizeof(jo) };
	char *out = NULL, *line, *save;
	json_t *sample = NULL;
	struct sink *sk;
	size_t len = 0;

	jo.out = open_memstream(&out, &len);
	sk = json_sink__new(&jo);
	assert_non_null(sk);
	assert_int_equal(sink__sample(sk, s), 0);
	sink__free(sk);
	fclose(jo.out);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *o = json_loads(line, 0, NULL);

		assert_non_null(o);
		if (strcmp(json_string_value(json_object_get(o, "type")) ?: "", "sample") == 0)
			sample = json_incref(o);
		json_decref(o);
	}
	free(out);
	assert_non_null(sample);
	return sample;
}

/* The stack of a one-sample JSON run over @frames. */
static json_t *render(struct sample_frame *frames, size_t n)
{
	struct sample s = {
		.funcs = funcs, .func_cnt = 1, .frames = frames, .frame_cnt = n, .deepest = -1,
	};
	json_t *o = render_sample(&s), *stack = json_incref(json_object_get(o, "stack"));

	json_decref(o);
	assert_non_null(stack);
	return stack;
}

static const char *str(json_t *o, const char *path)
{
	char key[64], *dot;

	snprintf(key, sizeof(key), "%s", path);
	dot = strchr(key, '.');
	if (dot) {
		*dot = '\0';
		return str(json_object_get(o, key), dot + 1);
	}
	return json_string_value(json_object_get(o, key));
}

static void test_user_and_kernel_locs(void **state)
{
	static const struct src_frame src = { "open_config", "app.c", 17, 9 };
	struct sample_frame f[3] = {
		{ .has_kframe = true, .func_id = -1, .loc = {
			.as = { ADDR_SPACE_USER, 41 }, .addr = 0x55550000123a,
			.image = { "/usr/bin/app", "0a1b2c", 0x123a },
			.sym = "open_config", .sym_start = 0x555500001230,
			.src_cnt = 1, .src = &src } },
		{ .has_kframe = true, .func_id = -1, .loc = {
			.as = { ADDR_SPACE_USER, 41 }, .addr = 0x7f0000002345,
			.image = { "/lib/libx.so", NULL, 0x2345 },
			.src_note = "no debug info" } },
		{ .has_kframe = true, .func_id = -1, .loc = {
			.as = ADDR_SPACE_KERNEL_INIT, .addr = 0xffffffff81000010,
			.image = { "vmlinux" }, .sym = "do_sys_openat2",
			.sym_start = 0xffffffff81000000 } },
	};
	json_t *st = render(f, 3), *u0 = json_array_get(st, 0), *u1 = json_array_get(st, 1);
	json_t *k = json_array_get(st, 2);

	assert_int_equal(json_array_size(st), 3);
	assert_string_equal(str(u0, "space"), "user");
	assert_string_equal(str(u0, "image.path"), "/usr/bin/app");
	assert_string_equal(str(u0, "image.build_id"), "0a1b2c");
	assert_string_equal(str(u0, "image.file_offset"), "0x123a");
	assert_string_equal(str(u0, "symbol"), "open_config");
	assert_int_equal(json_integer_value(json_object_get(u0, "offset")), 10);
	assert_string_equal(str(u0, "source.file"), "app.c");
	assert_null(json_object_get(u0, "source_missing"));

	assert_string_equal(str(u1, "image.path"), "/lib/libx.so");
	assert_null(json_object_get(json_object_get(u1, "image"), "build_id"));
	assert_null(json_object_get(u1, "symbol"));
	assert_string_equal(str(u1, "source_missing"), "no debug info");

	/* kernel locations as before: no space, no image */
	assert_null(json_object_get(k, "space"));
	assert_null(json_object_get(k, "image"));
	assert_string_equal(str(k, "symbol"), "do_sys_openat2");
	json_decref(st);
}

/* The origin and replaced markers: fields of their own and the text view's marker column. */
static void test_origin_and_replaced(void **state)
{
	struct sample_frame f[3] = {
		{ .func_id = 0, .failed = true, .res = -22 },
		{ .func_id = 0, .failed = true, .res = -22, .origin = true, .has_kframe = true },
		{ .func_id = 0, .failed = true, .res = -38, .replaced = true, .stitched = true },
	};
	json_t *st = render(f, 3);
	const char *want_marker[] = { "  ", "! ", "^*" };
	bool want_origin[] = { false, true, false }, want_replaced[] = { false, false, true };
	int i;

	for (i = 0; i < 3; i++) {
		json_t *o = json_array_get(st, i);

		assert_string_equal(str(o, "marker"), want_marker[i]);
		assert_true(json_is_boolean(json_object_get(o, "origin")));
		assert_int_equal(json_is_true(json_object_get(o, "origin")), want_origin[i]);
		assert_int_equal(json_is_true(json_object_get(o, "replaced")), want_replaced[i]);
	}
	json_decref(st);
}

/* An error passed on (SESS_F_PASSED_ON) is said, only when it was. */
static void test_error_passed_on(void **state)
{
	struct sample_frame f = { .func_id = 0, .failed = true, .res = -2, .origin = true };
	struct sample s = {
		.funcs = funcs, .func_cnt = 1, .frames = &f, .frame_cnt = 1, .deepest = 0,
		.is_err = true, .passed_on = true,
	};
	json_t *o = render_sample(&s);

	assert_true(json_is_true(json_object_get(o, "error_passed_on")));
	json_decref(o);
	s.passed_on = false;
	o = render_sample(&s);
	assert_null(json_object_get(o, "error_passed_on"));
	json_decref(o);
}

/* The final drops line: the slot-less sessions among the dropped, and the cap they met. */
static void test_drops_no_slot(void **state)
{
	struct drop_report d = {
		.dropped_sessions = 5, .no_slot = 4, .session_slots = 1024, .slots_in_table = true,
		.orphan_records = 3, .exits_missed = 2,
	};
	struct json_sink_opts jo = { .sz = sizeof(jo) };
	char *out = NULL;
	size_t len = 0;
	struct sink *sk;
	json_t *o;

	(void)state;
	jo.out = open_memstream(&out, &len);
	sk = json_sink__new(&jo);
	assert_non_null(sk);
	sink__detaching(sk, &d);
	sink__free(sk);
	fclose(jo.out);
	o = json_loads(out, JSON_DISABLE_EOF_CHECK, NULL);
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "type")), "drops");
	assert_true(json_is_true(json_object_get(o, "final")));
	assert_int_equal(json_integer_value(json_object_get(o, "dropped_samples")), 5);
	assert_int_equal(json_integer_value(json_object_get(o, "no_session_slot")), 4);
	assert_int_equal(json_integer_value(json_object_get(o, "session_slots")), 1024);
	assert_int_equal(json_integer_value(json_object_get(o, "orphan_records")), 3);
	assert_int_equal(json_integer_value(json_object_get(o, "skipped_exits")), 2);
	json_decref(o);
	free(out);
}

/* A sample's line goes out in one write through a stream buffer of 16 bytes (out_whole.h). */
static void test_sample_one_write(void **state)
{
	struct json_sink_opts jo = { .sz = sizeof(jo) };
	struct sample_frame frames[3] = {};
	struct sample s = {
		.funcs = funcs, .func_cnt = 1, .frames = frames, .frame_cnt = 3, .deepest = -1,
	};
	struct seqpacket_out sp;
	char msg[16384];
	struct sink *sk;
	json_t *o;
	size_t n;

	(void)state;
	seqpacket_out__open(&sp, 16);
	jo.out = sp.out;
	sk = json_sink__new(&jo);
	assert_non_null(sk);
	assert_int_equal(sink__sample(sk, &s), 0);
	n = seqpacket_out__next(&sp, msg, sizeof(msg) - 1);
	assert_true(n > 128);
	assert_int_equal(msg[n - 1], '\n');
	msg[n] = '\0';
	assert_null(memchr(msg, '\n', n - 1));
	o = json_loads(msg, 0, NULL);
	assert_non_null(o);
	assert_string_equal(str(o, "type"), "sample");
	json_decref(o);
	assert_int_equal(seqpacket_out__next(&sp, msg, sizeof(msg)), 0);
	sink__free(sk);
	seqpacket_out__close(&sp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_user_and_kernel_locs),
		cmocka_unit_test(test_origin_and_replaced),
		cmocka_unit_test(test_error_passed_on),
		cmocka_unit_test(test_drops_no_slot),
		cmocka_unit_test(test_sample_one_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
