/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * What a session sends to user space through the rb ring buffer: its start, the -T call
 * records, LBR snapshots and its end with the error chain and kernel stack, and the drop
 * counters when the buffer is full. Records leave in the order user space rebuilds them.
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_RECORDS_BPF_H
#define __RETSNOOP_RECORDS_BPF_H

#include "retsnoop_state.bpf.h"
#include "ustack.bpf.h"

/*
 * The session's start, before its first other record. Always sent from the session's own
 * thread: the thread's and its process's names are read here, not when every session starts
 * (most sessions end well and are never sent; a helper call and a string copy saved each).
 */
static __always_inline bool emit_session_start(struct session *sess)
{
	struct rec_session_start *r;
	__u64 task, leader = 0;

	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r)
		return false;
	r->type = REC_SESSION_START;
	r->pid = sess->pid;
	r->sess_id = sess->sess_id;
	r->tgid = sess->tgid;
	r->__pad = 0;
	r->start_ts = sess->start_ts;
	bpf_get_current_comm(r->task_comm, sizeof(r->task_comm));
	/*
	 * The process's name: its thread-group leader's comm. A process's main thread is its
	 * own leader (pid == tgid) and has just read it; three helper calls saved.
	 */
	if (sess->pid == sess->tgid) {
		__builtin_memcpy(r->proc_comm, r->task_comm, sizeof(r->proc_comm));
	} else {
		task = bpf_get_current_task();
		bpf_probe_read_kernel(&leader, sizeof(leader),
				      (void *)(task + task_group_leader_off));
		bpf_probe_read_kernel_str(r->proc_comm, sizeof(r->proc_comm),
					  (void *)(leader + task_comm_off));
	}
	bpf_ringbuf_submit(r, quiet_rec_flags());
	sess->start_emitted = true;
	return true;
}

/*
 * -T records give way to the sample itself: when the ring buffer (user space not keeping
 * up, or -C bpf.ringbuf-size small) could no longer take a session's final records after
 * this one, the trace record is dropped instead, so the sample still arrives and says how
 * many records it lost.
 */
static __always_inline bool room_for_trace_rec(void)
{
	__u64 keep = sizeof(struct rec_func_trace) + sizeof(struct rec_session_end) +
		     sizeof(struct rec_session_start) + 4 * BPF_RINGBUF_HDR_SZ;

	if (!rb_size)
		return true;
	if (capture_lbr)
		keep += sizeof(struct rec_lbr_stack) + BPF_RINGBUF_HDR_SZ;
	if (capture_ustack)
		keep += sizeof(struct rec_ustack) + ustack_size + BPF_RINGBUF_HDR_SZ;
	return bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) + keep <= rb_size;
}

static __always_inline void emit_func_trace_rec(struct session *sess, __u32 type, __u32 id,
						__u64 ts, __u32 seq_id, __u32 depth,
						__u64 lat, __s64 res)
{
	struct rec_func_trace *r;

	/* a START that didn't fit earlier goes first, or the record would be an orphan */
	if (!room_for_trace_rec() || (!sess->start_emitted && !emit_session_start(sess))) {
		count_dropped_record(sess);
		return;
	}
	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		count_dropped_record(sess);
		return;
	}
	r->type = type;
	r->func_id = id;
	r->sess_id = sess->sess_id;
	r->ts = ts;
	r->seq_id = seq_id;
	r->depth = depth;
	r->func_lat = lat;
	r->func_res = res;
	bpf_ringbuf_submit(r, quiet_rec_flags());
}

/* @sess's LBR record: @sz and @lbrs, the session's own or an interim sample's copy */
static __always_inline void emit_lbrs(struct session *sess, __s32 sz,
				      const struct lbr_record *lbrs)
{
	struct rec_lbr_stack *r;

	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		count_dropped_record(sess);
		return;
	}
	r->type = REC_LBR_STACK;
	r->sess_id = sess->sess_id;
	r->lbrs_sz = sz;
	copy_words(r->lbrs, lbrs, sizeof(r->lbrs));
	bpf_ringbuf_submit(r, quiet_rec_flags());
}

/*
 * emit_session_end()'s records, for a session user space hears of. Out of line: a
 * program's three or four calls share one copy, which 7.x's verifier analyses once (its
 * per-instruction liveness pass was a third of a 7.2 start's instructions); most sessions
 * end well, unannounced, and never call it.
 */
static __noinline int send_session_end(struct session *sess, __u64 now, bool ignored)
{
	struct rec_session_end *r;
	struct drop_stats *st;

	if (ignored) {
		/* user space only drops what it holds: no stack to copy (struct rec_session_forget) */
		struct rec_session_forget *f = bpf_ringbuf_reserve(&rb, sizeof(*f), 0);

		if (!f)
			goto drop;
		f->type = REC_SESSION_FORGET;
		f->dropped_records = sess->dropped_records;
		f->sess_id = sess->sess_id;
		bpf_ringbuf_submit(f, quiet_rec_flags());
		return 0;
	}
	if (!sess->start_emitted && !emit_session_start(sess))
		goto drop;
	if (capture_lbr)
		emit_lbrs(sess, sess->lbrs_sz, sess->lbrs);
	if (capture_ustack)
		emit_ustack(sess);

	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r)
		goto drop;
	r->type = REC_SESSION_END;
	r->sess_id = sess->sess_id;
	r->emit_ts = now;
	r->dropped_records = sess->dropped_records;
	r->ignored = 0;
	r->is_err = sess->tail_err;
	r->flags = sess_end_flags(sess);
	r->last_seq_id = sess->next_seq_id - 1;
	copy_words(&r->stack, &sess->stack, sizeof(r->stack));
	bpf_ringbuf_submit(r, sess->flags & SESS_F_AT_EXIT ? quiet_rec_flags() : sample_rec_flags());
	return 0;
drop:
	st = drop_stats();
	if (st)
		__sync_fetch_and_add(&st->dropped_sessions, 1);
	return 0;
}

/*
 * Final sample of a session whose outermost frame just returned; @forget: the session lost
 * track, only tell user space to drop what it holds of it. A session filtered out (or
 * lost) that user space heard of gets a REC_SESSION_FORGET, one it never heard of nothing.
 */
static __always_inline void emit_session_end(struct session *sess, __u64 now, bool forget)
{
	bool ignored;

	/* an in-band error (SESS_F_INBAND) is the session's failure, though it ended well */
	ignored = forget ||
		  (!sess->tail_err && !(sess->flags & SESS_F_INBAND) && !emit_success_stacks) ||
		  (sess->stack.func_lat[0] & ~LAT_NO_RETURN) < duration_ns;
	if (ignored && !sess->start_emitted)
		return;
	send_session_end(sess, now, ignored);
}

#endif /* __RETSNOOP_RECORDS_BPF_H */
