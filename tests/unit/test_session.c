// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "session.h"

struct seen {
	int cnt;
	__u64 ids[8];
	size_t trace_cnt[8];
	bool has_lbr[8];
	size_t args_cnt[8], args_lost[8];
	__u32 first_args_seq[8];
	__u32 first_args_len[8];
	int probe_id[8];		/* interim samples' probe id, -2 for final samples */
	__u32 type[8];
};

static int on_sample(void *ctx, const struct sess_recs *s)
{
	struct seen *seen = ctx;

	assert_int_equal(s->start->sess_id, s->end->sess_id);
	seen->ids[seen->cnt] = s->end->sess_id;
	seen->trace_cnt[seen->cnt] = s->trace_cnt;
	seen->has_lbr[seen->cnt] = s->lbr != NULL;
	seen->probe_id[seen->cnt] = s->interim ? s->interim->probe_id : -2;
	seen->type[seen->cnt] = s->end->type;
	if (s->interim)
		assert_ptr_equal(s->end, &s->interim->end);
	seen->args_cnt[seen->cnt] = s->args_cnt;
	seen->args_lost[seen->cnt] = s->args_lost;
	if (s->args_cnt) {
		seen->first_args_seq[seen->cnt] = s->args[0]->seq_id;
		seen->first_args_len[seen->cnt] = s->args[0]->data_len;
	}
	seen->cnt++;
	return 0;
}

static struct session_store *store(struct seen *seen)
{
	struct session_store_opts opts = { .sz = sizeof(opts), .on_session = on_sample, .ctx = seen };
	struct session_store *st = session_store__new(&opts);

	assert_non_null(st);
	return st;
}

static void start(struct session_store *st, __u64 id)
{
	struct rec_session_start r = { .type = REC_SESSION_START, .sess_id = id, .pid = 100 + id };

	assert_int_equal(session_store__add(st, &r, sizeof(r)), 0);
}

static void trace(struct session_store *st, __u64 id, __u32 type, __u32 seq)
{
	struct rec_func_trace r = { .type = type, .sess_id = id, .seq_id = seq };

	assert_int_equal(session_store__add(st, &r, sizeof(r)), 0);
}

static void end(struct session_store *st, __u64 id, __u32 last_seq, bool ignored)
{
	struct rec_session_end *r = calloc(1, sizeof(*r));

	r->type = REC_SESSION_END;
	r->sess_id = id;
	r->last_seq_id = last_seq;
	r->ignored = ignored;
	assert_int_equal(session_store__add(st, r, sizeof(*r)), 0);
	free(r);
}

static void test_interleaved_threads(void **state)
{
	struct seen seen = {};
	struct session_store *st = store(&seen);
	struct rec_lbr_stack lbr = { .type = REC_LBR_STACK, .sess_id = 2 };

	start(st, 1);
	start(st, 2);
	trace(st, 1, REC_FUNC_TRACE_ENTRY, 0);
	trace(st, 2, REC_FUNC_TRACE_ENTRY, 0);
	trace(st, 2, REC_FUNC_TRACE_EXIT, 1);
	assert_int_equal(session_store__add(st, &lbr, sizeof(lbr)), 0);
	assert_int_equal(session_store__pending(st), 2);
	end(st, 2, 1, false);
	trace(st, 1, REC_FUNC_TRACE_EXIT, 1);
	end(st, 1, 1, false);

	assert_int_equal(seen.cnt, 2);
	assert_int_equal(seen.ids[0], 2);
	assert_int_equal(seen.trace_cnt[0], 2);
	assert_true(seen.has_lbr[0]);
	assert_int_equal(seen.ids[1], 1);
	assert_int_equal(seen.trace_cnt[1], 2);
	assert_false(seen.has_lbr[1]);
	assert_int_equal(session_store__pending(st), 0);
	session_store__free(st);
}

static void test_trace_cut_at_last_seq(void **state)
{
	struct seen seen = {};
	struct session_store *st = store(&seen);

	start(st, 7);
	trace(st, 7, REC_FUNC_TRACE_ENTRY, 0);
	trace(st, 7, REC_FUNC_TRACE_EXIT, 1);
	trace(st, 7, REC_FUNC_TRACE_ENTRY, 2);
	end(st, 7, 1, false);
	assert_int_equal(seen.cnt, 1);
	assert_int_equal(seen.trace_cnt[0], 2);
	session_store__free(st);
}

/* -J hits are placed among the -T records; a hit after the sample's last seq id is not its own. */
static void test_probe_hits(void **state)
{
	struct seen seen = {};
	struct session_store *st = store(&seen);

	start(st, 3);
	trace(st, 3, REC_FUNC_TRACE_ENTRY, 0);
	trace(st, 3, REC_INJ_PROBE, 1);
	trace(st, 3, REC_FUNC_TRACE_EXIT, 2);
	trace(st, 3, REC_INJ_PROBE, 3);
	end(st, 3, 2, false);
	assert_int_equal(seen.cnt, 1);
	assert_int_equal(seen.trace_cnt[0], 3);
	assert_int_equal(session_store__stats(st)->malformed, 0);
	session_store__free(st);
}

static void interim(struct session_store *st, __u64 id, __u32 type, __u32 last_seq, int probe)
{
	struct rec_session_interim *r = calloc(1, sizeof(*r));

	r->end.type = type;
	r->end.sess_id = id;
	r->end.last_seq_id = last_seq;
	r->probe_id = probe;
	assert_int_equal(session_store__add(st, r, sizeof(*r)), 0);
	free(r);
}

/*
 * -I: interim samples come before the final one, each with the -T records up to its own
 * last seq id, and the session stays open; an LBR record goes with the next sample only.
 */
static void test_interim_samples(void **state)
{
	struct seen seen = {};
	struct session_store *st = store(&seen);
	struct rec_lbr_stack lbr = { .type = REC_LBR_STACK, .sess_id = 5 };
	struct rec_session_interim *short_rec;

	start(st, 5);
	trace(st, 5, REC_FUNC_TRACE_ENTRY, 0);
	trace(st, 5, REC_INJ_PROBE, 1);
	assert_int_equal(session_store__add(st, &lbr, sizeof(lbr)), 0);
	interim(st, 5, REC_SESSION_PROBE, 1, 3);
	trace(st, 5, REC_FUNC_TRACE_ENTRY, 2);
	trace(st, 5, REC_FUNC_TRACE_EXIT, 3);
	trace(st, 5, REC_FUNC_TRACE_ENTRY, 4);
	interim(st, 5, REC_SESSION_STITCH, 3, -1);
	assert_int_equal(session_store__pending(st), 1);
	trace(st, 5, REC_FUNC_TRACE_EXIT, 5);
	trace(st, 5, REC_FUNC_TRACE_EXIT, 6);
	end(st, 5, 6, false);

	assert_int_equal(seen.cnt, 3);
	assert_int_equal(seen.type[0], REC_SESSION_PROBE);
	assert_int_equal(seen.probe_id[0], 3);
	assert_int_equal(seen.trace_cnt[0], 2);
	assert_true(seen.has_lbr[0]);
	assert_int_equal(seen.type[1], REC_SESSION_STITCH);
	assert_int_equal(seen.probe_id[1], -1);
	assert_int_equal(seen.trace_cnt[1], 4);
	assert_false(seen.has_lbr[1]);
	assert_int_equal(seen.type[2], REC_SESSION_END);
	assert_int_equal(seen.probe_id[2], -2);
	assert_int_equal(seen.trace_cnt[2], 7);
	assert_false(seen.has_lbr[2]);
	assert_int_equal(session_store__stats(st)->interim, 2);
	assert_int_equal(session_store__pending(st), 0);

	/* an interim record of an unknown session is an orphan, a short one malformed */
	interim(st, 9, REC_SESSION_PROBE, 0, 0);
	assert_int_equal(session_store__stats(st)->orphans, 1);
	short_rec = calloc(1, sizeof(*short_rec));
	short_rec->end.type = REC_SESSION_STITCH;
	assert_int_equal(session_store__add(st, short_rec, sizeof(short_rec->end)), -EINVAL);
	free(short_rec);
	session_store__free(st);
}

static void test_ignored_and_orphans(void **state)
{
	struct seen seen = {};
	struct session_store *st = store(&seen);

	struct rec_session_forget f = { .type = REC_SESSION_FORGET, .sess_id = 6 };

	start(st, 3);
	end(st, 3, 0, true);		/* filtered in BPF: forget, emit nothing */
	end(st, 4, 0, false);		/* start lost */
	trace(st, 5, REC_FUNC_TRACE_ENTRY, 0);
	/* the short record BPF sends for an announced session that ends unreported */
	start(st, 6);
	trace(st, 6, REC_FUNC_TRACE_ENTRY, 0);
	assert_int_equal(session_store__pending(st), 1);
	assert_int_equal(session_store__add(st, &f, sizeof(f)), 0);
	assert_int_equal(session_store__add(st, &f, sizeof(f) - 1), -EINVAL);
	assert_int_equal(seen.cnt, 0);
	assert_int_equal(session_store__stats(st)->ignored, 2);
	assert_int_equal(session_store__stats(st)->orphans, 2);
	assert_int_equal(session_store__pending(st), 0);
	session_store__free(st);
}

static void test_malformed(void **state)
{
	struct seen seen = {};
	struct session_store *st = store(&seen);
	__u32 bad_type = 99, start_type = REC_SESSION_START;
	char buf[8] = {};

	assert_int_equal(session_store__add(st, &bad_type, sizeof(bad_type)), -EINVAL);
	assert_int_equal(session_store__add(st, buf, 2), -EINVAL);
	memcpy(buf, &start_type, sizeof(start_type));
	assert_int_equal(session_store__add(st, buf, sizeof(buf)), -EINVAL);	/* truncated */
	assert_int_equal(session_store__stats(st)->malformed, 3);
	/* still usable */
	start(st, 1);
	end(st, 1, 0, false);
	assert_int_equal(seen.cnt, 1);
	session_store__free(st);
}

static void test_sessions_leak_free(void **state)
{
	struct seen seen = {};
	struct session_store *st = store(&seen);
	int i;

	for (i = 0; i < 100; i++) {
		start(st, i);
		trace(st, i, REC_FUNC_TRACE_ENTRY, 0);
	}
	assert_int_equal(session_store__pending(st), 100);
	session_store__free(st);	/* ASan reports leaks of pending sessions */
}

static int fnargs(struct session_store *st, __u64 id, __u32 seq, __u32 data_len, size_t size)
{
	union {
		struct rec_fnargs r;
		__u8 raw[256];
	} b = {};

	b.r.type = REC_FNARGS;
	b.r.sess_id = id;
	b.r.seq_id = seq;
	b.r.data_len = data_len;
	memset(b.r.data, 0xab, data_len < 128 ? data_len : 128);
	return session_store__add(st, &b, size);
}

/* -A records: kept per session, cut at the sample's last seq id, budgeted, checked. */
static void test_fnargs(void **state)
{
	struct seen seen = {};
	struct session_store_opts opts = {
		.sz = sizeof(opts), .on_session = on_sample, .ctx = &seen,
		.max_args_bytes = 3 * (sizeof(struct rec_fnargs) + 16),
	};
	struct session_store *st = session_store__new(&opts);
	const size_t hdr = sizeof(struct rec_fnargs);

	assert_non_null(st);
	start(st, 1);
	assert_int_equal(fnargs(st, 1, 0, 16, hdr + 16), 0);
	assert_int_equal(fnargs(st, 1, 1, 8, hdr + 8), 0);
	/* data_len beyond the record: malformed, not kept */
	assert_int_equal(fnargs(st, 1, 2, 64, hdr + 8), -EINVAL);
	assert_int_equal(session_store__stats(st)->malformed, 1);
	/* header only: too short */
	assert_int_equal(fnargs(st, 1, 2, 0, hdr - 4), -EINVAL);
	assert_int_equal(fnargs(st, 1, 3, 16, hdr + 16), 0);
	/* over the byte budget: counted as lost */
	assert_int_equal(fnargs(st, 1, 4, 16, hdr + 16), 0);
	assert_int_equal(session_store__stats(st)->args_lost, 1);
	/* no session: orphan */
	assert_int_equal(fnargs(st, 9, 0, 0, hdr), 0);
	assert_int_equal(session_store__stats(st)->orphans, 1);
	end(st, 1, 2, false);
	assert_int_equal(seen.cnt, 1);
	/* seq 3 belongs to a later sample */
	assert_int_equal(seen.args_cnt[0], 2);
	assert_int_equal(seen.first_args_seq[0], 0);
	assert_int_equal(seen.first_args_len[0], 16);
	assert_int_equal(seen.args_lost[0], 1);
	/* the budget is free again once the session is gone */
	start(st, 2);
	assert_int_equal(fnargs(st, 2, 0, 16, hdr + 16), 0);
	assert_int_equal(fnargs(st, 2, 1, 16, hdr + 16), 0);
	assert_int_equal(fnargs(st, 2, 2, 16, hdr + 16), 0);
	end(st, 2, 2, false);
	assert_int_equal(seen.args_cnt[1], 3);
	assert_int_equal(seen.args_lost[1], 0);
	session_store__free(st);
}

struct inband_seen {
	int cnt;
	bool inband[2], has_lbr[2];
	int level[2], err[2];
	__u8 is_err[2];
	__u32 depth[2], max_depth[2], last_seq[2];
	__s64 res[2][4];
	__u64 lat[2][4];
};

static int on_inband(void *ctx, const struct sess_recs *r)
{
	struct inband_seen *seen = ctx;
	int i = seen->cnt++, d;

	assert_true(i < 2);
	seen->inband[i] = r->inband != NULL;
	seen->has_lbr[i] = r->lbr != NULL;
	seen->level[i] = r->inband ? (int)r->inband->end.stack.depth : -1;
	seen->err[i] = r->inband ? r->inband->err : 0;
	seen->is_err[i] = r->end->is_err;
	seen->depth[i] = r->end->stack.depth;
	seen->max_depth[i] = r->end->stack.max_depth;
	seen->last_seq[i] = r->end->last_seq_id;
	for (d = 0; d < 4; d++) {
		seen->res[i][d] = r->end->stack.func_res[d];
		seen->lat[i][d] = r->end->stack.func_lat[d];
	}
	return 0;
}

static void inband_exit(struct session_store *st, __u64 id, __u32 func, __u32 depth,
			__u32 seq, __s64 res, __u64 lat)
{
	struct rec_func_trace r = {
		.type = REC_INBAND_EXIT, .sess_id = id, .func_id = func, .depth = depth,
		.seq_id = seq, .func_res = res, .func_lat = lat,
	};

	assert_int_equal(session_store__add(st, &r, sizeof(r)), 0);
}

/*
 * An error handed back in a netlink ack: the chain sent at the carrier's entry, its
 * callers' results as they return, the outermost one's from the session's end, which
 * ended well. A session that failed itself reports its own chain.
 */
static void test_inband(void **state)
{
	struct inband_seen seen = {};
	struct session_store_opts opts = { .sz = sizeof(opts), .on_session = on_inband, .ctx = &seen };
	struct session_store *st = session_store__new(&opts);
	struct rec_lbr_stack lbr = { .type = REC_LBR_STACK, .sess_id = 7 };
	struct rec_session_interim *in = calloc(1, sizeof(*in));
	struct rec_session_end *e = calloc(1, sizeof(*e));
	__u32 d;

	assert_non_null(st);
	start(st, 7);
	assert_int_equal(session_store__add(st, &lbr, sizeof(lbr)), 0);
	in->end.type = REC_SESSION_INBAND;
	in->end.sess_id = 7;
	in->end.is_err = 1;
	in->end.stack.depth = 3;	/* callers: levels 0-2; the chain: 3-4 */
	in->end.stack.max_depth = 5;
	for (d = 0; d < 5; d++) {
		in->end.stack.func_ids[d] = 10 + d;
		in->end.stack.seq_ids[d] = d;
	}
	in->end.stack.func_res[3] = in->end.stack.func_res[4] = -95;
	in->probe_id = 20;
	in->err = -95;
	assert_int_equal(session_store__add(st, in, sizeof(*in)), 0);
	/* not the same call (seq id, function), or not a caller: ignored */
	inband_exit(st, 7, 12, 3, 9, -1, 1);
	inband_exit(st, 7, 11, 3, 2, -1, 1);
	inband_exit(st, 7, 13, 4, 3, -1, 1);
	inband_exit(st, 7, 12, 3, 2, 0, 50);
	inband_exit(st, 7, 11, 2, 1, 60, 70);
	e->type = REC_SESSION_END;
	e->sess_id = 7;
	e->last_seq_id = 20;
	e->flags = SESS_F_INBAND;
	e->stack.func_ids[0] = 10;
	e->stack.func_res[0] = 60;
	e->stack.func_lat[0] = 99;
	e->stack.max_depth = 2;
	assert_int_equal(session_store__add(st, e, sizeof(*e)), 0);

	assert_int_equal(seen.cnt, 1);
	assert_true(seen.inband[0]);
	assert_true(seen.has_lbr[0]);	/* the chain's, sent before it */
	assert_int_equal(seen.level[0], 3);
	assert_int_equal(seen.err[0], -95);
	assert_int_equal(seen.is_err[0], 1);
	assert_int_equal(seen.depth[0], 0);
	assert_int_equal(seen.max_depth[0], 5);
	assert_int_equal(seen.last_seq[0], 20);
	assert_int_equal(seen.res[0][0], 60);
	assert_int_equal(seen.lat[0][0], 99);
	assert_int_equal(seen.res[0][1], 60);
	assert_int_equal(seen.lat[0][1], 70);
	assert_int_equal(seen.res[0][2], 0);
	assert_int_equal(seen.lat[0][2], 50);
	assert_int_equal(seen.res[0][3], -95);

	/* the syscall failed too: its own chain */
	start(st, 8);
	in->end.sess_id = 8;
	assert_int_equal(session_store__add(st, in, sizeof(*in)), 0);
	e->sess_id = 8;
	e->is_err = 1;
	e->stack.func_res[0] = -22;
	assert_int_equal(session_store__add(st, e, sizeof(*e)), 0);
	assert_int_equal(seen.cnt, 2);
	assert_false(seen.inband[1]);
	assert_int_equal(seen.max_depth[1], 2);
	assert_int_equal(seen.res[1][0], -22);
	assert_int_equal(session_store__pending(st), 0);
	free(in);
	free(e);
	session_store__free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interleaved_threads),
		cmocka_unit_test(test_trace_cut_at_last_seq),
		cmocka_unit_test(test_probe_hits),
		cmocka_unit_test(test_interim_samples),
		cmocka_unit_test(test_ignored_and_orphans),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_sessions_leak_free),
		cmocka_unit_test(test_fnargs),
		cmocka_unit_test(test_inband),
	};

	return cmocka_run_group_tests_name("session", tests, NULL, NULL);
}
