/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * The set of traced processes (`retsnoop -- CMD`, -p), checked first thing by every probe,
 * before any session work. In a whole-kernel hunt every other process runs through that
 * check on every traced call, so it calls no kernel function: a hash map lookup is a call
 * into __htab_map_lookup_elem(), itself traced, which the kernel refuses as recursion at
 * the cost of another probe hit (measured on 6.12: 76 us instead of 7 per getpid() of an
 * untraced process). An array lookup is inlined by the verifier.
 *
 * So the set is one byte per possible PID in an array of 64-byte slots (key: PID / 64):
 * a fork or an exit stores its own byte, which needs no atomic instruction (5.10 has
 * none but add), and stores to different bytes of one slot never interfere.
 *
 * `-- CMD` adds each process a traced one forks (from the sched_process_fork tracepoint,
 * which fires in the parent before the child can run, so the child's first instruction
 * is already covered); every task's free clears its own byte (not its exit: see
 * tgid_set_free()). A session its thread's exit cuts is exit_cut.bpf.h's.
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_TGID_SET_BPF_H
#define __RETSNOOP_TGID_SET_BPF_H

#include "retsnoop_state.bpf.h"
#include "session_slot.bpf.h"

/* Set by user space before load: the map below decides who is traced. */
const volatile bool tgid_set_on = false;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);			/* resized: pid_max / 64 */
	__type(key, __u32);
	__type(value, struct tgid_slot);
} traced_tgids SEC(".maps");

static __always_inline __u8 *tgid_byte(__u32 pid)
{
	__u32 key = pid / TGID_SLOT_PIDS;
	struct tgid_slot *s = bpf_map_lookup_elem(&traced_tgids, &key);

	return s ? &s->traced[pid & (TGID_SLOT_PIDS - 1)] : NULL;
}

static __always_inline bool task_traced(void)
{
	__u8 *b;

	if (!tgid_set_on)
		return true;
	b = tgid_byte(bpf_get_current_pid_tgid() >> 32);
	return b && *b;
}

/*
 * Loaded only when forks are followed. The key is the child's thread id: for a new
 * process its TGID; for a new thread of a traced process an id that no other process can
 * use as its TGID while the thread lives (its exit clears it), and a thread needs no
 * entry of its own (its TGID is its process's).
 */
SEC("raw_tp/sched_process_fork")
int tgid_set_fork(__u64 *ctx)
{
	/*
	 * A raw tracepoint (parent, child), not the tracefs event: attaching it needs no
	 * tracefs, which is not mounted everywhere (nor needed by anything else of a
	 * `-- CMD` run of user-space functions). The child's PID is read at the offset
	 * feature detection found, as this object does without CO-RE.
	 */
	void *task = (void *)ctx[1];
	__u8 *parent = tgid_byte(bpf_get_current_pid_tgid() >> 32), *child;
	__s32 child_pid = 0;

	if (!parent || !*parent)
		return 0;
	if (bpf_probe_read_kernel(&child_pid, sizeof(child_pid), task + task_pid_off) ||
	    child_pid <= 0)
		return 0;
	child = tgid_byte(child_pid);
	if (child) {
		*child = 1;
	} else {
		/* a PID beyond the pid_max seen at start: the child is not followed */
		struct drop_stats *st = drop_stats();

		if (st)
			__sync_fetch_and_add(&st->unfollowed_forks, 1);
	}
	return 0;
}

/*
 * A task freed: its byte is cleared, as its PID is given back. Not at its exit: a main
 * thread that exits before the others (pthread_exit()) stays a zombie while they run,
 * and its process must stay traced; its PID is freed only once the whole process is
 * gone and reaped, so a freed TGID reused by an unrelated process is never traced. The
 * tracepoint (task) fires in an RCU callback: the PID is read from the task.
 */
SEC("raw_tp/sched_process_free")
int tgid_set_free(__u64 *ctx)
{
	void *task = (void *)ctx[0];
	__s32 pid = 0;
	__u8 *b;

	if (bpf_probe_read_kernel(&pid, sizeof(pid), task + task_pid_off) || pid <= 0)
		return 0;
	b = tgid_byte(pid);
	if (b)
		*b = 0;
	return 0;
}

#endif /* __RETSNOOP_TGID_SET_BPF_H */
