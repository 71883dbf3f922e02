// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>
#include "sink_filter.h"

/* -x/-X in front of the real sink */
struct filter_sink {
	struct sink sink;
	struct sink *inner;
	struct err_filter f;
};

static int filter_sample(struct sink *sk, const struct sample *s)
{
	struct filter_sink *fs = (struct filter_sink *)sk;

	return err_filter__pass(&fs->f, s) ? sink__sample(fs->inner, s) : 0;
}

static void filter_ready(struct sink *sk)
{
	sink__ready(((struct filter_sink *)sk)->inner);
}

static void filter_drops(struct sink *sk, const struct drop_report *d)
{
	sink__drops(((struct filter_sink *)sk)->inner, d);
}

static void filter_detaching(struct sink *sk, const struct drop_report *d)
{
	sink__detaching(((struct filter_sink *)sk)->inner, d);
}

static void filter_detached(struct sink *sk, long ms, int bg_pid)
{
	sink__detached(((struct filter_sink *)sk)->inner, ms, bg_pid);
}

static void filter_command(struct sink *sk, const struct cmd_report *r)
{
	sink__command(((struct filter_sink *)sk)->inner, r);
}

/* @inner is the caller's */
static void filter_free(struct sink *sk)
{
	free(sk);
}

static const struct sink_ops filter_ops = {
	.sample = filter_sample,
	.ready = filter_ready,
	.drops = filter_drops,
	.detaching = filter_detaching,
	.detached = filter_detached,
	.command = filter_command,
	.free = filter_free,
};

struct sink *filter_sink__new(struct sink *inner, const struct err_filter *f)
{
	struct filter_sink *fs = calloc(1, sizeof(*fs));

	if (!fs)
		return NULL;
	fs->sink.ops = &filter_ops;
	fs->inner = inner;
	fs->f = *f;
	return &fs->sink;
}
