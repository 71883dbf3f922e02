/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * Interim samples (-I): a session's state sent while it still runs.
 *
 * - At an injected probe's hit: the calls running right now (all unfinished), a kernel
 *   stack taken right there and the branch records of that moment.
 * - When a call is about to overwrite completed frames (a sibling of an earlier, deeper
 *   chain) and what they hold would be lost: with -S always (the chain just completed),
 *   else when an error chain kept aside is replaced by a later error of the same caller,
 *   or when no slot is left to keep the current error chain aside. Each sample carries the
 *   kernel stack and LBR captured for that very chain, never another chain's leftovers.
 *
 * -L applies by the session's age at the time of the sample. Interim samples give way to
 * final ones when the ring buffer runs short, like -T records.
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_INTERIM_BPF_H
#define __RETSNOOP_INTERIM_BPF_H

#include "retsnoop_state.bpf.h"
#include "records.bpf.h"
#include "err_chain.bpf.h"
#include "lbr_snap.bpf.h"

static __always_inline bool room_for_interim(void)
{
	__u64 keep = sizeof(struct rec_session_interim) + sizeof(struct rec_session_end) +
		     sizeof(struct rec_session_start) + 4 * BPF_RINGBUF_HDR_SZ;

	if (!rb_size)
		return true;
	if (capture_lbr)
		keep += 2 * (sizeof(struct rec_lbr_stack) + BPF_RINGBUF_HDR_SZ);
	return bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) + keep <= rb_size;
}

/*
 * Reserve an interim sample and fill all but its call stack; its LBR record (@lbrs, NULL
 * if there is none to send) goes first, as for final samples. NULL if it can't be sent.
 */
static __always_inline struct rec_session_interim *
interim_begin(struct session *sess, __u32 type, __u64 now, __u32 last_seq, bool is_err,
	      __s32 lbrs_sz, const struct lbr_record *lbrs)
{
	struct rec_session_interim *r;

	if (!room_for_interim() || (!sess->start_emitted && !emit_session_start(sess))) {
		count_dropped_record(sess);
		return NULL;
	}
	if (capture_lbr && lbrs)
		emit_lbrs(sess, lbrs_sz, lbrs);
	if (capture_ustack)
		emit_ustack(sess);
	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		count_dropped_record(sess);
		return NULL;
	}
	r->end.type = type;
	r->end.last_seq_id = last_seq;
	r->end.sess_id = sess->sess_id;
	r->end.emit_ts = now;
	r->end.dropped_records = sess->dropped_records;
	r->end.ignored = 0;
	r->end.is_err = is_err;
	r->end.flags = sess_end_flags(sess);
	r->probe_id = -1;
	r->err = 0;
	return r;
}

/*
 * The probe's own unwinding: injected probes are single kprobes, kretprobes and
 * tracepoints, never kretprobe.multi, whose return handler is why capture_origin() may
 * unwind the task instead. The task's unwinding from inside a kprobe at a function's
 * start loses that function (7.2: bprm_execve+5 showed no bprm_execve frame).
 */
static __always_inline __s32 take_kstack(void *ctx, __u64 *buf)
{
	return bpf_get_stack(ctx, buf, MAX_KSTACK_DEPTH * sizeof(__u64), 0);
}

/* An injected probe fired (sequence number @seq) inside @sess. */
static __always_inline void emit_probe_sample(void *ctx, struct session *sess, __u64 now,
					      __u32 seq, __u32 probe_id)
{
	struct rec_session_interim *r;
	struct lbr_snapshot *snap = NULL;
	__u32 zero = 0;

	if (now - sess->start_ts < duration_ns)
		return;
	if (capture_lbr)
		snap = bpf_map_lookup_elem(&lbr_snaps, &zero);
	r = interim_begin(sess, REC_SESSION_PROBE, now, seq, false, snap ? snap->sz : 0,
			  snap ? snap->lbrs : NULL);
	if (!r)
		return;
	/* the traced frames and their bookkeeping: everything before the kernel stack */
	copy_words(&r->end.stack, &sess->stack, offsetof(struct call_stack, kstack));
	/* only the calls running now; running calls never carry the stitched mark */
	r->end.stack.max_depth = sess->stack.depth;
	r->end.stack.stitched = 0;
	r->end.stack.kstack_sz = take_kstack(ctx, r->end.stack.kstack);
	r->probe_id = probe_id;
	bpf_ringbuf_submit(r, sample_rec_flags());
}

/* The session's own chain as it is: callers [0, depth) running, [depth, max_depth) done. */
static __always_inline void emit_chain_sample(struct session *sess, __u64 now, __u32 last_seq)
{
	struct rec_session_interim *r;

	r = interim_begin(sess, REC_SESSION_STITCH, now, last_seq, sess->tail_err,
			  sess->lbrs_sz, sess->lbrs);
	if (!r)
		return;
	copy_words(&r->end.stack, &sess->stack, sizeof(r->end.stack));
	bpf_ringbuf_submit(r, sample_rec_flags());
}

/* The error chain kept aside in @f, under its callers [0, d) that are still running. */
static __always_inline void emit_frag_sample(struct session *sess, struct frag *f, __u32 d,
					     __u64 now)
{
	struct rec_session_interim *r;

	r = interim_begin(sess, REC_SESSION_STITCH, now, f->last_seq_id, true, f->lbrs_sz,
			  f->lbrs);
	if (!r)
		return;
	copy_words(&r->end.stack, &f->cs, sizeof(r->end.stack));
	copy_levels(&r->end.stack, &sess->stack, 0, d);
	r->end.stack.depth = d;
	bpf_ringbuf_submit(r, sample_rec_flags());
}

/*
 * A call at level @d (sequence number @seq) is about to overwrite the completed frames
 * [d, max_depth): send what would be lost (see the top of this file). Called before the
 * chain is kept aside (keep_chain()), which may replace an older one.
 */
static __always_inline void emit_stitch_sample(struct session *sess, __u32 d, __u64 now,
					       __u32 seq)
{
	__u32 n = sess->frag_cnt;
	struct frag *top = &sess->frags[(n - 1) & (MAX_FRAGS - 1)];

	if (now - sess->start_ts < duration_ns)
		return;
	if (emit_success_stacks)
		emit_chain_sample(sess, now, seq - 1);
	else if (!sess->tail_err)
		return;
	else if (n > 0 && top->start == d)
		emit_frag_sample(sess, top, d, now);
	else if (n >= MAX_FRAGS)
		emit_chain_sample(sess, now, seq - 1);
}

#endif /* __RETSNOOP_INTERIM_BPF_H */
