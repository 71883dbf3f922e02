// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include "opts.h"
#include "session.h"

#define DEFAULT_MAX_TRACE_RECS	(1u << 20)

struct sess {
	__u64 id;
	struct rec_session_start start;
	struct rec_lbr_stack *lbr;
	struct rec_func_trace *trace;
	size_t trace_cnt, trace_cap, trace_lost;
};

struct session_store {
	struct session_store_opts opts;
	void *root;		/* tsearch() tree of struct sess, by id */
	size_t pending;
	size_t trace_held;	/* -T records held over all open sessions */
	struct session_store_stats stats;
};

static int sess_cmp(const void *a, const void *b)
{
	__u64 x = ((const struct sess *)a)->id, y = ((const struct sess *)b)->id;

	return x < y ? -1 : x > y;
}

struct session_store *session_store__new(const struct session_store_opts *opts)
{
	struct session_store *st;

	if (!opts__valid(opts, sizeof(*opts)) || !opts->on_session)
		return errno = EINVAL, NULL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	OPTS_COPY(&st->opts, opts);
	if (!st->opts.max_trace_recs)
		st->opts.max_trace_recs = DEFAULT_MAX_TRACE_RECS;
	return st;
}

static void sess_free(void *p)
{
	struct sess *s = p;

	free(s->lbr);
	free(s->trace);
	free(s);
}

void session_store__free(struct session_store *st)
{
	if (!st)
		return;
	tdestroy(st->root, sess_free);
	free(st);
}

static struct sess *sess_find(struct session_store *st, __u64 id)
{
	struct sess key = { .id = id };
	void *n = tfind(&key, &st->root, sess_cmp);

	return n ? *(struct sess **)n : NULL;
}

static void sess_forget(struct session_store *st, struct sess *s)
{
	tdelete(s, &st->root, sess_cmp);
	st->trace_held -= s->trace_cnt;
	sess_free(s);
	st->pending--;
}

/* The session @rec belongs to (every record carries its id right after the type). */
static struct sess *rec_sess(struct session_store *st, __u64 id)
{
	struct sess *s = sess_find(st, id);

	if (!s)
		st->stats.orphans++;
	return s;
}

static int add_start(struct session_store *st, const void *rec)
{
	const struct rec_session_start *r = rec;
	struct sess *s = sess_find(st, r->sess_id);

	if (s)	/* ids never repeat within a run; a stale duplicate is replaced */
		sess_forget(st, s);
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->id = r->sess_id;
	s->start = *r;
	if (!tsearch(s, &st->root, sess_cmp)) {
		free(s);
		return -ENOMEM;
	}
	st->pending++;
	return 0;
}

static int add_trace(struct session_store *st, const void *rec)
{
	const struct rec_func_trace *r = rec;
	struct sess *s = rec_sess(st, r->sess_id);
	void *tmp;

	if (!s)
		return 0;
	if (st->trace_held >= st->opts.max_trace_recs) {
		s->trace_lost++;
		st->stats.trace_lost++;
		return 0;
	}
	if (s->trace_cnt == s->trace_cap) {
		size_t cap = s->trace_cap ? s->trace_cap * 2 : 64;

		tmp = realloc(s->trace, cap * sizeof(*s->trace));
		if (!tmp)
			return -ENOMEM;
		s->trace = tmp;
		s->trace_cap = cap;
	}
	s->trace[s->trace_cnt++] = *r;
	st->trace_held++;
	return 0;
}

static int add_lbr(struct session_store *st, const void *rec)
{
	const struct rec_lbr_stack *r = rec;
	struct sess *s = rec_sess(st, r->sess_id);

	if (!s)
		return 0;
	if (!s->lbr && !(s->lbr = malloc(sizeof(*s->lbr))))
		return -ENOMEM;
	*s->lbr = *r;
	return 0;
}

static int add_end(struct session_store *st, const void *rec)
{
	const struct rec_session_end *r = rec;
	struct sess *s = rec_sess(st, r->sess_id);
	struct sess_recs recs = {};
	size_t n;
	int err = 0;

	if (!s)
		return 0;
	if (r->ignored) {
		st->stats.ignored++;
		goto out;
	}
	/* Trace records past the sample's last seq id belong to a later sample. */
	for (n = 0; n < s->trace_cnt && s->trace[n].seq_id <= r->last_seq_id; n++)
		;
	recs.start = &s->start;
	recs.end = r;
	recs.lbr = s->lbr;
	recs.trace = s->trace;
	recs.trace_cnt = n;
	recs.trace_lost = s->trace_lost;
	err = st->opts.on_session(st->opts.ctx, &recs);
out:
	sess_forget(st, s);
	return err;
}

/*
 * What each record type must at least hold and who takes it. New record kinds (argument
 * captures, probe hits, interim samples) are rows here; old ones never change layout.
 */
static const struct rec_kind {
	size_t min_size;
	int (*add)(struct session_store *st, const void *rec);
} rec_kinds[] = {
	[REC_SESSION_START] = { sizeof(struct rec_session_start), add_start },
	[REC_FUNC_TRACE_ENTRY] = { sizeof(struct rec_func_trace), add_trace },
	[REC_FUNC_TRACE_EXIT] = { sizeof(struct rec_func_trace), add_trace },
	[REC_LBR_STACK] = { sizeof(struct rec_lbr_stack), add_lbr },
	[REC_SESSION_END] = { sizeof(struct rec_session_end), add_end },
};

int session_store__add(struct session_store *st, const void *rec, size_t size)
{
	const struct rec_kind *k;
	__u32 type;

	if (size < sizeof(type))
		goto malformed;
	memcpy(&type, rec, sizeof(type));
	if (type >= sizeof(rec_kinds) / sizeof(rec_kinds[0]))
		goto malformed;
	k = &rec_kinds[type];
	if (!k->add || size < k->min_size)
		goto malformed;
	return k->add(st, rec);
malformed:
	st->stats.malformed++;
	return -EINVAL;
}

size_t session_store__pending(const struct session_store *st)
{
	return st->pending;
}

const struct session_store_stats *session_store__stats(const struct session_store *st)
{
	return &st->stats;
}
