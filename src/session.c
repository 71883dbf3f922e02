// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include "opts.h"
#include "session.h"

#define DEFAULT_MAX_TRACE_RECS	(1u << 20)
#define DEFAULT_MAX_ARGS_BYTES	(64u << 20)

struct sess {
	__u64 id;
	struct rec_session_start start;
	struct rec_lbr_stack *lbr;
	struct rec_ustack *ustack;	/* -U: a copy, ustack_size bytes */
	size_t ustack_size;
	struct rec_func_trace *trace;
	size_t trace_cnt, trace_cap, trace_lost;
	struct rec_fnargs **args;	/* copies, in arrival (= seq id) order */
	size_t args_cnt, args_cap, args_lost, args_bytes;
	/* an in-band error's chain, its callers' results filled in as they return */
	struct rec_session_interim *inband;
	struct rec_lbr_stack *inband_lbr;
};

struct session_store {
	struct session_store_opts opts;
	void *root;		/* tsearch() tree of struct sess, by id */
	size_t pending;
	size_t trace_held;	/* -T records held over all open sessions */
	size_t args_held;	/* -A record bytes held over all open sessions */
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

	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	if (OPTS_COPY(&st->opts, opts) || !st->opts.on_session) {
		free(st);
		return errno = EINVAL, NULL;
	}
	if (!st->opts.max_trace_recs)
		st->opts.max_trace_recs = DEFAULT_MAX_TRACE_RECS;
	if (!st->opts.max_args_bytes)
		st->opts.max_args_bytes = DEFAULT_MAX_ARGS_BYTES;
	return st;
}

static void sess_free(void *p)
{
	struct sess *s = p;
	size_t i;

	for (i = 0; i < s->args_cnt; i++)
		free(s->args[i]);
	free(s->args);
	free(s->lbr);
	free(s->ustack);
	free(s->trace);
	free(s->inband);
	free(s->inband_lbr);
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
	st->args_held -= s->args_bytes;
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

static int add_ustack(struct session_store *st, const void *rec, size_t size)
{
	const struct rec_ustack *r = rec;
	struct sess *s;
	void *copy;

	if (r->stack_len > size - sizeof(*r))
		return -EINVAL;
	s = rec_sess(st, r->sess_id);
	if (!s)
		return 0;
	size = sizeof(*r) + r->stack_len;
	copy = malloc(size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, r, size);
	free(s->ustack);
	s->ustack = copy;
	s->ustack_size = size;
	return 0;
}

static int add_fnargs(struct session_store *st, const void *rec, size_t size)
{
	const struct rec_fnargs *r = rec;
	struct sess *s;
	void *tmp;

	if (r->data_len > size - sizeof(*r))
		return -EINVAL;
	s = rec_sess(st, r->sess_id);
	if (!s)
		return 0;
	size = sizeof(*r) + r->data_len;
	if (st->args_held + size > st->opts.max_args_bytes) {
		s->args_lost++;
		st->stats.args_lost++;
		return 0;
	}
	if (s->args_cnt == s->args_cap) {
		size_t cap = s->args_cap ? s->args_cap * 2 : 16;

		tmp = realloc(s->args, cap * sizeof(*s->args));
		if (!tmp)
			return -ENOMEM;
		s->args = tmp;
		s->args_cap = cap;
	}
	tmp = malloc(size);
	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, r, size);
	s->args[s->args_cnt++] = tmp;
	s->args_bytes += size;
	st->args_held += size;
	return 0;
}

/*
 * Hand one sample of @s to the callback: @e is its SESSION_END (or an interim sample's
 * copy of one), @in the interim record or NULL.
 */
static int deliver(struct session_store *st, struct sess *s, const struct rec_session_end *e,
		   const struct rec_session_interim *in, const struct rec_session_interim *inband)
{
	struct sess_recs recs = {};
	size_t n;
	int err;

	/* Trace records past the sample's last seq id belong to a later sample. */
	for (n = 0; n < s->trace_cnt && s->trace[n].seq_id <= e->last_seq_id; n++)
		;
	recs.start = &s->start;
	recs.end = e;
	recs.interim = in;
	recs.inband = inband;
	recs.lbr = inband ? s->inband_lbr : s->lbr;
	recs.ustack = s->ustack;
	recs.ustack_size = s->ustack_size;
	recs.trace = s->trace;
	recs.trace_cnt = n;
	recs.trace_lost = s->trace_lost;
	for (n = 0; n < s->args_cnt && s->args[n]->seq_id <= e->last_seq_id; n++)
		;
	recs.args = (const struct rec_fnargs *const *)s->args;
	recs.args_cnt = n;
	recs.args_lost = s->args_lost;
	err = st->opts.on_session(st->opts.ctx, &recs);
	/*
	 * each sample's LBR and user stack records come right before it: a later sample
	 * whose were lost has none
	 */
	free(s->lbr);
	s->lbr = NULL;
	free(s->ustack);
	s->ustack = NULL;
	return err;
}

/*
 * The chain an in-band error came from (REC_SESSION_INBAND), with the results of its
 * callers as they returned: the session's final sample when it ends well.
 */
static int add_inband(struct session_store *st, const void *rec)
{
	const struct rec_session_interim *r = rec;
	struct sess *s = rec_sess(st, r->end.sess_id);

	if (!s)
		return 0;
	if (!s->inband && !(s->inband = malloc(sizeof(*s->inband))))
		return -ENOMEM;
	*s->inband = *r;
	if (s->inband->end.stack.depth > MAX_FSTACK_DEPTH)
		s->inband->end.stack.depth = MAX_FSTACK_DEPTH;
	if (s->inband->end.stack.max_depth > MAX_FSTACK_DEPTH)
		s->inband->end.stack.max_depth = MAX_FSTACK_DEPTH;
	/* its LBR record came right before it; the session's own final one comes later */
	free(s->inband_lbr);
	s->inband_lbr = s->lbr;
	s->lbr = NULL;
	return 0;
}

/* REC_INBAND_EXIT: a caller of the in-band error's carrier returned. */
static int add_inband_exit(struct session_store *st, const void *rec)
{
	const struct rec_func_trace *r = rec;
	struct sess *s = rec_sess(st, r->sess_id);
	struct call_stack *cs;
	__u32 d;

	if (!s || !s->inband)
		return 0;
	cs = &s->inband->end.stack;
	d = r->depth - 1;
	/* the same call: its level among the running callers, its entry's seq id */
	if (r->depth == 0 || d >= cs->depth || cs->seq_ids[d] != r->seq_id ||
	    cs->func_ids[d] != r->func_id)
		return 0;
	cs->func_res[d] = r->func_res;
	cs->func_lat[d] = r->func_lat;
	return 0;
}

/*
 * The final sample of a session that ended well after an in-band error: the error's
 * chain under its callers, now returned; the outermost one's result is @e's.
 */
static int deliver_inband(struct session_store *st, struct sess *s,
			  const struct rec_session_end *e)
{
	const struct rec_session_interim *in = s->inband;
	struct rec_session_end m = in->end;	/* in stays as sent: the carrier's level */

	if (m.stack.depth > 0 && e->stack.seq_ids[0] == m.stack.seq_ids[0] &&
	    e->stack.func_ids[0] == m.stack.func_ids[0]) {
		m.stack.func_res[0] = e->stack.func_res[0];
		m.stack.func_lat[0] = e->stack.func_lat[0];
	}
	m.stack.depth = 0;	/* the callers have returned */
	m.type = REC_SESSION_END;
	m.last_seq_id = e->last_seq_id;
	m.emit_ts = e->emit_ts;
	m.dropped_records = e->dropped_records;
	/*
	 * a nested chain not kept matters if it was lost before this chain was sent; an
	 * error passed on, if it was passed on in this chain
	 */
	m.flags = (e->flags & ~(SESS_F_CHAIN_LOST | SESS_F_PASSED_ON)) |
		  (in->end.flags & (SESS_F_CHAIN_LOST | SESS_F_PASSED_ON));
	m.ignored = 0;
	m.is_err = 1;
	/* the sample's own user stack (-U) came with @e; its LBR is the chain's */
	return deliver(st, s, &m, NULL, in);
}

static int add_end(struct session_store *st, const void *rec)
{
	const struct rec_session_end *r = rec;
	struct sess *s = rec_sess(st, r->sess_id);
	int err = 0;

	if (!s)
		return 0;
	if (r->ignored)
		st->stats.ignored++;
	/* a session that failed itself reports its own error */
	else if (s->inband && (r->flags & SESS_F_INBAND) && !r->is_err)
		err = deliver_inband(st, s, r);
	else
		err = deliver(st, s, r, NULL, NULL);
	sess_forget(st, s);
	return err;
}

/* An announced session that ended unreported (filtered out or lost): drop its records. */
static int add_forget(struct session_store *st, const void *rec)
{
	const struct rec_session_forget *r = rec;
	struct sess *s = rec_sess(st, r->sess_id);

	if (!s)
		return 0;
	st->stats.ignored++;
	sess_forget(st, s);
	return 0;
}

/* -I: a sample of a running session; its records stay for the later samples. */
static int add_interim(struct session_store *st, const void *rec)
{
	const struct rec_session_interim *r = rec;
	struct sess *s = rec_sess(st, r->end.sess_id);

	if (!s)
		return 0;
	st->stats.interim++;
	return deliver(st, s, &r->end, r, NULL);
}

/*
 * What each record type must at least hold and who takes it. New record kinds (argument
 * captures, probe hits, interim samples) are rows here; old ones never change layout.
 */
static const struct rec_kind {
	size_t min_size;
	int (*add)(struct session_store *st, const void *rec);
	/* variable-size records: the size too */
	int (*add_sized)(struct session_store *st, const void *rec, size_t size);
} rec_kinds[] = {
	[REC_SESSION_START] = { sizeof(struct rec_session_start), add_start },
	[REC_FUNC_TRACE_ENTRY] = { sizeof(struct rec_func_trace), add_trace },
	[REC_FUNC_TRACE_EXIT] = { sizeof(struct rec_func_trace), add_trace },
	[REC_LBR_STACK] = { sizeof(struct rec_lbr_stack), add_lbr },
	[REC_SESSION_END] = { sizeof(struct rec_session_end), add_end },
	[REC_FNARGS] = { sizeof(struct rec_fnargs), .add_sized = add_fnargs },
	/* probe hits are placed among the -T records by their seq id */
	[REC_INJ_PROBE] = { sizeof(struct rec_func_trace), add_trace },
	[REC_SESSION_PROBE] = { sizeof(struct rec_session_interim), add_interim },
	[REC_SESSION_STITCH] = { sizeof(struct rec_session_interim), add_interim },
	/* probe contexts go with the arguments: both are found by their seq id */
	[REC_CTXARGS] = { sizeof(struct rec_fnargs), .add_sized = add_fnargs },
	[REC_USTACK] = { sizeof(struct rec_ustack), .add_sized = add_ustack },
	[REC_SESSION_INBAND] = { sizeof(struct rec_session_interim), add_inband },
	[REC_INBAND_EXIT] = { sizeof(struct rec_func_trace), add_inband_exit },
	[REC_SESSION_FORGET] = { sizeof(struct rec_session_forget), add_forget },
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
	if ((!k->add && !k->add_sized) || size < k->min_size)
		goto malformed;
	if (k->add_sized) {
		int err = k->add_sized(st, rec, size);

		if (err == -EINVAL)
			goto malformed;
		return err;
	}
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
