// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include "session.h"

struct sess {
	__u64 id;
	struct rec_session_start start;
	struct rec_lbr_stack *lbr;
	struct rec_func_trace *trace;
	size_t trace_cnt, trace_cap;
};

struct session_store {
	struct session_store_opts opts;
	void *root;		/* tsearch() tree of struct sess, by id */
	size_t pending;
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

	if (!opts || opts->sz < sizeof(*opts) || !opts->on_sample)
		return errno = EINVAL, NULL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->opts = *opts;
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
	sess_free(s);
	st->pending--;
}

static int add_start(struct session_store *st, const struct rec_session_start *r)
{
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

static int add_trace(struct session_store *st, const struct rec_func_trace *r)
{
	struct sess *s = sess_find(st, r->sess_id);
	void *tmp;

	if (!s) {
		st->stats.orphans++;
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
	return 0;
}

static int add_lbr(struct session_store *st, const struct rec_lbr_stack *r)
{
	struct sess *s = sess_find(st, r->sess_id);

	if (!s) {
		st->stats.orphans++;
		return 0;
	}
	if (!s->lbr && !(s->lbr = malloc(sizeof(*s->lbr))))
		return -ENOMEM;
	*s->lbr = *r;
	return 0;
}

static int add_end(struct session_store *st, const struct rec_session_end *r)
{
	struct sess *s = sess_find(st, r->sess_id);
	struct sample smp = {};
	size_t n;
	int err = 0;

	if (!s) {
		st->stats.orphans++;
		return 0;
	}
	if (r->ignored) {
		st->stats.ignored++;
		goto out;
	}
	/* Trace records past the sample's last seq id belong to a later sample. */
	for (n = 0; n < s->trace_cnt && s->trace[n].seq_id <= r->last_seq_id; n++)
		;
	smp.start = &s->start;
	smp.end = r;
	smp.lbr = s->lbr;
	smp.trace = s->trace;
	smp.trace_cnt = n;
	err = st->opts.on_sample(st->opts.ctx, &smp);
out:
	sess_forget(st, s);
	return err;
}

int session_store__add(struct session_store *st, const void *rec, size_t size)
{
	__u32 type;

	if (size < sizeof(type))
		goto malformed;
	memcpy(&type, rec, sizeof(type));
	switch (type) {
	case REC_SESSION_START:
		if (size < sizeof(struct rec_session_start))
			goto malformed;
		return add_start(st, rec);
	case REC_FUNC_TRACE_ENTRY:
	case REC_FUNC_TRACE_EXIT:
		if (size < sizeof(struct rec_func_trace))
			goto malformed;
		return add_trace(st, rec);
	case REC_LBR_STACK:
		if (size < sizeof(struct rec_lbr_stack))
			goto malformed;
		return add_lbr(st, rec);
	case REC_SESSION_END:
		if (size < sizeof(struct rec_session_end))
			goto malformed;
		return add_end(st, rec);
	}
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
