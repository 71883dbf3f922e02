// SPDX-License-Identifier: BSD-2-Clause
/*
 * consumer_bench CAPTURE ROUNDS: decode and render a real recorded stream ROUNDS times
 * (output to /dev/null) and report records/s and samples/s of the user-space half:
 * session reconstruction plus the text renderer with the run's symbol answers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "capture.h"
#include "render.h"
#include "sample.h"
#include "session.h"
#include "sink.h"

struct state {
	struct sample_build_opts b;	/* its view is the run's: what to decode and show */
	FILE *out;
	long samples;
};

/* one session's records: decoded into a sample, rendered as retsnoop's text sink would */
static int on_session(void *ctx, const struct sess_recs *r)
{
	struct state *st = ctx;
	struct sample *s;
	int err;

	err = sample__build(r, &st->b, &s);
	if (err)
		return err;
	st->samples++;
	err = render_text__sample(st->out, s, &st->b.view);
	sample__free(s);
	return err;
}

int main(int argc, char **argv)
{
	struct state st = {};
	struct session_store_opts so = { .sz = sizeof(so), .on_session = on_session, .ctx = &st };
	struct session_store *store;
	struct timespec a, b;
	struct replay *r;
	long rounds, recs, i;
	double secs;

	if (argc < 3) {
		fprintf(stderr, "usage: consumer_bench CAPTURE ROUNDS\n");
		return 2;
	}
	rounds = atol(argv[2]);
	r = replay__open(argv[1]);
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	replay__build_opts(r, &st.b);
	st.out = fopen("/dev/null", "we");
	store = session_store__new(&so);
	if (!st.out || !store)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	/* each round's SESSION_START re-creates the sessions the previous round ended */
	for (i = 0; i < rounds; i++)
		if (replay__feed(r, store))
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	recs = replay__record_cnt(r) * rounds;
	secs = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	printf("records %ld samples %ld seconds %.3f records_per_s %.0f samples_per_s %.0f\n",
	       recs, st.samples, secs, recs / secs, st.samples / secs);
	session_store__free(store);
	replay__free(r);
	fclose(st.out);
	return 0;
}
