/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * Injected probes (-J): a kprobe, kretprobe, tracepoint or raw tracepoint whose hits are
 * placed inside the call trace of the session running on the same thread. One program per
 * kind, attached once per probe with the probe id as its BPF cookie. A hit outside a
 * session means nothing and is ignored, and so is a kprobe's hit in an interrupt that came
 * while a session ran (irq_calls.bpf.h; a tracepoint's stack position is not known).
 * With -I a hit also sends an interim sample
 * (interim.bpf.h), whose branch records are taken first thing, by every kind of probe:
 * the LBR of a tracepoint's hit is as telling as a kprobe's.
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_INJECT_BPF_H
#define __RETSNOOP_INJECT_BPF_H

#include "retsnoop_state.bpf.h"
#include "tgid_set.bpf.h"
#include "reentry_guard.bpf.h"
#include "session_slot.bpf.h"
#include "records.bpf.h"
#include "probe_ctx.bpf.h"
#include "interim.bpf.h"
#include "lbr_snap.bpf.h"
#include "irq_calls.bpf.h"

/* @kpos: a kprobe's stack position, 0 for a tracepoint's (not known: always the session's) */
static __always_inline int handle_probe(void *ctx, __u64 kpos)
{
	struct session *sess;
	__u64 now, pid_tgid;
	__u32 probe_id, seq, *guard;
	__s64 key;

	/*
	 * The guard of the fentry/fexit handlers: a traced function called from here (a
	 * helper under -F) must not change the session halfway through a hit, nor a hit
	 * halfway through their update.
	 */
	if (!ready || !task_traced() || !(guard = enter_guard()))
		return 0;
	pid_tgid = bpf_get_current_pid_tgid();
	key = session_key(pid_tgid);
	sess = find_session(key);
	/* an interrupt's hit is not the thread's (irq_calls.bpf.h) */
	if (!sess || irq_call(sess, kpos))
		goto out;
	now = bpf_ktime_get_ns();
	probe_id = bpf_get_attach_cookie(ctx);
	/* a hit takes its place in the session's order like an entry or an exit does */
	seq = sess->next_seq_id++;
	if (emit_func_trace)
		emit_func_trace_rec(sess, REC_INJ_PROBE, probe_id, now, seq,
				    sess->stack.depth + 1, 0, 0);
	/* the context goes with the hit's -T row */
	if (emit_func_trace && capture_args)
		emit_probe_ctx(ctx, sess, probe_id, seq);
	if (emit_interim_stacks)
		emit_probe_sample(ctx, sess, now, seq, probe_id);
out:
	leave_guard(guard);
	return 0;
}

SEC("kprobe")
int inj_kprobe(struct pt_regs *ctx)
{
	snapshot_lbrs();
	return handle_probe(ctx, PT_REGS_SP(ctx));
}

SEC("kretprobe")
int inj_kretprobe(struct pt_regs *ctx)
{
	snapshot_lbrs();
	return handle_probe(ctx, PT_REGS_SP(ctx));
}

SEC("tracepoint")
int inj_tp(void *ctx)
{
	snapshot_lbrs();
	return handle_probe(ctx, 0);
}

/* raw tracepoint cookies need Linux 6.10+: loaded only when a rawtp: probe is given */
SEC("raw_tp")
int inj_rawtp(void *ctx)
{
	snapshot_lbrs();
	return handle_probe(ctx, 0);
}

#endif /* __RETSNOOP_INJECT_BPF_H */
