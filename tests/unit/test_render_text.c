// SPDX-License-Identifier: BSD-2-Clause
/*
 * The text sink's words on lost samples: while running (a warning at most every 2 s) and
 * at the end (the totals), each with the setting that helps. Samples dropped because
 * every session slot was taken name the session table's or map's setting and a larger
 * size, not the ring buffer's. A sample whose error chain or call depth BPF could not keep
 * whole says so under its stack, as its JSON does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "sink.h"
#include "render.h"
#include "sample.h"
#include "seqpacket_out.h"

enum when { WHILE_RUNNING, AT_THE_END };

/* What the text sink wrote to its error stream for @d. */
static char *warned(const struct drop_report *d, enum when when)
{
	struct text_sink_opts to = { .sz = sizeof(to), .whole_lines = true };
	char *out = NULL, *err = NULL;
	size_t out_len = 0, err_len = 0;
	struct sink *sk;

	to.out = open_memstream(&out, &out_len);
	to.err = open_memstream(&err, &err_len);
	sk = text_sink__new(&to);
	assert_non_null(sk);
	if (when == WHILE_RUNNING)
		sink__drops(sk, d);
	else
		sink__detaching(sk, d);
	sink__free(sk);
	fclose(to.out);
	fclose(to.err);
	free(out);
	return err;
}

static void test_no_slot_while_running(void **state)
{
	struct drop_report d = {
		.dropped_sessions = 2, .no_slot = 2, .session_slots = 4, .slots_in_table = true,
	};
	char *w;

	(void)state;
	w = warned(&d, WHILE_RUNNING);
	assert_string_equal(w, "WARNING! 2 samples were dropped so far, you are missing data! More threads were inside entry functions at once than the 4 session slots; consider -C bpf.session-table=8.\n");
	free(w);
	/* the sessions map's cap names its own setting */
	d.slots_in_table = false;
	d.session_slots = 4096;
	w = warned(&d, WHILE_RUNNING);
	assert_non_null(strstr(w, "than the 4096 session slots; consider -C bpf.sessions-size=8192.\n"));
	free(w);
}

static void test_ring_buffer_while_running(void **state)
{
	struct drop_report d = { .dropped_sessions = 3, .incomplete_sessions = 1 };
	char *w;

	(void)state;
	w = warned(&d, WHILE_RUNNING);
	assert_string_equal(w, "WARNING! 3 samples were dropped and 1 are incomplete so far, you are missing data! Consider increasing the ring buffer (-C bpf.ringbuf-size).\n");
	free(w);
	/* both causes: both settings */
	d.no_slot = 1;
	d.session_slots = 1024;
	d.slots_in_table = true;
	w = warned(&d, WHILE_RUNNING);
	assert_non_null(strstr(w, "(-C bpf.ringbuf-size) and the session slots (-C bpf.session-table).\n"));
	free(w);
}

static void test_no_slot_at_the_end(void **state)
{
	struct drop_report d = {
		.dropped_sessions = 4, .no_slot = 4, .session_slots = 1024, .slots_in_table = true,
	};
	char *w;

	(void)state;
	w = warned(&d, AT_THE_END);
	assert_non_null(strstr(w, "DROPPED SAMPLES:    4\n"));
	assert_non_null(strstr(w, "NO SESSION SLOT:    4 (more threads were inside entry functions at once than the 1024 session slots; -C bpf.session-table=2048 gives more)\n"));
	free(w);
	/* dropped for the ring buffer alone: no slot line */
	d.no_slot = 0;
	w = warned(&d, AT_THE_END);
	assert_non_null(strstr(w, "DROPPED SAMPLES:    4\n"));
	assert_null(strstr(w, "NO SESSION SLOT"));
	free(w);
}

/*
 * Records of a session whose start never arrived: a loss no BPF counter saw, said in the
 * final block (alone, too)
 */
static void test_orphans_at_the_end(void **state)
{
	struct drop_report d = { .orphan_records = 2 };
	char *w;

	(void)state;
	w = warned(&d, AT_THE_END);
	assert_non_null(strstr(w, "WARNING! There were dropped or incomplete data."));
	assert_non_null(strstr(w, "ORPHAN RECORDS:     2 (records of sessions whose start never arrived: what they carried is lost)\n"));
	free(w);
	d.orphan_records = 0;
	w = warned(&d, AT_THE_END);
	assert_null(strstr(w, "ORPHAN"));
	assert_null(strstr(w, "WARNING!"));
	free(w);
}

/*
 * Thread exits the kernel ran our exit program for none of: a warning of their own, and
 * the still-running note says such an exit is among its reasons
 */
static void test_skipped_exits(void **state)
{
	struct drop_report d = { .exits_missed = 4, .running_sessions = 3 };
	char *w;

	(void)state;
	w = warned(&d, AT_THE_END);
	assert_non_null(strstr(w, "WARNING! There were dropped or incomplete data."));
	assert_non_null(strstr(w, "SKIPPED EXITS:      4 (the kernel skipped retsnoop's program at these threads' exits"));
	assert_non_null(strstr(w, "Note: 3 session(s) were still running when tracing stopped (a thread inside an entry function, or one whose exit was skipped) and are not reported.\n"));
	free(w);
	d.exits_missed = 0;
	w = warned(&d, AT_THE_END);
	assert_null(strstr(w, "SKIPPED EXITS"));
	assert_null(strstr(w, "WARNING!"));
	assert_non_null(strstr(w, "(a thread inside an entry function) and are not reported.\n"));
	free(w);
}

/* What render_text__sample() wrote for @s (its stack and trace views off) */
static char *rendered(const struct sample *s)
{
	struct view_opts v = { 0 };
	size_t len = 0;
	char *out = NULL;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(render_text__sample(f, s, &v), 0);
	fclose(f);
	return out;
}

static void test_incomplete_chain_said(void **state)
{
	struct sample s = { .tid = 7, .pid = 7, .task_comm = "t", .proc_comm = "t" };
	char *w;

	(void)state;
	w = rendered(&s);
	assert_null(strstr(w, "WARNING!"));
	free(w);
	s.chain_lost = true;
	w = rendered(&s);
	assert_non_null(strstr(w, "WARNING! Error chain incomplete: "));
	assert_non_null(strstr(w, "the origin shown may be a caller of the real one.\n"));
	assert_null(strstr(w, "nested deeper"));
	free(w);
	s.chain_lost = false;
	s.truncated = true;
	w = rendered(&s);
	assert_non_null(strstr(w, "WARNING! Calls nested deeper than 64 traced levels were not recorded.\n"));
	assert_null(strstr(w, "Error chain incomplete"));
	free(w);
}

/*
 * A sample goes out in one write, whatever the stream's buffer: the output of the command
 * `retsnoop -- CMD` runs can't land inside it (out_whole.h).
 */
static void test_sample_one_write(void **state)
{
	struct text_sink_opts to = { .sz = sizeof(to) };
	struct sample s = { .tid = 7, .pid = 7, .task_comm = "t", .proc_comm = "t",
			    .chain_lost = true, .truncated = true };
	struct seqpacket_out sp;
	char msg[4096], *want;
	struct sink *sk;
	size_t n;

	(void)state;
	want = rendered(&s);
	assert_true(strlen(want) > 128);
	seqpacket_out__open(&sp, 16);
	to.out = sp.out;
	sk = text_sink__new(&to);
	assert_non_null(sk);
	assert_int_equal(sink__sample(sk, &s), 0);
	n = seqpacket_out__next(&sp, msg, sizeof(msg));
	assert_int_equal(n, strlen(want));
	assert_memory_equal(msg, want, n);
	assert_int_equal(seqpacket_out__next(&sp, msg, sizeof(msg)), 0);
	sink__free(sk);
	seqpacket_out__close(&sp);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_slot_while_running),
		cmocka_unit_test(test_ring_buffer_while_running),
		cmocka_unit_test(test_no_slot_at_the_end),
		cmocka_unit_test(test_orphans_at_the_end),
		cmocka_unit_test(test_skipped_exits),
		cmocka_unit_test(test_incomplete_chain_said),
		cmocka_unit_test(test_sample_one_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
