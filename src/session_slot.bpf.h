/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * Where a thread's session lives, from its first traced entry function to its return:
 * the session table (a slot claimed at the start, freed at the end: by default where
 * task storage can't hold a session, 7.x, and where there is no task storage, 5.10), else
 * task-local storage on 5.11+ (the slot stays with the thread, a new session resets its
 * header), else the sessions hash map (a zeroed template copied in, deleted at the end:
 * bpf.sessions-size).
 * Also who may start one (-p -P -n -N, never retsnoop itself), the
 * session's key and its id.
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_SESSION_SLOT_BPF_H
#define __RETSNOOP_SESSION_SLOT_BPF_H

#include "retsnoop_state.bpf.h"
#include "records.bpf.h"

/* Set by user space before load: who may start a session (session_allowed()). */
const volatile __u32 tgid_allow_cnt = 0, tgid_deny_cnt = 0;
const volatile __u32 comm_allow_cnt = 0, comm_deny_cnt = 0;
/* retsnoop and its helpers: tracing them would trace our own output (a feedback loop) */
const volatile __u32 excluded_tgids[MAX_EXCLUDED_TGIDS] = {};
const volatile __u32 excluded_cnt = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);		/* bpf.sessions-size */
	__type(key, __s64);
	__type(value, struct session);
} sessions SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct session);
} task_sessions SEC(".maps");

/*
 * Kernels without BPF's compare-and-swap (5.10; 5.12 brought it) claim a table slot by
 * inserting its index here (BPF_NOEXIST: one thread wins) and free it by deleting it:
 * two helper calls a session where the sessions hash map copied a whole zeroed session
 * in (~8 KB) at every start. Slots taken this way have their owner written after the claim.
 */
const volatile bool table_claims_on = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);			/* the table's slots, with table_claims_on */
	__type(key, __u32);
	__type(value, __s64);
} table_claims SEC(".maps");

/*
 * The session table: slot i belongs to the thread whose key is in its owner, or to none
 * (0). A thread's home slot is its id's low bits; one that finds it taken takes one of the
 * next SESSION_TABLE_PROBES - 1 ("away") and counts itself in the home slot's displaced,
 * so that a lookup looks past the home slot only while such a session runs. None free:
 * the session is dropped and counted, as the hash map's beyond its size. No other store
 * behind it: a session pointer from two maps would have the verifier check everything
 * after the lookup twice (8,303 instructions processed of ksession instead of 4,428).
 * Four slots, not eight: each probe is code the verifier checks in every program (8: a 7.2
 * start's BPF load +26 ms of instructions against the hash map's, 4: +8 ms).
 */
#define SESSION_TABLE_PROBES	4

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);			/* bpf.session-table */
	__type(key, __u32);
	__type(value, struct session);
} session_table SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, bool);			/* true: allow, false: deny */
} tgids_filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, char[TASK_COMM_LEN]);
	__type(value, bool);
} comms_filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct session);		/* zeroed template for new sessions */
} empty_session SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sess_counts);
} sess_seq SEC(".maps");

/*
 * A session id without a fetching atomic (5.10's verifier rejects any but a plain add):
 * the low half is the session key, unique among live sessions; the high half a per-CPU
 * sequence and the CPU, which tell successive sessions of one thread apart. The same
 * per-CPU slot counts the session as live (end_session() takes it off), one lookup for both.
 */
static __always_inline __u64 new_sess_id(__s64 key)
{
	__u32 zero = 0, cpu = bpf_get_smp_processor_id();
	struct sess_counts *c = bpf_map_lookup_elem(&sess_seq, &zero);
	__u64 n = 0;

	if (c) {
		n = c->seq++;
		c->live++;
	}
	return n << 40 | (__u64)(cpu & 0xff) << 32 | (__u32)key;
}

/*
 * May this thread start a session? Checked once per session, not per event: a thread that
 * passes keeps its session until the entry function returns.
 */
static __always_inline bool session_allowed(__u64 pid_tgid)
{
	__u32 tgid = pid_tgid >> 32, i;
	bool *allow;

	for (i = 0; i < MAX_EXCLUDED_TGIDS; i++) {
		if (i >= excluded_cnt)
			break;
		if (excluded_tgids[i] == tgid)
			return false;
	}
	if (tgid_allow_cnt || tgid_deny_cnt) {
		allow = bpf_map_lookup_elem(&tgids_filter, &tgid);
		if (allow ? !*allow : tgid_allow_cnt > 0)
			return false;
	}
	if (comm_allow_cnt || comm_deny_cnt) {
		char comm[TASK_COMM_LEN] = {};

		bpf_get_current_comm(comm, sizeof(comm));
		allow = bpf_map_lookup_elem(&comms_filter, comm);
		if (allow ? !*allow : comm_allow_cnt > 0)
			return false;
	}
	return true;
}

/* Idle tasks all have pid 0: key them per CPU so they never share a session. */
static __always_inline __s64 session_key(__u64 pid_tgid)
{
	__u32 pid = (__u32)pid_tgid;

	return pid ? (__s64)pid : -(1 + (__s64)bpf_get_smp_processor_id());
}

/* Does the slot stay with the thread after its session ends (task storage alone)? */
static __always_inline bool slot_kept(void)
{
	return session_store == SESS_STORE_TASK;
}

/*
 * The probes' session key: the session table's and the sessions hash map's; task storage
 * alone needs none, and then the probe spends no helper call on the thread's pid.
 */
static __always_inline __s64 probe_session_key(void)
{
	return slot_kept() ? 0 : session_key(bpf_get_current_pid_tgid());
}

/* Slot @i of the table (its index taken modulo the table's size). */
static __always_inline struct session *table_at(__u32 i)
{
	i &= session_table_mask;
	return bpf_map_lookup_elem(&session_table, &i);
}

/* The table slot @key's thread owns, or NULL: its home slot, or one of the next. */
static __always_inline struct session *table_find(__s64 key)
{
	struct session *s = table_at((__u32)key);
	__u32 n;

	if (!s)
		return NULL;
	if (s->owner == key)
		return s;
	if (!s->displaced)	/* no session of this home lives away: the usual miss */
		return NULL;
	for (n = 1; n < SESSION_TABLE_PROBES; n++) {
		s = table_at((__u32)key + n);
		if (s && s->owner == key)
			return s;
	}
	return NULL;
}

/*
 * Slot @i (@s), if free, now @key's thread's (compare-and-swap or a claim: another CPU may
 * race for it).
 */
static __always_inline bool table_take(struct session *s, __u32 i, __s64 key)
{
	if (s->owner)
		return false;
	if (table_claims_on) {
		i &= session_table_mask;
		if (bpf_map_update_elem(&table_claims, &i, &key, BPF_NOEXIST))
			return false;
		s->owner = key;
		return true;
	}
	return __sync_val_compare_and_swap(&s->owner, 0, key) == 0;
}

/* A table slot for @key's thread, now its own; NULL when its home and the next are taken. */
static __always_inline struct session *table_claim(__s64 key)
{
	struct session *home = table_at((__u32)key), *s;
	__u32 n;

	if (!home)
		return NULL;
	if (table_take(home, (__u32)key, key)) {
		home->away = false;
		return home;
	}
	/* counted first: a lookup of this thread looks past its home from the claim on */
	__sync_fetch_and_add(&home->displaced, 1);
	for (n = 1; n < SESSION_TABLE_PROBES; n++) {
		s = table_at((__u32)key + n);
		if (s && table_take(s, (__u32)key + n, key)) {
			s->away = true;
			s->probe = n;
			return s;
		}
	}
	__sync_fetch_and_add(&home->displaced, -1);
	return NULL;
}

/*
 * The thread's session slot, running a session or not (task storage: NULL until the
 * thread's first session; the table and the hash map: its running session).
 */
static __always_inline struct session *session_slot(__s64 key)
{
	if (session_store == SESS_STORE_TABLE)
		return table_find(key);
	if (session_store == SESS_STORE_HASH)
		return bpf_map_lookup_elem(&sessions, &key);
	return bpf_task_storage_get(&task_sessions, bpf_get_current_task_btf(), NULL, 0);
}

/* @slot's running session, or NULL. */
static __always_inline struct session *slot_session(struct session *slot)
{
	/* the slot outlives its sessions: between two of them it has no running frame */
	if (slot_kept() && slot && !slot->stack.depth)
		return NULL;
	return slot;
}

/* The thread's running session, or NULL. */
static __always_inline struct session *find_session(__s64 key)
{
	return slot_session(session_slot(key));
}

/*
 * What a new session reads before it writes it. Frames, kernel stack and LBRs beyond
 * these counts are stale from the thread's previous session and never read.
 */
static __always_inline void reset_session(struct session *sess)
{
	sess->next_seq_id = 0;
	sess->dropped_records = 0;
	sess->start_emitted = false;
	sess->tail_err = false;
	sess->frag_cnt = 0;
	sess->flags = 0;
	sess->chain_flags = 0;
	sess->lost_levels = 0;
	sess->lost_last = 0;
	sess->inband_depth = 0;
	sess->overflow = 0;
	sess->stack.depth = 0;
	sess->stack.max_depth = 0;
	sess->stack.stitched = 0;
	sess->stack.kstack_sz = 0;
	sess->stack.sys_err = 0;
	sess->stack.sys_err_level = 0;
	sess->sys_err = 0;
	sess->usp_base = 0;
	sess->lbrs_sz = 0;
}

/* A new session in the sessions hash map (a zeroed copy), or NULL when it is full. */
static __always_inline struct session *hash_session(__s64 key)
{
	struct session *sess;
	__u32 zero = 0;

	sess = bpf_map_lookup_elem(&empty_session, &zero);
	if (!sess || bpf_map_update_elem(&sessions, &key, sess, BPF_NOEXIST))
		return NULL;
	return bpf_map_lookup_elem(&sessions, &key);
}

/*
 * A session slot for this thread, or NULL (counted) when there is none to have. @slot:
 * what session_slot() found (task storage: the thread's slot, already allocated, or NULL).
 */
static __always_inline struct session *new_session_slot(__s64 key, struct session *slot)
{
	struct drop_stats *st;
	struct session *sess;

	if (session_store == SESS_STORE_TABLE) {
		/* @slot is NULL: the table's slots hold running sessions only */
		sess = table_claim(key);
		if (sess)
			reset_session(sess);
	} else if (session_store == SESS_STORE_TASK) {
		/* allocated once per thread; NULL when out of memory or storage busy on this CPU */
		sess = slot ?: bpf_task_storage_get(&task_sessions, bpf_get_current_task_btf(),
						     NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (sess)
			reset_session(sess);
	} else {
		sess = hash_session(key);
	}
	if (!sess && (st = drop_stats())) {
		__sync_fetch_and_add(&st->dropped_sessions, 1);
		/* every slot taken: the cap (bpf.session-table, bpf.sessions-size) is too low */
		if (session_store != SESS_STORE_TASK)
			__sync_fetch_and_add(&st->no_slot, 1);
	}
	return sess;
}

/*
 * The session is over (or lost track): free its slot for the thread's next one.
 * @subprog: called from a global function (user_pop()), which can't hold the exchange:
 * 5.10 refuses any fetching atomic in every function it loads, run or not (user space
 * rewrites those of the programs themselves where there is no table: tracer_maps.c).
 */
static __always_inline void __end_session(struct session *sess, __s64 key, bool subprog)
{
	struct sess_counts *c;
	struct session *home;
	__u32 zero = 0;

	c = bpf_map_lookup_elem(&sess_seq, &zero);
	if (c)
		c->live--;
	if (session_store == SESS_STORE_TABLE) {
		if (sess->away && (home = table_at((__u32)key)))
			__sync_fetch_and_add(&home->displaced, -1);
		if (table_claims_on) {
			/* free before the claim goes: a claim after it writes its own owner */
			__u32 i = ((__u32)key + (sess->away ? sess->probe : 0)) & session_table_mask;

			sess->owner = 0;
			bpf_map_delete_elem(&table_claims, &i);
		} else if (subprog) {	/* a plain atomic add: ordered on x86, not on arm64 */
			__sync_fetch_and_add(&sess->owner, -key);
		} else {	/* the writes above are seen before the slot is free (arm64) */
			__sync_lock_test_and_set(&sess->owner, 0);
		}
	} else if (session_store == SESS_STORE_TASK) {
		sess->stack.depth = 0;
	} else {
		bpf_map_delete_elem(&sessions, &key);
	}
}

static __always_inline void end_session(struct session *sess, __s64 key)
{
	__end_session(sess, key, false);
}

/*
 * Pop the frames [@nd, depth) whose returns we never saw (longjmp() or an exception left
 * them, or the kernel skipped their exit probes) and any frame above them, as not
 * returned: LAT_NO_RETURN in their latency, the time until we found out. The error chain
 * below them stays: it is what their innermost callee returned, whatever became of them.
 * Returns true when that popped the session's entry frame too: the session is over
 * (reported as if it returned, its error that of its chain) and freed.
 */
struct pop_loop {
	struct session *sess;
	__u64 now;
	__u32 nd, d;
};

/* One frame of pop_unreturned(): frame @nd + @n, if it is below the top (else 1: done). */
static long pop_one(__u64 n, void *data)
{
	struct pop_loop *c = data;
	struct session *sess = c->sess;
	__u32 i;

	if (c->nd + n >= c->d)
		return 1;
	i = frame_idx(c->nd + n);
	sess->stack.func_res[i] = 0;
	sess->stack.func_lat[i] = ((c->now - sess->entry_ts[i]) & ~LAT_NO_RETURN) | LAT_NO_RETURN;
	return 0;
}

/*
 * @helper_loop: loop with bpf_loop() (5.17+; only programs that load on such kernels
 * alone may ask, ksession): the verifier checks its body once or twice, where it walks
 * every one of the open-coded loop's MAX_FSTACK_DEPTH rounds (a quarter of what it
 * checked of ksession, for a path only a lost exit takes).
 */
static __always_inline bool ___pop_unreturned(struct session *sess, __u32 nd, __s64 key,
					       __u64 now, bool helper_loop, bool subprog)
{
	__u32 d = sess->stack.depth, n, i;

	if (nd >= d || d > MAX_FSTACK_DEPTH)
		return false;
	if (helper_loop) {
		struct pop_loop c = { .sess = sess, .now = now, .nd = nd, .d = d };

		bpf_loop(MAX_FSTACK_DEPTH, pop_one, &c, 0);
	} else {
		for (n = 0; n < MAX_FSTACK_DEPTH; n++) {
			i = frame_idx(nd + n);
			if (nd + n >= d)
				break;
			sess->stack.func_res[i] = 0;
			sess->stack.func_lat[i] = ((now - sess->entry_ts[i]) & ~LAT_NO_RETURN) |
						  LAT_NO_RETURN;
		}
	}
	/* the chains kept aside for the popped frames' callees are stale */
	for (n = 0; n < MAX_FRAGS; n++) {
		if (sess->frag_cnt == 0 ||
		    sess->frags[(sess->frag_cnt - 1) & (MAX_FRAGS - 1)].start <= nd)
			break;
		sess->frag_cnt--;
	}
	/* calls beyond MAX_FSTACK_DEPTH ran above the popped frames: gone too */
	sess->overflow = 0;
	sess->stack.depth = nd;
	if (nd > 0)
		return false;
	emit_session_end(sess, now, false);
	__end_session(sess, key, subprog);
	return true;
}

/*
 * The bpf_loop() pop, out of line: ksession's two callers (a resync, a stale session's
 * end) share one copy for 7.x's liveness pass to analyse (send_session_end()).
 */
static __noinline int pop_unreturned_looped(struct session *sess, __u32 nd, __s64 key, __u64 now)
{
	return ___pop_unreturned(sess, nd, key, now, true, false);
}

static __always_inline bool __pop_unreturned(struct session *sess, __u32 nd, __s64 key,
					      __u64 now, bool helper_loop)
{
	if (helper_loop)
		return pop_unreturned_looped(sess, nd, key, now);
	return ___pop_unreturned(sess, nd, key, now, false, false);
}

/* The same from user_pop(), a global function (__end_session()) */
static __always_inline bool pop_unreturned(struct session *sess, __u32 nd, __s64 key, __u64 now)
{
	return ___pop_unreturned(sess, nd, key, now, false, true);
}

/* @key: the probe's (probe_session_key()); @slot: see new_session_slot() */
static __always_inline struct session *start_session(__s64 key, struct session *slot,
						     __u64 pid_tgid, __u64 now)
{
	struct session *sess;

	sess = new_session_slot(key, slot);
	if (!sess)
		return NULL;

	/* the thread's own key, also where the probes use none (task storage) */
	sess->sess_id = new_sess_id(session_key(pid_tgid));
	sess->start_ts = now;
	sess->pid = (__u32)pid_tgid;
	sess->tgid = pid_tgid >> 32;
	/* the names are read when the session is first sent (emit_session_start()), if ever */

	/*
	 * -T and -A need the session known before its first trace or arguments record; if
	 * the ring buffer is full now, the next record tries again (the sample then shows
	 * the records it lost).
	 */
	if (emit_func_trace || capture_args)
		emit_session_start(sess);
	return sess;
}

#endif /* __RETSNOOP_SESSION_SLOT_BPF_H */
