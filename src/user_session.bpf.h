/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * What sessions with user-space functions need beyond the entry and exit handlers (their
 * uprobe/uretprobe programs are with the kernel probes' in retsnoop.bpf.c): the errno of a
 * syscall that failed under a traced user-space frame (note_sys_err() in err_chain.bpf.h
 * puts it in the chain), and exec() ending a session that began in the old image.
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_USER_SESSION_BPF_H
#define __RETSNOOP_USER_SESSION_BPF_H

#include "retsnoop_state.bpf.h"
#include "session_slot.bpf.h"
#include "tgid_set.bpf.h"

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
