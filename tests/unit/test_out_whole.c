// SPDX-License-Identifier: BSD-2-Clause
/*
 * out_whole: a record goes out in one write(2), after what the stream's buffer held, so the
 * output of the command `retsnoop -- CMD` runs (which shares our standard output) can only
 * land between records. The oracle counts writes: each write(2) on a SOCK_SEQPACKET socket
 * is one message to its peer. The sinks' tests (test_sink_json.c, test_render_text.c) use
 * the same pair for a whole sample.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "out_whole.h"
#include "seqpacket_out.h"

static void test_one_write(void **state)
{
	struct seqpacket_out sp;
	size_t big = 20000, n;
	char *rec = malloc(big), *msg = malloc(big + 1);

	(void)state;
	assert_non_null(rec);
	assert_non_null(msg);
	memset(rec, 'x', big);
	rec[big - 1] = '\n';
	seqpacket_out__open(&sp, 64);
	/* a line stdio still holds goes first, on its own */
	fprintf(sp.out, "held\n");
	assert_int_equal(out_whole__write(sp.out, rec, big), 0);
	n = seqpacket_out__next(&sp, msg, big + 1);
	assert_int_equal(n, 5);
	assert_memory_equal(msg, "held\n", 5);
	/* then the record, 20,000 bytes through a 64-byte stdio buffer, in one piece */
	n = seqpacket_out__next(&sp, msg, big + 1);
	assert_int_equal(n, big);
	assert_memory_equal(msg, rec, big);
	assert_int_equal(seqpacket_out__next(&sp, msg, big + 1), 0);
	seqpacket_out__close(&sp);
	free(rec);
	free(msg);
}

/* A stream without a descriptor (the sinks' tests write to memory) gets it through stdio. */
static void test_memory_stream(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(m);
	fprintf(m, "a ");
	assert_int_equal(out_whole__write(m, "record\n", 7), 0);
	assert_int_equal(len, 9);
	assert_memory_equal(buf, "a record\n", 9);
	fclose(m);
	free(buf);
}

/* A write error comes back as an errno: the reader gone. */
static void test_write_error(void **state)
{
	struct seqpacket_out sp;

	(void)state;
	seqpacket_out__open(&sp, 64);
	close(sp.peer);
	sp.peer = -1;
	assert_int_equal(out_whole__write(sp.out, "x\n", 2), -EPIPE);
	seqpacket_out__close(&sp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_write),
		cmocka_unit_test(test_memory_stream),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
