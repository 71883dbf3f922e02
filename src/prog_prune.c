// SPDX-License-Identifier: BSD-2-Clause
/*
 * Dropping the code a program's frozen .rodata makes dead, before load (prog_prune.h): the
 * constant propagation that decides branches, and which subprograms stay.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "opts.h"
#include "prog_prune.h"
#include "prog_prune_int.h"

static bool val_eq(const struct val *a, const struct val *b)
{
	return a->kind == b->kind && (a->kind == V_UNK || a->v == b->v);
}

/* Little-endian, as BPF targets this pass runs on: @size bytes of .rodata at @off */
static bool rodata_read(const struct pass *p, __s64 off, int size, __u64 *v)
{
	const __u8 *b = p->o.rodata;
	int k;

	if (off < 0 || (__u64)off + size > p->o.rodata_sz)
		return false;
	*v = 0;
	for (k = size - 1; k >= 0; k--)
		*v = *v << 8 | b[off + k];
	return true;
}

static int size_bytes(__u8 code)
{
	switch (BPF_SIZE(code)) {
	case BPF_B: return 1;
	case BPF_H: return 2;
	case BPF_W: return 4;
	default: return 8;
	}
}

static __u64 sext(__u64 v, int bits)
{
	return bits >= 64 ? v : (__u64)(((__s64)(v << (64 - bits))) >> (64 - bits));
}

/* dst op= src on known numbers; false: not modelled (the result is unknown) */
static bool alu(__u8 op, bool is64, __s16 off, __u64 *d, __u64 s)
{
	__u64 a = *d, r;
	int w = is64 ? 64 : 32;

	if (!is64) {
		a = (__u32)a;
		s = (__u32)s;
	}
	switch (op) {
	case BPF_ADD: r = a + s; break;
	case BPF_SUB: r = a - s; break;
	case BPF_MUL: r = a * s; break;
	case BPF_OR: r = a | s; break;
	case BPF_AND: r = a & s; break;
	case BPF_XOR: r = a ^ s; break;
	case BPF_LSH: r = a << (s & (w - 1)); break;
	case BPF_RSH: r = a >> (s & (w - 1)); break;
	case BPF_ARSH: r = (__u64)((__s64)sext(a, w) >> (s & (w - 1))); break;
	case BPF_NEG: r = -a; break;
	case BPF_MOV:
		if (off && off != 8 && off != 16 && off != 32)
			return false;
		r = off ? sext(s, off) : s;
		break;
	default:
		return false;	/* division, byte swaps: not seen deciding a branch */
	}
	*d = is64 ? r : (__u32)r;
	return true;
}

/* The ALU instruction @in applied to @r; false: an encoding not known here */
static bool step_alu(const struct pass *p, const struct bpf_insn *in, struct val *r)
{
	bool is64 = BPF_CLASS(in->code) == BPF_ALU64;
	__u8 op = BPF_OP(in->code);
	struct val *d = &r[in->dst_reg], s;

	(void)p;
	if (op == BPF_END) {
		d->kind = V_UNK;
		return true;
	}
	if (BPF_SRC(in->code) == BPF_X) {
		if (in->src_reg >= MAX_BPF_REG)
			return false;
		s = r[in->src_reg];
	} else if (op == BPF_MOV) {
		/* see enum val_kind: a moved immediate is no .rodata fact */
		d->kind = V_UNK;
		return true;
	} else {
		s = (struct val){ V_CONST, (__u64)(__s64)in->imm };
	}
	if (op == BPF_MOV && BPF_SRC(in->code) == BPF_X && is64 && !in->off) {
		*d = s;
		return true;
	}
	/* a pointer into .rodata moved by a constant: still one */
	if (d->kind == V_RODATA && is64 && s.kind == V_CONST && (op == BPF_ADD || op == BPF_SUB)) {
		d->v = op == BPF_ADD ? d->v + s.v : d->v - s.v;
		return true;
	}
	if (op == BPF_NEG)
		s = (struct val){ V_CONST, 0 };
	if (s.kind != V_CONST || (op != BPF_MOV && d->kind != V_CONST) ||
	    !alu(op, is64, in->off, &d->v, s.v)) {
		d->kind = V_UNK;
		return true;
	}
	d->kind = V_CONST;
	return true;
}

/* Is the branch @in taken with @a and @b? Its encoding known: *known set */
static bool branch_taken(__u8 code, __u64 a, __u64 b, bool *known)
{
	bool is32 = BPF_CLASS(code) == BPF_JMP32;
	__s64 sa, sb;

	if (is32) {
		a = (__u32)a;
		b = (__u32)b;
		sa = (__s32)a;
		sb = (__s32)b;
	} else {
		sa = a;
		sb = b;
	}
	*known = true;
	switch (BPF_OP(code)) {
	case BPF_JEQ: return a == b;
	case BPF_JNE: return a != b;
	case BPF_JGT: return a > b;
	case BPF_JGE: return a >= b;
	case BPF_JLT: return a < b;
	case BPF_JLE: return a <= b;
	case BPF_JSGT: return sa > sb;
	case BPF_JSGE: return sa >= sb;
	case BPF_JSLT: return sa < sb;
	case BPF_JSLE: return sa <= sb;
	case BPF_JSET: return a & b;
	default:
		*known = false;
		return false;
	}
}

static void unknown_regs(struct val *r, int from, int to)
{
	for (; from <= to; from++)
		r[from].kind = V_UNK;
}

/*
 * Instruction @i on state @r (changed in place into its successors' state): its
 * successors in @succ (at most 2; -1 for none), the branch decided or not in *@dec.
 * -EOPNOTSUPP for an instruction not modelled.
 */
int prune__step(const struct pass *p, size_t i, struct val *r, long succ[2], __u8 *dec)
{
	const struct bpf_insn *in = &p->in->insns[i];
	__u8 cls = BPF_CLASS(in->code), op = BPF_OP(in->code), mode = BPF_MODE(in->code);
	long next = (long)i + 1 + prune__is_ld64(in);

	succ[0] = next;
	succ[1] = -1;
	*dec = D_OPEN;
	if (in->dst_reg >= MAX_BPF_REG)
		return -EOPNOTSUPP;
	switch (cls) {
	case BPF_LD:
		if (prune__is_ld64(in)) {
			if (i + 1 >= p->in->insn_cnt)
				return -EOPNOTSUPP;
			if (in->src_reg == BPF_PSEUDO_MAP_VALUE && in->imm == p->o.rodata_fd)
				r[in->dst_reg] = (struct val){ V_RODATA, (__u64)(__s64)in[1].imm };
			else
				r[in->dst_reg].kind = V_UNK;
			return 0;
		}
		if (mode == BPF_ABS || mode == BPF_IND) {
			unknown_regs(r, BPF_REG_0, BPF_REG_5);
			return 0;
		}
		return -EOPNOTSUPP;
	case BPF_LDX: {
		const struct val *s = &r[in->src_reg];
		__u64 v;

		if (in->src_reg >= MAX_BPF_REG || (mode != BPF_MEM && mode != BPF_MEMSX))
			return -EOPNOTSUPP;
		if (s->kind == V_RODATA &&
		    rodata_read(p, (__s64)s->v + in->off, size_bytes(in->code), &v)) {
			if (mode == BPF_MEMSX)
				v = sext(v, 8 * size_bytes(in->code));
			r[in->dst_reg] = (struct val){ V_CONST, v };
		} else {
			r[in->dst_reg].kind = V_UNK;
		}
		return 0;
	}
	case BPF_ST:
		return mode == BPF_MEM ? 0 : -EOPNOTSUPP;
	case BPF_STX:
		if (mode != BPF_MEM && mode != BPF_ATOMIC)
			return -EOPNOTSUPP;
		if (mode == BPF_ATOMIC) {
			if (in->imm == BPF_CMPXCHG)
				r[BPF_REG_0].kind = V_UNK;
			else if ((in->imm & BPF_FETCH) && in->src_reg < MAX_BPF_REG)
				r[in->src_reg].kind = V_UNK;
		}
		return 0;
	case BPF_ALU:
	case BPF_ALU64:
		return step_alu(p, in, r) ? 0 : -EOPNOTSUPP;
	case BPF_JMP:
	case BPF_JMP32:
		break;
	default:
		return -EOPNOTSUPP;
	}

	/* exit, calls and jumps by an immediate only: what else the kernel knows, we don't */
	if ((op == BPF_EXIT || op == BPF_CALL || op == BPF_JA || op == BPF_JCOND) &&
	    (BPF_SRC(in->code) != BPF_K || ((op == BPF_EXIT || op == BPF_CALL) && cls != BPF_JMP)))
		return -EOPNOTSUPP;
	if (op == BPF_EXIT) {
		succ[0] = -1;
		return 0;
	}
	if (op == BPF_CALL) {
		unknown_regs(r, BPF_REG_0, BPF_REG_5);
		return 0;
	}
	if (op == BPF_JA) {
		succ[0] = prune__target(in, i);
		return 0;
	}
	if (op == BPF_JCOND) {	/* may_goto: the kernel decides */
		succ[1] = prune__target(in, i);
		return 0;
	}
	{
		const struct val *a = &r[in->dst_reg];
		struct val b = BPF_SRC(in->code) == BPF_X ?
			(in->src_reg < MAX_BPF_REG ? r[in->src_reg] : (struct val){ V_UNK, 0 }) :
			(struct val){ V_CONST, (__u64)(__s64)in->imm };
		bool known, taken;

		taken = branch_taken(in->code, a->v, b.v, &known);
		if (!known)
			return -EOPNOTSUPP;
		if (a->kind == V_CONST && b.kind == V_CONST) {
			*dec = taken ? D_TAKEN : D_FALL;
			if (taken)
				succ[0] = prune__target(in, i);
			return 0;
		}
		succ[1] = prune__target(in, i);
		return 0;
	}
}

/* Merge @r into instruction @t's entry state; true when that changed it (or first reached) */
static bool merge_into(struct pass *p, long t, const struct val *r)
{
	struct insn_state *s = &p->st[t];
	bool changed = false;
	int k;

	if (!s->seen) {
		memcpy(s->r, r, sizeof(s->r));
		s->seen = true;
		return true;
	}
	for (k = 0; k < MAX_BPF_REG; k++) {
		if (s->r[k].kind == V_UNK || val_eq(&s->r[k], &r[k]))
			continue;
		s->r[k].kind = V_UNK;
		changed = true;
	}
	return changed;
}

static void push(struct pass *p, long t)
{
	if (p->queued[t])
		return;
	p->queued[t] = true;
	p->work[p->work_cnt++] = t;
}

/*
 * Propagate from subprogram entry @start (all registers unknown; the next subprogram, or
 * the end, at @end) to a fixed point: every
 * instruction its reachable paths can reach is seen, every branch its decision. States
 * only lose knowledge, so each instruction is revisited a bounded number of times.
 */
static int propagate(struct pass *p, size_t start, size_t end)
{
	struct val r[MAX_BPF_REG] = {};

	merge_into(p, start, r);
	push(p, start);
	while (p->work_cnt) {
		long i = p->work[--p->work_cnt], succ[2];
		__u8 dec;
		int k, err;

		p->queued[i] = false;
		memcpy(r, p->st[i].r, sizeof(r));
		err = prune__step(p, i, r, succ, &dec);
		if (err)
			return err;
		/*
		 * Knowledge only goes (a known register becomes unknown, never another
		 * number): a decided branch may open, an open one stays open.
		 */
		if (p->decision[i] == D_UNSET || dec == D_OPEN) {
			p->decision[i] = dec;
		} else if (p->decision[i] != dec) {
			p->decision[i] = D_OPEN;	/* not expected; both ways then */
			succ[0] = i + 1;
			succ[1] = prune__target(&p->in->insns[i], i);
		}
		for (k = 0; k < 2; k++) {
			if (succ[k] < 0)
				continue;
			/*
			 * The verifier refuses a jump or a fall out of a subprogram too, and
			 * into a 16-byte load's second half
			 */
			if ((size_t)succ[k] < start || (size_t)succ[k] >= end ||
			    p->half[succ[k]])
				return -EINVAL;
			if (merge_into(p, succ[k], r))
				push(p, succ[k]);
		}
	}
	return 0;
}

/* Where the subprograms start (0 and every call's or callback load's target), sorted */
static size_t subprog_starts(const struct prog_text *in, __u32 *starts)
{
	size_t n = 1, i, j;

	starts[0] = 0;
	for (i = 0; i < in->insn_cnt; i++) {
		const struct bpf_insn *x = &in->insns[i];
		long t;

		if (prune__is_pseudo_call(x) || prune__is_func_ref(x)) {
			t = (long)i + x->imm + 1;
			if (t <= 0 || (size_t)t >= in->insn_cnt)
				return 0;
			for (j = 0; j < n && starts[j] != (__u32)t; j++)
				;
			if (j == n)
				starts[n++] = t;
		}
		i += prune__is_ld64(x);
	}
	/* insertion sort: a handful of subprograms */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && starts[j - 1] > starts[j]; j--) {
			__u32 s = starts[j];

			starts[j] = starts[j - 1];
			starts[j - 1] = s;
		}
	return n;
}

size_t prune__subprog_of(const __u32 *starts, size_t n, size_t i)
{
	size_t k = n - 1;

	while (k > 0 && starts[k] > i)
		k--;
	return k;
}

/*
 * Which subprograms stay: the main one, and those a kept instruction of a kept one calls
 * or hands over as a callback.
 */
static void mark_used(const struct pass *p, const __u32 *starts, size_t n, bool *used)
{
	size_t i, k;
	bool more = true;

	used[0] = true;
	while (more) {
		more = false;
		for (i = 0; i < p->in->insn_cnt; i++) {
			const struct bpf_insn *x = &p->in->insns[i];

			if (p->st[i].seen && used[prune__subprog_of(starts, n, i)] &&
			    (prune__is_pseudo_call(x) || prune__is_func_ref(x))) {
				k = prune__subprog_of(starts, n, i + x->imm + 1);
				if (!used[k])
					used[k] = more = true;
			}
			i += prune__is_ld64(x);
		}
	}
}

static bool text_valid(const struct prog_text *in)
{
	if (!in || !in->insns || !in->insn_cnt || in->insn_cnt > (1u << 24))
		return false;
	if (in->func_info_cnt && (!in->func_info || in->func_info_rec_size < 2 * sizeof(__u32)))
		return false;
	if (in->line_info_cnt && (!in->line_info || in->line_info_rec_size < sizeof(__u32)))
		return false;
	return true;
}

struct prog_prune *prog_prune__new(const struct prog_text *in, const struct prog_prune_opts *opts)
{
	struct prog_prune *pp = NULL;
	struct pass p = { .in = in };
	__u32 *starts = NULL;
	bool *used = NULL;
	size_t cnt, nsub, k;
	int err = -EINVAL;

	if (OPTS_COPY(&p.o, opts) || !text_valid(in) || !p.o.rodata || !p.o.rodata_sz)
		return errno = EINVAL, NULL;
	cnt = in->insn_cnt;
	err = -ENOMEM;
	p.st = calloc(cnt, sizeof(*p.st));
	p.decision = calloc(cnt, sizeof(*p.decision));
	p.work = calloc(cnt, sizeof(*p.work));
	p.queued = calloc(cnt, sizeof(*p.queued));
	p.half = calloc(cnt, sizeof(*p.half));
	starts = calloc(cnt, sizeof(*starts));
	used = calloc(cnt, sizeof(*used));
	pp = calloc(1, sizeof(*pp));
	if (!p.st || !p.decision || !p.work || !p.queued || !p.half || !starts || !used || !pp)
		goto err;
	for (k = 0; k + 1 < cnt; k++)
		if (prune__is_ld64(&in->insns[k]))
			p.half[++k] = true;
	err = -EINVAL;
	nsub = subprog_starts(in, starts);
	if (!nsub)
		goto err;
	for (k = 0; k < nsub; k++)
		if (p.half[starts[k]])
			goto err;
	for (k = 0; k < nsub; k++) {
		err = propagate(&p, starts[k], k + 1 < nsub ? starts[k + 1] : cnt);
		if (err)
			goto err;
	}
	mark_used(&p, starts, nsub, used);
	err = prune__emit(pp, &p, starts, nsub, used);
	if (err)
		goto err;
	goto out;
err:
	prog_prune__free(pp);
	pp = NULL;
	errno = -err;
out:
	free(p.st);
	free(p.decision);
	free(p.work);
	free(p.queued);
	free(p.half);
	free(starts);
	free(used);
	return pp;
}

const struct prog_text *prog_prune__text(const struct prog_prune *p)
{
	return &p->out;
}

size_t prog_prune__removed(const struct prog_prune *p)
{
	return p->removed;
}

size_t prog_prune__decided(const struct prog_prune *p)
{
	return p->decided;
}

size_t prog_prune__dead_defs(const struct prog_prune *p)
{
	return p->dead_defs;
}

size_t prog_prune__folded(const struct prog_prune *p)
{
	return p->folded;
}

long prog_prune__new_index(const struct prog_prune *p, size_t old)
{
	return old < p->in_cnt ? p->new_idx[old] : -1;
}

void prog_prune__free(struct prog_prune *p)
{
	if (!p)
		return;
	free(p->insns);
	free(p->func_info);
	free(p->line_info);
	free(p->new_idx);
	free(p);
}
