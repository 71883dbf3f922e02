/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * A session's error chain: which returning frame failed, whether its error came from a
 * failed callee (the chain goes on below it), from an earlier failed callee whose chain
 * was kept aside while cleanup ran (struct frag), or from the frame itself (the kernel
 * stack and LBR taken there). The entry handler keeps chains aside, the exit handler
 * settles each result.
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_ERR_CHAIN_BPF_H
#define __RETSNOOP_ERR_CHAIN_BPF_H

#include "retsnoop_state.bpf.h"
#include "lbr_snap.bpf.h"
#include "args.bpf.h"
#include "user_err.h"

/* Must match result__is_err() in user space: one rule for the stack and the call trace. */
static __always_inline bool is_err_result(__u32 flags, __s64 res)
{
	if (flags & FUNC_CANT_FAIL)
		return false;
	if (flags & FUNC_USER)
		return user_err__is_err(flags, res);	/* src/user_err.h, shared with user space */
	if (flags & FUNC_RET_PTR)
		return res == 0 || (res >= -MAX_ERRNO && res < 0);
	if (flags & FUNC_NEEDS_SIGN_EXT)
		res = (__s32)res;
	return res >= -MAX_ERRNO && res < 0;
}

/*
 * Copy call levels [from, to) of the traced frames from @src to @dst. Out of line: two to
 * four callers a program (keeping a chain aside, putting it back, the interim samples)
 * share one copy for 7.x's liveness pass (send_session_end()).
 */
static __noinline int copy_levels(struct call_stack *dst, const struct call_stack *src,
				  __u32 from, __u32 to)
{
	__u32 n;

	if (to > MAX_FSTACK_DEPTH || from >= to)
		return 0;
	/*
	 * Four helper calls rather than a loop over the levels (see copy_words()). The mask
	 * and the test only give the verifier bounds: from < to <= MAX_FSTACK_DEPTH holds.
	 */
	n = to - from;
	from = frame_idx(from);
	barrier_var(n);
	if (n > MAX_FSTACK_DEPTH)
		return 0;
	/* older verifiers (6.1) need the sizes made from the very register just tested */
	barrier_var(n);
	n &= 2 * MAX_FSTACK_DEPTH - 1;
	bpf_probe_read_kernel(&dst->func_ids[from], n * sizeof(__u32), &src->func_ids[from]);
	bpf_probe_read_kernel(&dst->seq_ids[from], n * sizeof(__u32), &src->seq_ids[from]);
	bpf_probe_read_kernel(&dst->func_res[from], n * sizeof(__s64), &src->func_res[from]);
	bpf_probe_read_kernel(&dst->func_lat[from], n * sizeof(__u64), &src->func_lat[from]);
	return 0;
}

/* Bits for call levels >= @from (and < 64). */
static __always_inline __u64 levels_from(__u32 from)
{
	return from >= MAX_FSTACK_DEPTH ? 0 : ~0ULL << from;
}

/*
 * A call at level @d is about to overwrite the error chain [d, max_depth) that its caller's
 * previous callee returned: keep it aside until the caller returns.
 */
static __always_inline struct frag *keep_chain(struct session *sess, __u32 d)
{
	__u32 n = sess->frag_cnt, slot;
	struct frag *f;

	if (n > 0 && sess->frags[(n - 1) & (MAX_FRAGS - 1)].start == d) {
		/* an earlier failed callee of the same caller: the later error replaces it */
		slot = n - 1;
	} else if (n < MAX_FRAGS) {
		slot = n;
		sess->frag_cnt = n + 1;
	} else {
		sess->lost_levels |= 1ULL << (d & 63);
		sess->lost_last = d + 1;
		sess->lost_err = sess->stack.func_res[frame_idx(d)];
		sess->lost_handled = false;
		return NULL;
	}
	f = &sess->frags[slot & (MAX_FRAGS - 1)];
	f->start = d;
	f->handled = false;
	f->passed_in = false;
	f->chain_flags = sess->chain_flags;
	/* the chain's last record: the call overwriting it already took next_seq_id - 1 */
	f->last_seq_id = sess->next_seq_id - 2;
	f->cs.max_depth = sess->stack.max_depth;
	f->cs.stitched = sess->stack.stitched;
	f->cs.kstack_sz = sess->stack.kstack_sz;
	copy_words(f->cs.kstack, sess->stack.kstack, sizeof(f->cs.kstack));
	if (capture_lbr) {
		f->lbrs_sz = sess->lbrs_sz;
		copy_words(f->lbrs, sess->lbrs, sizeof(f->lbrs));
	}
	copy_levels(&f->cs, &sess->stack, d, sess->stack.max_depth);
	return f;
}

/*
 * Whether function @id, being entered, was handed @res, the ERR_PTR() its caller's
 * previous callee failed with, as one of its first six arguments: path_lookupat() hands
 * the ERR_PTR(-ENOENT) of a missing last component to link_path_walk(), which returns it
 * at once; that call only passes the error on. An exact 64-bit error pointer is what such
 * a call's argument is and what an unrelated one almost never is (an int errno in a
 * register is no pointer: those aren't taken). Only the registers of the arguments it has
 * (its type's count; none without one): the others hold whatever the caller left there,
 * an error value just returned among them. Without bpf_get_func_arg() (fentry before
 * 5.17) nothing is taken.
 */
static __always_inline bool error_passed_in(void *ctx, bool fentry, __u32 id, __s64 res)
{
	struct func_info *fi;
	__u32 n, i;

	if (res < -MAX_ERRNO || res >= 0)
		return false;
	fi = bpf_map_lookup_elem(&func_infos, &id);
	n = fi ? fi->arg_cnt : 0;
	for (i = 0; i < 6; i++)
		if (i < n && entry_arg(ctx, fentry, i) == res)
			return true;
	return false;
}

/* The frame at level @d failed after its failed callee's chain was kept aside: put it back. */
static __always_inline void restore_chain(struct session *sess, struct frag *f, __u32 d)
{
	__u32 end = f->cs.max_depth;

	copy_levels(&sess->stack, &f->cs, d + 1, end);
	sess->stack.max_depth = end;
	sess->chain_flags = f->chain_flags;
	sess->stack.stitched = (sess->stack.stitched & ~levels_from(d)) | levels_from(d + 1);
	sess->stack.kstack_sz = f->cs.kstack_sz;
	copy_words(sess->stack.kstack, f->cs.kstack, sizeof(sess->stack.kstack));
	if (capture_lbr) {
		sess->lbrs_sz = f->lbrs_sz;
		copy_words(sess->lbrs, f->lbrs, sizeof(sess->lbrs));
	}
}

static __always_inline void capture_origin(void *ctx, struct session *sess, __u32 flags)
{
	struct lbr_snapshot *snap;
	__u32 zero = 0;

	/* a uprobe's kernel stack is the breakpoint trap's: nothing of the program's */
	if (flags & FUNC_USER) {
		sess->stack.kstack_sz = 0;
		sess->lbrs_sz = 0;
		return;
	}

	if (kstack_from_task)
		sess->stack.kstack_sz = bpf_get_task_stack(bpf_get_current_task_btf(),
							   sess->stack.kstack,
							   sizeof(sess->stack.kstack), 0);
	else
		sess->stack.kstack_sz = bpf_get_stack(ctx, sess->stack.kstack,
						      sizeof(sess->stack.kstack), 0);
	if (!capture_lbr)
		return;
	snap = bpf_map_lookup_elem(&lbr_snaps, &zero);
	if (!snap)
		return;
	sess->lbrs_sz = snap->sz;
	copy_words(sess->lbrs, snap->lbrs, sizeof(sess->lbrs));
}

/* The same error: errnos agree in their low 32 bits, for int, long and ERR_PTR() alike. */
static __always_inline bool same_error(__s64 a, __s64 b)
{
	return (__s32)a == (__s32)b;
}

/*
 * The frame at level @d failed on its own with @res, the very error of the chain its caller's
 * previous callee left (kept aside when this call began), having been handed that error as
 * an argument: it passed the error on, it didn't make it.
 */
static __always_inline bool passes_on(struct session *sess, struct frag *top, __u32 d,
				      __s64 res)
{
	return d > 0 && sess->frag_cnt > 0 && top->start == d && top->passed_in &&
	       same_error(res, top->cs.func_res[frame_idx(d)]);
}

/*
 * The frame at level @d, failing with @res, takes itself for the origin: would it have put
 * back its callees' chain, had that been kept aside? Yes, unless it was the last one lost
 * and a later callee that could fail succeeded and @res is another error (restore_chain()'s
 * rule); an older one lost there is taken as yes.
 */
static __always_inline bool lost_chain_mattered(struct session *sess, __u32 d, __s64 res)
{
	if (d + 1 >= 64 || !(sess->lost_levels >> (d + 1) & 1))
		return false;
	return sess->lost_last != d + 2 || !sess->lost_handled || same_error(res, sess->lost_err);
}

/*
 * The frame at level @d returned @res. Decide what the session's error chain is now:
 * - failed after a failed last callee: the error came from there, the chain goes on below;
 * - failed after a non-failing last callee, with an earlier failed callee's chain kept
 *   aside: the error came from that chain (cleanup ran in between), put it back -- unless
 *   a later callee that could fail succeeded and this frame's error is another one (then
 *   the earlier error was dealt with, and this frame made its own);
 * - failed on its own with the error pointer it was handed by its caller, which its
 *   previous sibling had failed with: that sibling's chain takes its place (passes_on());
 * - failed otherwise: this frame is where the error originated (kernel stack taken here);
 * - succeeded although it could fail: an earlier failed sibling's chain may have been
 *   dealt with (marked, see struct frag);
 * - can't fail (void, bool, ...): says nothing about errors.
 */
static __always_inline void settle_result(void *ctx, struct session *sess, __u32 d,
					  __u32 flags, __s64 res)
{
	__u32 n = sess->frag_cnt;
	struct frag *top = &sess->frags[(n - 1) & (MAX_FRAGS - 1)];
	bool failed = is_err_result(flags, res);
	bool own = n > 0 && top->start == d + 1;	/* kept aside for this frame's callees */
	__s32 under = -1;

	if (failed && !sess->tail_err) {
		if (own && (!top->handled ||
			    same_error(res, top->cs.func_res[frame_idx(top->start)]))) {
			under = d;
		} else if (passes_on(sess, top, d, res)) {
			/*
			 * the sibling's chain takes level @d's place, as if put back under the
			 * caller (still running: its '*' bit is clear); the call that passed
			 * the error on stays in the call trace only
			 */
			under = d - 1;
		}
		if (under >= 0) {
			restore_chain(sess, top, under);
			if (under < d)
				sess->chain_flags |= SESS_F_PASSED_ON;
		} else {
			sess->stack.max_depth = d + 1;
			sess->stack.stitched &= ~levels_from(d);
			sess->chain_flags = lost_chain_mattered(sess, d, res) ?
					    SESS_F_CHAIN_LOST : 0;
			capture_origin(ctx, sess, flags);
		}
	} else if (!failed && emit_success_stacks && d + 1 == sess->stack.max_depth) {
		/* success samples show the most recently completed deepest path */
		capture_origin(ctx, sess, flags);
	}
	sess->tail_err = failed;
	/* a chain of this frame's callees not kept aside mattered above, or never will */
	if (sess->lost_levels && d + 1 < 64)
		sess->lost_levels &= ~(1ULL << (d + 1));

	/* a chain kept aside for this frame's callees is used up or stale now */
	if (own)
		sess->frag_cnt = --n;
	/* a sibling's failure that this successful call may have dealt with */
	if (!failed && !(flags & FUNC_CANT_FAIL) && n > 0)
		sess->frags[(n - 1) & (MAX_FRAGS - 1)].handled |=
			sess->frags[(n - 1) & (MAX_FRAGS - 1)].start == d;
	if (!failed && !(flags & FUNC_CANT_FAIL) && sess->lost_last == d + 1)
		sess->lost_handled = true;
}

/*
 * A failed user-space frame at level @d (in the error chain, settle_result() made sure):
 * if a syscall failed while it was the innermost traced frame, its errno goes with the
 * chain ("[-1 ENOENT]"), whether the kernel functions below it were traced or not. Its
 * failed callers keep the level: the errno shows on each of them.
 */
static __always_inline void note_sys_err(struct session *sess, __u32 d, __u32 flags, __s64 res)
{
	if (!sess->sys_err || !is_err_result(flags, res))
		return;
	if (sess->sys_err_seq != sess->stack.seq_ids[frame_idx(d)])
		return;
	sess->stack.sys_err = sess->sys_err;
	sess->stack.sys_err_level = d;
}

#endif /* __RETSNOOP_ERR_CHAIN_BPF_H */
