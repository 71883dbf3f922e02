/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * In-band errors: a netlink request's error goes back in the ack message
 * (netlink_ack(in_skb, nlh, err, extack), called after the handler failed), and the
 * sendmsg() that carried the request succeeds. Such a session ends well, so without this
 * it would never be reported. User space names the carriers (function id and which
 * argument holds the error); at a carrier's entry with a negative error, the chain that
 * made the error is still there -- the failed callee's chain at the carrier's own level,
 * live or kept aside by keep_chain() -- and is sent at once (REC_SESSION_INBAND), before
 * later calls overwrite it. The carrier's callers are still running: each sends its
 * result and latency when it returns (REC_INBAND_EXIT), and the session is reported when
 * it ends (SESS_F_INBAND), with user space putting the pieces together. The first in-band
 * error of a session is the one reported; struct session grows by one byte.
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_INBAND_BPF_H
#define __RETSNOOP_INBAND_BPF_H

#include "retsnoop_state.bpf.h"
#include "records.bpf.h"
#include "err_chain.bpf.h"
#include "interim.bpf.h"
#include "args.bpf.h"

/* Set by user space before load: the traced carriers (their count 0: none traced). */
const volatile __u32 carrier_cnt = 0;
const volatile __u32 carrier_ids[MAX_ERR_CARRIERS];
const volatile __u32 carrier_args[MAX_ERR_CARRIERS];	/* 0-based, < 6 */
#ifdef RETSNOOP_LITE
#define carrier_cnt		0	/* retsnoop_state.bpf.h */
#endif

/* The index of @id among the carriers, or -1: a few compares on every traced entry. */
static __always_inline int carrier_idx(__u32 id)
{
	int i;

#pragma unroll
	for (i = 0; i < MAX_ERR_CARRIERS; i++) {
		if (i >= carrier_cnt)
			break;
		if (carrier_ids[i] == id)
			return i;
	}
	return -1;
}

/* The in-band record, its LBR record (@lbrs, NULL: none) first, as for every sample. */
static __always_inline struct rec_session_interim *
inband_begin(struct session *sess, __u64 now, __s32 lbrs_sz, const struct lbr_record *lbrs)
{
	struct rec_session_interim *r;

	if (!sess->start_emitted && !emit_session_start(sess)) {
		count_dropped_record(sess);
		return NULL;
	}
	if (capture_lbr && lbrs)
		emit_lbrs(sess, lbrs_sz, lbrs);
	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		count_dropped_record(sess);
		return NULL;
	}
	r->end.type = REC_SESSION_INBAND;
	r->end.last_seq_id = sess->next_seq_id - 1;
	r->end.sess_id = sess->sess_id;
	r->end.emit_ts = now;
	r->end.dropped_records = sess->dropped_records;
	r->end.ignored = 0;
	r->end.is_err = 1;
	r->end.flags = sess_end_flags(sess);
	return r;
}

/*
 * A call at level @d (function @id, not entered into the stack yet) is about to start:
 * if it is a carrier handed an error, send the chain that made the error. Called before
 * keep_chain(), so the failed callee's chain is either still in the stack or in the
 * fragment kept for level @d.
 */
static __always_inline void note_inband_err(void *ctx, bool fentry, struct session *sess,
					    __u32 d, __u32 id, __u64 now)
{
	struct rec_session_interim *r;
	struct frag *top;
	int c = carrier_idx(id);
	__s64 err;
	__u32 n;

	if (c < 0 || (sess->flags & SESS_F_INBAND) || d == 0 || d >= MAX_FSTACK_DEPTH)
		return;
	err = (__s32)entry_arg(ctx, fentry, carrier_args[c & (MAX_ERR_CARRIERS - 1)]);
	if (err >= 0 || err < -MAX_ERRNO)
		return;
	/* the first one: later calls, carriers included, must not change what is reported */
	sess->flags |= SESS_F_INBAND;
	sess->inband_depth = d;

	n = sess->frag_cnt;
	top = &sess->frags[(n - 1) & (MAX_FRAGS - 1)];
	if (sess->tail_err && d < sess->stack.max_depth &&
	    same_error(err, sess->stack.func_res[frame_idx(d)])) {
		/* the callee that just failed */
		r = inband_begin(sess, now, sess->lbrs_sz, sess->lbrs);
		if (!r)
			return;
		copy_words(&r->end.stack, &sess->stack, sizeof(r->end.stack));
	} else if (n > 0 && top->start == d && same_error(err, top->cs.func_res[frame_idx(d)])) {
		/* an earlier failed callee, cleanup ran in between */
		r = inband_begin(sess, now, top->lbrs_sz, top->lbrs);
		if (!r)
			return;
		copy_words(&r->end.stack, &top->cs, sizeof(r->end.stack));
		copy_levels(&r->end.stack, &sess->stack, 0, d);
		/* put back from where it was kept: the '*' marker, as restore_chain() does */
		r->end.stack.stitched |= levels_from(d);
	} else {
		/* no traced callee returned it: the carrier's caller made the error itself */
		r = inband_begin(sess, now, 0, NULL);
		if (!r)
			return;
		copy_words(&r->end.stack, &sess->stack, offsetof(struct call_stack, kstack));
		r->end.stack.max_depth = d;
		r->end.stack.stitched = 0;
		r->end.stack.kstack_sz = take_kstack(ctx, r->end.stack.kstack);
	}
	r->end.stack.depth = d;
	r->probe_id = id;
	r->err = err;
	bpf_ringbuf_submit(r, sample_rec_flags());
}

/*
 * The frame at level @d (entered with sequence number @seq) returned: one of the carrier's
 * callers if it is below inband_depth. The outermost one's result is in the session's end.
 */
static __always_inline void note_inband_ret(struct session *sess, __u32 d, __u32 id,
					    __u64 now, __u64 lat, __s64 res)
{
	if (d >= sess->inband_depth)
		return;
	sess->inband_depth = d;
	if (d == 0)
		return;
	emit_func_trace_rec(sess, REC_INBAND_EXIT, id, now, sess->stack.seq_ids[frame_idx(d)],
			    d + 1, lat, res);
}

#endif /* __RETSNOOP_INBAND_BPF_H */
