/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * What sessions with user-space functions need beyond the entry and exit handlers (their
 * uprobe/uretprobe programs are with the kernel probes' in retsnoop.bpf.c): the errno of a
 * syscall that failed under a traced user-space frame (note_sys_err() in err_chain.bpf.h
 * puts it in the chain), exec() ending a session that began in the old image, and the
 * frames longjmp() or an exception left without returning (user_unwind()).
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_USER_SESSION_BPF_H
#define __RETSNOOP_USER_SESSION_BPF_H

#include "retsnoop_state.bpf.h"
#include "session_slot.bpf.h"
#include "tgid_set.bpf.h"
#include "records.bpf.h"

/*
 * uprobe session links (Linux 6.13+): which of the two runs this is. A call of helper
 * SESSION_RET_MARK that session_prog__prepare() turns into the kfunc
 * bpf_session_is_return() before load (records.h says why not a __ksym extern).
 */
/* unused where this header is compiled alone (tests/unit/bpf_headers.sh) */
static bool (*usession_is_return)(void *ctx) __attribute__((unused)) = (void *)SESSION_RET_MARK;

/* struct session's entry_sp[] of a user stack pointer */
#define USER_SP32(sp)	((__u32)(sp) | 1)
#if defined(__TARGET_ARCH_x86)
#define URET_SP_ADJ	8	/* the return address: pushed by call, popped by ret */
#else
#define URET_SP_ADJ	0	/* arm64: the return address is in the link register */
#endif

/*
 * longjmp() and C++ exceptions leave functions without returning: their uretprobes never
 * fire (the kernel drops their return instances), and the frames would stay on our stack,
 * the next call nesting under them. The user stack tells which are gone: it grows down,
 * so a frame whose stack pointer at entry is below @limit (USER_SP32(): the next call's
 * stack pointer + 1, or the returning frame's own at its entry) is not running any more. Pop
 * those (and any kernel frame above them) as not returned: LAT_NO_RETURN in their
 * latency, the time until we found out. The chain below them stays: an error that
 * longjmp() carried up is still the error chain, through the frames it skipped.
 * Returns true when the session's entry frame itself was left: the session is over
 * (reported as if it returned, its error that of its chain) and freed.
 */
static __always_inline bool user_unwind(struct session *sess, __u32 limit, __s64 key, __u64 now)
{
	__u32 d = sess->stack.depth, nd = d, n, i, sp;

	if (d == 0 || d > MAX_FSTACK_DEPTH)
		return false;
	/* the usual case first: the innermost frame is a user frame still running */
	sp = sess->entry_sp[frame_idx(d - 1)];
	if (sp && (__s32)(sp - limit) >= 0)
		return false;
	for (n = 0; n < MAX_FSTACK_DEPTH; n++) {
		if (n >= d)
			break;
		i = frame_idx(d - 1 - n);
		sp = sess->entry_sp[i];
		if (!sp)
			continue;	/* a kernel frame: gone if a user frame below it is */
		if ((__s32)(sp - limit) >= 0)
			break;
		nd = i;
	}
	if (nd == d)
		return false;
	for (n = 0; n < MAX_FSTACK_DEPTH; n++) {
		i = frame_idx(nd + n);
		if (nd + n >= d)
			break;
		sess->stack.func_res[i] = 0;
		sess->stack.func_lat[i] = ((now - sess->entry_ts[i]) & ~LAT_NO_RETURN) |
					  LAT_NO_RETURN;
	}
	/* the chains kept aside for the left frames' callees are stale (see resync_stack()) */
	for (n = 0; n < MAX_FRAGS; n++) {
		if (sess->frag_cnt == 0 ||
		    sess->frags[(sess->frag_cnt - 1) & (MAX_FRAGS - 1)].start <= nd)
			break;
		sess->frag_cnt--;
	}
	/* calls beyond MAX_FSTACK_DEPTH ran above the left frames: gone too */
	sess->overflow = 0;
	sess->stack.depth = nd;
	if (nd > 0)
		return false;
	emit_session_end(sess, now, false);
	end_session(sess, key);
	return true;
}

/*
 * Every syscall's return, while user functions are traced (a raw tracepoint: no tracefs
 * needed). Only threads inside a session with a traced frame running pay more than a
 * lookup; a failure is remembered with the innermost traced frame's call.
 */
SEC("raw_tp/sys_exit")
int usys_exit(__u64 *ctx)
{
	struct session *sess;
	long ret = (long)ctx[1];
	__u32 d;

	if (!ready || ret >= 0 || ret < -MAX_ERRNO || !task_traced())
		return 0;
	sess = find_session(session_key(bpf_get_current_pid_tgid()));
	if (!sess)
		return 0;
	d = sess->stack.depth;
	if (d == 0 || d > MAX_FSTACK_DEPTH)
		return 0;
	sess->sys_err = -ret;
	sess->sys_err_seq = sess->stack.seq_ids[frame_idx(d - 1)];
	return 0;
}

/*
 * exec() replaces the program under a session that began in it: the old image's traced
 * frames never return, and the new image's calls would nest under them in a session that
 * never ends. Such a session ends here, unreported as at exit (its kernel frames of
 * execve's own, if traced, find no session on return); the new image's calls start anew.
 * A session that began in the kernel (a traced execve) goes on.
 */
SEC("raw_tp/sched_process_exec")
int uexec(void *ctx)
{
	__s64 key = session_key(bpf_get_current_pid_tgid());
	struct session *sess;
	struct func_info *fi;
	__u32 id;

	if (!ready)
		return 0;
	sess = find_session(key);
	if (!sess || !sess->stack.depth)
		return 0;
	id = sess->stack.func_ids[0];
	fi = bpf_map_lookup_elem(&func_infos, &id);
	if (fi && (fi->flags & FUNC_USER))
		end_session(sess, key);
	return 0;
}

#endif /* __RETSNOOP_USER_SESSION_BPF_H */
