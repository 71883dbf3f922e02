// SPDX-License-Identifier: BSD-2-Clause
/*
 * The pruned program put together (prog_prune.h): what stays, settings read as numbers,
 * then jumps, calls, callbacks and the function and line records renumbered.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "prog_prune_int.h"

/* Copy records of @rec_sz bytes (insn_off first) whose instruction stays, renumbered */
static __u32 remap_recs(const void *src, __u32 rec_sz, __u32 cnt, void *dst, const long *pos,
			const __u8 *fate, size_t insn_cnt)
{
	__u32 k, n = 0, off;
	__u8 *d = dst;

	for (k = 0; k < cnt; k++) {
		const __u8 *r = (const __u8 *)src + (size_t)k * rec_sz;

		memcpy(&off, r, sizeof(off));
		if (off >= insn_cnt || fate[off] == F_GONE)
			continue;
		off = pos[off];
		/* two records now on one instruction: the later one, nearer to it, wins */
		if (n) {
			__u32 prev;

			memcpy(&prev, d + (size_t)(n - 1) * rec_sz, sizeof(prev));
			if (prev == off)
				n--;
		}
		memcpy(d + (size_t)n * rec_sz, r, rec_sz);
		memcpy(d + (size_t)n * rec_sz, &off, sizeof(off));
		n++;
	}
	return n;
}

/* The records renumbered into a new array (*@out_cnt of them), NULL when out of memory */
static void *remap_info(const void *src, __u32 rec_sz, __u32 cnt, __u32 *out_cnt,
			const long *pos, const __u8 *fate, size_t insn_cnt)
{
	void *dst = calloc(cnt, rec_sz);

	if (dst)
		*out_cnt = remap_recs(src, rec_sz, cnt, dst, pos, fate, insn_cnt);
	return dst;
}

/*
 * A kept load of .rodata, or arithmetic on what such loads read, whose result is a known
 * number becomes a move of that number (if an immediate holds it): the verifier knew it
 * too, but the JIT would load it at every run; the loads that fed it may then go
 * (prune__dead_defs()). How many were rewritten in @w.
 */
static size_t fold_consts(const struct pass *p, struct bpf_insn *w, const __u8 *fate)
{
	size_t i, n = 0;

	for (i = 0; i < p->in->insn_cnt; i++) {
		const struct bpf_insn *x = &w[i];
		__u8 cls = BPF_CLASS(x->code), dec;
		struct val r[MAX_BPF_REG];
		long succ[2];
		__u64 v;

		if (prune__is_ld64(x)) {
			i++;
			continue;
		}
		if (fate[i] != F_KEPT || (cls != BPF_LDX && cls != BPF_ALU && cls != BPF_ALU64))
			continue;
		if (cls != BPF_LDX && BPF_OP(x->code) == BPF_MOV && BPF_SRC(x->code) == BPF_K)
			continue;	/* one already */
		memcpy(r, p->st[i].r, sizeof(r));
		if (prune__step(p, i, r, succ, &dec) || r[x->dst_reg].kind != V_CONST)
			continue;
		v = r[x->dst_reg].v;
		if ((__s64)(__s32)v == (__s64)v)
			w[i] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K,
						  .dst_reg = x->dst_reg, .imm = (__s32)v };
		else if (!(v >> 32))	/* a 32-bit move zero-extends */
			w[i] = (struct bpf_insn){ .code = BPF_ALU | BPF_MOV | BPF_K,
						  .dst_reg = x->dst_reg, .imm = (__s32)(__u32)v };
		else
			continue;
		n++;
	}
	return n;
}

int prune__emit(struct prog_prune *pp, const struct pass *p, const __u32 *starts, size_t nsub,
		const bool *used)
{
	const struct prog_text *in = p->in;
	size_t cnt = in->insn_cnt, i, n = 0;
	bool *is_start;
	struct bpf_insn *work;
	__u8 *fate;
	long *pos;
	int err = -ENOMEM;

	work = calloc(cnt, sizeof(*work));
	fate = calloc(cnt, sizeof(*fate));
	is_start = calloc(cnt, sizeof(*is_start));
	pos = calloc(cnt + 1, sizeof(*pos));
	pp->new_idx = calloc(cnt, sizeof(*pp->new_idx));
	pp->insns = calloc(cnt, sizeof(*pp->insns));
	if (!work || !fate || !is_start || !pos || !pp->new_idx || !pp->insns)
		goto out;
	for (i = 0; i < nsub; i++)
		is_start[starts[i]] = true;
	for (i = 0; i < cnt; i++) {
		const struct bpf_insn *x = &in->insns[i];
		bool live = p->st[i].seen && used[prune__subprog_of(starts, nsub, i)];

		/* a branch never taken goes, but a subprogram keeps its first instruction */
		if (live && prune__is_cond_jump(x) && p->decision[i] == D_FALL && !is_start[i]) {
			fate[i] = F_PASS;
			pp->decided++;
			continue;
		}
		fate[i] = live ? F_KEPT : F_GONE;
		if (prune__is_ld64(x) && i + 1 < cnt)
			fate[++i] = live ? F_KEPT : F_GONE;
	}
	memcpy(work, in->insns, cnt * sizeof(*work));
	pp->folded = fold_consts(p, work, fate);
	pp->dead_defs = prune__dead_defs(work, cnt, fate, p->decision, is_start, p->half);
	for (i = 0; i < cnt; i++) {
		pos[i] = n;
		n += fate[i] == F_KEPT;
	}
	pos[cnt] = n;
	for (i = 0; i < cnt; i++) {
		const struct bpf_insn *x = &work[i];
		struct bpf_insn *y;
		long t;

		pp->new_idx[i] = fate[i] == F_KEPT ? pos[i] : -1;
		if (fate[i] != F_KEPT)
			continue;
		y = &pp->insns[pos[i]];
		*y = *x;
		if (prune__is_ld64(x)) {
			y[1] = x[1];
			pp->new_idx[i + 1] = pos[i + 1];
		}
		if (prune__is_pseudo_call(x) || prune__is_func_ref(x)) {
			t = (long)i + x->imm + 1;
			y->imm = pos[t] - pos[i] - 1;
		} else if (prune__has_target(x)) {
			t = prune__target(x, i);
			if (t < 0 || (size_t)t >= cnt)
				goto inval;
			if (prune__is_cond_jump(x) && p->decision[i] == D_TAKEN) {
				*y = (struct bpf_insn){ .code = BPF_JMP | BPF_JA };
				pp->decided++;
			} else if (prune__is_cond_jump(x) && p->decision[i] == D_FALL) {
				/* a subprogram's first instruction: a jump to the next */
				*y = (struct bpf_insn){ .code = BPF_JMP | BPF_JA };
				pp->decided++;
				t = i + 1;
			}
			if (y->code == (BPF_JMP32 | BPF_JA))
				y->imm = pos[t] - pos[i] - 1;
			else if (pos[t] - pos[i] - 1 < -32768 || pos[t] - pos[i] - 1 > 32767)
				goto inval;
			else
				y->off = pos[t] - pos[i] - 1;
		}
		i += prune__is_ld64(x);
	}
	pp->removed = cnt - n;
	pp->out.insns = pp->insns;
	pp->out.insn_cnt = n;
	if (in->func_info_cnt &&
	    !(pp->func_info = remap_info(in->func_info, in->func_info_rec_size, in->func_info_cnt,
					 &pp->out.func_info_cnt, pos, fate, cnt)))
		goto out;
	pp->out.func_info = pp->func_info;
	pp->out.func_info_rec_size = in->func_info_rec_size;
	if (in->line_info_cnt &&
	    !(pp->line_info = remap_info(in->line_info, in->line_info_rec_size, in->line_info_cnt,
					 &pp->out.line_info_cnt, pos, fate, cnt)))
		goto out;
	pp->out.line_info = pp->line_info;
	pp->out.line_info_rec_size = in->line_info_rec_size;
	pp->in_cnt = cnt;
	err = 0;
	goto out;
inval:
	err = -EINVAL;
out:
	free(work);
	free(fate);
	free(is_start);
	free(pos);
	return err;
}

