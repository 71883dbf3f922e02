/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * The set of traced processes (`retsnoop -- CMD`, -p): their TGIDs in one hash map,
 * checked first thing by every probe, before any session work, so the rest of the system
 * pays one map lookup per traced call. `-- CMD` adds each process a traced one forks
 * (followed from the sched_process_fork tracepoint, which fires in the parent before the
 * child can run, so the child's first instruction is already covered); a thread's exit
 * takes its own id out again.
 *
 * BPF-side only; included by retsnoop.bpf.c before the probe programs.
 */
#ifndef __RETSNOOP_TGID_SET_BPF_H
#define __RETSNOOP_TGID_SET_BPF_H

/* Set by user space before load: the map below decides who is traced. */
const volatile bool tgid_set_on = false;

/*
 * Key: a TGID (or, for the threads of a followed process, their own thread id: the fork
 * tracepoint doesn't tell a thread from a process, and a thread's id stays out of use
 * as any other process's TGID until it exits, when it is taken out). Prealloc'd: older
 * kernels refuse tracing programs hash maps that allocate.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);			/* resized by user space */
	__type(key, __u32);
	__type(value, __u8);
} traced_tgids SEC(".maps");

static __always_inline bool task_traced(void)
{
	__u32 tgid;

	if (!tgid_set_on)
		return true;
	tgid = bpf_get_current_pid_tgid() >> 32;
	return bpf_map_lookup_elem(&traced_tgids, &tgid) != NULL;
}

/* Loaded only when forks are followed. */
SEC("tp/sched/sched_process_fork")
int tgid_set_fork(struct trace_event_raw_sched_process_fork *ctx)
{
	__u32 parent = bpf_get_current_pid_tgid() >> 32, child = ctx->child_pid;
	__u8 one = 1;

	/* current is the parent; a full map leaves the child untraced (counted in -vv) */
	if (bpf_map_lookup_elem(&traced_tgids, &parent) &&
	    bpf_map_update_elem(&traced_tgids, &child, &one, BPF_ANY)) {
		struct drop_stats *st = drop_stats();

		if (st)
			__sync_fetch_and_add(&st->unfollowed_forks, 1);
	}
	return 0;
}

/*
 * Every thread's exit: its id leaves the set. For a process's main thread that ends the
 * process's tracing, so a freed TGID reused by an unrelated process is never traced.
 */
SEC("tp/sched/sched_process_exit")
int tgid_set_exit(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	__s64 key = session_key(pid_tgid);
	struct session *sess = find_session(key);

	/*
	 * exit() and exit_group() never return: their session ends with the thread, not
	 * reported, instead of counting as "still running" when tracing stops.
	 */
	if (sess)
		end_session(sess, key);
	bpf_map_delete_elem(&traced_tgids, &tid);
	return 0;
}

#endif /* __RETSNOOP_TGID_SET_BPF_H */
