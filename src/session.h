/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Session reconstruction: turns the ring buffer's interleaved records of many threads
 * into complete samples, one per REC_SESSION_END. Knows nothing about rendering.
 */
#ifndef RETSNOOP_SESSION_H
#define RETSNOOP_SESSION_H

#include <stddef.h>
#include "retsnoop.h"

/* Everything recorded for one emitted session; valid only during the callback. */
struct sample {
	const struct rec_session_start *start;
	const struct rec_session_end *end;
	const struct rec_lbr_stack *lbr;	/* NULL when LBR was not captured */
	const struct rec_func_trace *trace;	/* -T records up to end->last_seq_id */
	size_t trace_cnt;
};

typedef int (*sample_cb)(void *ctx, const struct sample *s);

struct session_store_opts {
	size_t sz;		/* sizeof(struct session_store_opts) */
	sample_cb on_sample;
	void *ctx;
};

struct session_store_stats {
	size_t malformed;	/* records too short or of unknown type */
	size_t orphans;		/* records of a session whose start never arrived */
	size_t ignored;		/* sessions BPF announced and then filtered out */
};

struct session_store;

struct session_store *session_store__new(const struct session_store_opts *opts);
void session_store__free(struct session_store *st);

/*
 * Feed one raw record. Returns 0, the callback's negative error, -EINVAL for a malformed
 * record (counted, harmless to continue) or -ENOMEM.
 */
int session_store__add(struct session_store *st, const void *rec, size_t size);

/* Sessions started but not ended yet (e.g. still running at exit). */
size_t session_store__pending(const struct session_store *st);
const struct session_store_stats *session_store__stats(const struct session_store *st);

#endif
