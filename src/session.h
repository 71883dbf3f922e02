/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Session store: turns the ring buffer's interleaved records of many threads into the
 * complete record set of each sample: one per REC_SESSION_END, which ends the session, and
 * one per interim sample (-I), after which the session goes on. It only groups records;
 * decoding them into a sample is sample_build's job.
 */
#ifndef RETSNOOP_SESSION_H
#define RETSNOOP_SESSION_H

#include <stddef.h>
#include "records.h"

/*
 * The records of one sample of a session; valid only during the callback. A session has
 * one final sample (REC_SESSION_END) and with -I any number of interim ones before it.
 */
struct sess_recs {
	const struct rec_session_start *start;
	const struct rec_session_end *end;	/* for interim samples: &interim->end */
	const struct rec_session_interim *interim;	/* NULL for the final sample */
	/*
	 * A final sample of a session that ended well after an in-band error
	 * (REC_SESSION_INBAND): end is that error's chain under its callers, this record
	 * says which carrier took which error. NULL otherwise.
	 */
	const struct rec_session_interim *inband;
	const struct rec_lbr_stack *lbr;	/* NULL when none arrived */
	const struct rec_ustack *ustack;	/* -U: NULL when none arrived */
	size_t ustack_size;			/* bytes of it, the stack window included */
	/* -T records (and -J probe hits) up to end->last_seq_id, in seq id order */
	const struct rec_func_trace *trace;
	size_t trace_cnt;
	size_t trace_lost;			/* -T records not kept (memory budget) */
	/* -A records (REC_FNARGS and -J hits' REC_CTXARGS) up to end->last_seq_id */
	const struct rec_fnargs *const *args;
	size_t args_cnt;
	size_t args_lost;			/* -A records not kept (memory budget) */
};

typedef int (*sess_recs_cb)(void *ctx, const struct sess_recs *r);

struct session_store_opts {
	size_t sz;		/* sizeof(struct session_store_opts) */
	sess_recs_cb on_session;
	void *ctx;
	/*
	 * -T records kept for all open sessions together (0: 1M, about 48 MB); beyond it a
	 * session's further records are counted as lost, so a session that never ends can't
	 * grow memory without bound.
	 */
	size_t max_trace_recs;
	/* -A record bytes kept for all open sessions together (0: 64 MB), likewise */
	size_t max_args_bytes;
};

struct session_store_stats {
	size_t malformed;	/* records too short or of unknown type */
	size_t orphans;		/* records of a session whose start never arrived */
	size_t ignored;		/* sessions BPF announced and then filtered out */
	size_t interim;		/* interim samples delivered */
	size_t trace_lost;	/* -T records over the memory budget */
	size_t args_lost;	/* -A records over the memory budget */
};

struct session_store;

struct session_store *session_store__new(const struct session_store_opts *opts);
void session_store__free(struct session_store *st);

/*
 * Feed one raw record, read in place (8-byte aligned, as the ring buffer and capture files
 * keep records). Returns 0, the callback's negative error, -EINVAL for a malformed
 * record (counted, harmless to continue) or -ENOMEM.
 */
int session_store__add(struct session_store *st, const void *rec, size_t size);

/* Sessions started but not ended yet (e.g. still running at exit). */
size_t session_store__pending(const struct session_store *st);
const struct session_store_stats *session_store__stats(const struct session_store *st);

#endif
