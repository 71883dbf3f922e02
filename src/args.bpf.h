/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * -A: a traced call's arguments, read at function entry. User space planned each
 * function once from BTF (struct func_args_spec, records.h): where every argument is and
 * how many bytes to read; here the plan is followed with no type work, into a per-CPU
 * buffer that goes out as one REC_FNARGS tied to the call by (session id, seq id).
 *
 * BPF-side only; a part of retsnoop.bpf.c.
 */
#ifndef __RETSNOOP_ARGS_BPF_H
#define __RETSNOOP_ARGS_BPF_H

#include "retsnoop_state.bpf.h"
#include "records.bpf.h"

/* errno values (asm-generic, the same on every architecture retsnoop supports) */
#define FNARG_E2BIG		7
#define FNARG_ENOSPC		28
#define FNARG_ENODATA		61
#define FNARG_EOPNOTSUPP	95

/* Set by user space before load (-A itself: capture_args). */
const volatile __u32 args_max_total = 3072;	/* args.max-total-args-size */
const volatile bool args_raw_ptrs = false;	/* args.capture-raw-ptrs */

/*
 * The argument registers of the calling convention, in order, as the kprobe's pt_regs
 * holds them at function entry, and where kernel addresses begin (a vararg from there on
 * may point to a string). The registers are copied out at fixed offsets: a load from the
 * context at an offset chosen at run time is refused by the verifier.
 */
#if defined(__TARGET_ARCH_x86)
#define ARG_REG_CNT	6
#define KERNEL_ADDR_MIN	0xff00000000000000ULL	/* with 5-level paging too */
#elif defined(__TARGET_ARCH_arm64)
#define ARG_REG_CNT	8
#define KERNEL_ADDR_MIN	0xffff000000000000ULL
#else
/* no plan is made for other architectures (user space says so): nothing is read */
#define ARG_REG_CNT	0
#define KERNEL_ADDR_MIN	(~0ULL)
#endif

static __always_inline void save_arg_regs(struct pt_regs *regs, __u64 *r)
{
#if ARG_REG_CNT >= 6
	r[0] = PT_REGS_PARM1(regs);
	r[1] = PT_REGS_PARM2(regs);
	r[2] = PT_REGS_PARM3(regs);
	r[3] = PT_REGS_PARM4(regs);
	r[4] = PT_REGS_PARM5(regs);
	r[5] = PT_REGS_PARM6(regs);
#endif
#if ARG_REG_CNT >= 8
	r[6] = PT_REGS_PARM7(regs);
	r[7] = PT_REGS_PARM8(regs);
#endif
}

/* Data room: a whole args.max-total-args-size, plus the largest argument that may start at its end. */
#define FNARGS_DATA_SZ	(MAX_FNARGS_TOTAL + 8 + MAX_FNARG_SIZE + 8)

/* A kprobe's argument registers, and a struct rec_fnargs being filled: the header, then data[]. */
struct fnargs_buf {
	__u64 regs[8];
	__u64 words[(sizeof(struct rec_fnargs) + FNARGS_DATA_SZ) / 8];
};

#define FNARGS_REC(b)	((struct rec_fnargs *)(b)->words)
#define FNARGS_DATA(b)	((__u8 *)(b)->words + sizeof(struct rec_fnargs))

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);			/* resized to the function count with -A */
	__type(key, __u32);
	__type(value, struct func_args_spec);
} fnargs_specs SEC(".maps");

/*
 * One buffer per CPU, indexed by CPU id: per-CPU maps can't hold values over 32 KiB.
 * Handlers don't migrate and don't nest on a CPU, so the buffer is the handler's own.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);			/* resized to the possible CPUs with -A */
	__type(key, __u32);
	__type(value, struct fnargs_buf);
} fnargs_bufs SEC(".maps");

static __always_inline __u64 round8(__u64 n)
{
	return (n + 7) & ~7ULL;
}

/*
 * Argument @n (< 6) of the function being entered. fentry: through bpf_get_func_arg(),
 * which checks @n against the function's own count at run time (every -F clone is
 * verified against its own function); 0 where the helper is missing (before 5.17: user
 * space traces no in-band carrier with -F there). kprobes: the argument registers (@n < ARG_REG_CNT).
 */
static __always_inline __s64 entry_arg(void *ctx, bool fentry, __u32 n)
{
	__u64 v = 0, r[8] = {};

	if (fentry) {
		if (has_func_arg)
			bpf_get_func_arg(ctx, n, &v);
		return v;
	}
	/* all of them, then one: a context load at a computed offset is refused */
	save_arg_regs(ctx, r);
	return r[n & 7];
}

/* Argument slot @i: a register (kprobe, saved in @b) or the trampoline's saved argument (fentry). */
static __always_inline __u64 arg_word(void *ctx, bool fentry, const struct fnargs_buf *b, __u32 i)
{
	__u64 v = 0;

	if (!fentry)
		return i < ARG_REG_CNT ? b->regs[i & 7] : 0;
	if (has_func_arg)
		bpf_get_func_arg(ctx, i, &v);
	return v;
}

/* Like room_for_trace_rec(): an argument record gives way to the session's final records. */
static __always_inline bool room_for_args_rec(__u64 sz)
{
	__u64 keep = sz + sizeof(struct rec_session_end) + sizeof(struct rec_session_start) +
		     4 * BPF_RINGBUF_HDR_SZ;

	if (!rb_size)
		return true;
	if (capture_lbr)
		keep += sizeof(struct rec_lbr_stack) + BPF_RINGBUF_HDR_SZ;
	return bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) + keep <= rb_size;
}

/*
 * @val, at most @limit (it never is more: the checks before keep it smaller), clamped in the
 * register that is used right after, for the verifier's sake. A plain check is no proof:
 * clang moves it, or spills and reloads the value around it, and older verifiers lose
 * the bound on the reloaded copy.
 */
#define CLAMP(val, limit) ({						\
	__u64 __v = (val);							\
	asm volatile("if %[v] <= %[m] goto +1; %[v] = %[m]" : [v]"+r"(__v) : [m]"i"(limit)); \
	__v;									\
})

#define MAX_DATA_OFF	(MAX_FNARGS_TOTAL + 8)

/*
 * The record being filled keeps its own progress: r->data_len is where the next data
 * goes, r->ptr_mask which pointer values are in. Read from the map each time rather than
 * carried in registers, they are unknown numbers to the verifier at the top of the loop,
 * so the states of one argument's many paths merge there instead of multiplying over
 * twelve arguments (every offset used is clamped where it is used, see CLAMP()).
 */
#define DATA_LEN(r)	(*(volatile __u32 *)&(r)->data_len)
#define PTR_MASK(r)	(*(volatile __u16 *)&(r)->ptr_mask)

/*
 * FNARG_PTR, FNARG_STR: what pointer @w points to, a string or @want bytes, into @r's data
 * at @o; kernel or user memory, told by the address. Returns the rec_fnargs.lens[] value.
 * (Function arguments and probe contexts alike.)
 */
static __always_inline int capture_pointee(__u8 *data, struct rec_fnargs *r, __u64 o,
					   __u64 want, __u64 kind, __u64 w)
{
	long err;

	if (!w)
		return -FNARG_ENODATA;
	if (kind == FNARG_STR) {
		if ((__s64)w < 0)
			err = bpf_probe_read_kernel_str(data + CLAMP(o, MAX_DATA_OFF),
							CLAMP(want, MAX_FNARG_SIZE), (void *)w);
		else
			err = bpf_probe_read_user_str(data + CLAMP(o, MAX_DATA_OFF),
						      CLAMP(want, MAX_FNARG_SIZE), (void *)w);
		if (err < 0)
			return err;
		if (err > want)
			return -FNARG_E2BIG;
		DATA_LEN(r) = o + round8(err);
		return err;
	}
	if ((__s64)w < 0)
		err = bpf_probe_read_kernel(data + CLAMP(o, MAX_DATA_OFF), CLAMP(want, MAX_FNARG_SIZE),
					    (void *)w);
	else
		err = bpf_probe_read_user(data + CLAMP(o, MAX_DATA_OFF), CLAMP(want, MAX_FNARG_SIZE),
					  (void *)w);
	if (err)
		return err;
	DATA_LEN(r) = o + round8(want);
	return want;
}

/*
 * Send @r, its captures done, as record @type of @id's call or hit @seq in @sess; a record
 * that can't be sent is counted as the session's lost record.
 */
static __always_inline void emit_args_rec(struct session *sess, struct rec_fnargs *r,
					  __u32 type, __u32 id, __u32 seq, __u32 n, __u32 flags)
{
	__u64 sz;

	r->type = type;
	r->func_id = id;
	r->sess_id = sess->sess_id;
	r->seq_id = seq;
	r->arg_cnt = n < MAX_FNARGS ? n : MAX_FNARGS;
	r->flags = flags;

	sz = sizeof(*r) + DATA_LEN(r);
	if (sz > sizeof(*r) + MAX_DATA_OFF)
		return;
	/* a START that didn't fit earlier goes first, or the record would be an orphan */
	if (!room_for_args_rec(sz) || (!sess->start_emitted && !emit_session_start(sess))) {
		count_dropped_record(sess);
		return;
	}
	if (bpf_ringbuf_output(&rb, r, CLAMP(sz, sizeof(*r) + MAX_DATA_OFF), quiet_rec_flags()))
		count_dropped_record(sess);
}

/*
 * The start of every struct rec_fnargs, a function's arguments or a probe's context: the
 * plan @spec of function or probe @id in @specs, and this CPU's buffer with the record's
 * progress reset. NULL (nothing to send) without either.
 */
static __always_inline struct fnargs_buf *fnargs_begin(void *specs, __u32 id,
						       struct func_args_spec **spec)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct fnargs_buf *b;

	*spec = bpf_map_lookup_elem(specs, &id);
	b = bpf_map_lookup_elem(&fnargs_bufs, &cpu);
	if (!*spec || !b)
		return NULL;
	DATA_LEN(FNARGS_REC(b)) = 0;
	PTR_MASK(FNARGS_REC(b)) = 0;
	return b;
}

/* Capture argument @i as @s says into @r's data; returns its rec_fnargs.lens[] value. */
static __always_inline int capture_arg(void *ctx, bool fentry, const struct fnarg_spec *s,
				       struct fnargs_buf *b, struct rec_fnargs *r, __u32 i)
{
	__u64 want = s->len, kind = s->kind, loc = s->loc, roff = s->off, o = DATA_LEN(r), need;
	bool raw = args_raw_ptrs && (kind == FNARG_PTR || kind == FNARG_STR);
	__u64 w = 0, w2 = 0, sp;
	__u8 *data = FNARGS_DATA(b);
	long err;

	if (kind == FNARG_SKIP)
		return 0;
	if (want > MAX_FNARG_SIZE)
		return -FNARG_E2BIG;
	need = round8(want) + (raw || kind == FNARG_VARARG ? 8 : 0);
	if (o + need > args_max_total)
		return -FNARG_ENOSPC;
	if (loc == FNARG_STACK) {
		/* fentry plans never have stack arguments: such functions use kprobes */
		if (fentry)
			return -FNARG_EOPNOTSUPP;
		/* a uprobe's stack arguments are on the user stack: told by the address */
		sp = PT_REGS_SP((struct pt_regs *)ctx);
		if (kind == FNARG_VALUE) {
			if ((__s64)sp < 0)
				err = bpf_probe_read_kernel(data + CLAMP(o, MAX_DATA_OFF),
							    CLAMP(want, MAX_FNARG_SIZE),
							    (void *)(sp + roff));
			else
				err = bpf_probe_read_user(data + CLAMP(o, MAX_DATA_OFF),
							  CLAMP(want, MAX_FNARG_SIZE),
							  (void *)(sp + roff));
			if (err)
				return err;
			DATA_LEN(r) = o + round8(want);
			return want;
		}
		if ((__s64)sp < 0)
			err = bpf_probe_read_kernel(&w, sizeof(w), (void *)(sp + roff));
		else
			err = bpf_probe_read_user(&w, sizeof(w), (void *)(sp + roff));
		if (err)
			return err;
	} else {
		w = arg_word(ctx, fentry, b, roff);
		if (loc == FNARG_REG_PAIR)
			w2 = arg_word(ctx, fentry, b, roff + 1);
	}

	if (kind == FNARG_VALUE) {
		*(__u64 *)(data + CLAMP(o, MAX_DATA_OFF)) = w;
		*(__u64 *)(data + CLAMP(o, MAX_DATA_OFF) + 8) = w2;
		DATA_LEN(r) = o + (loc == FNARG_REG_PAIR ? 16 : 8);
		return want;
	}
	if (kind == FNARG_VARARG) {
		*(__u64 *)(data + CLAMP(o, MAX_DATA_OFF)) = w;
		o += 8;
		DATA_LEN(r) = o;
		/* not a kernel address, or an errno */
		if (w < KERNEL_ADDR_MIN || w >= (__u64)-4096)
			return 8;
		err = bpf_probe_read_kernel_str(data + CLAMP(o, MAX_DATA_OFF),
						CLAMP(want, MAX_FNARG_SIZE), (void *)w);
		if (err <= 0 || err > want)
			return 8;
		PTR_MASK(r) |= 1 << i;
		DATA_LEN(r) = o + round8(err);
		return err;
	}

	/* FNARG_PTR, FNARG_STR: kernel or user memory, told by the address */
	if (raw) {
		*(__u64 *)(data + CLAMP(o, MAX_DATA_OFF)) = w;
		o += 8;
		DATA_LEN(r) = o;
		PTR_MASK(r) |= 1 << i;
	}
	return capture_pointee(data, r, o, want, kind, w);
}

/* The arguments of call @seq of function @id, entered just now in @sess. */
static __always_inline void emit_fn_args(void *ctx, bool fentry, struct session *sess,
					 __u32 id, __u32 seq)
{
	struct func_args_spec *spec;
	struct rec_fnargs *r;
	struct fnargs_buf *b;
	__u32 i, n;

	b = fnargs_begin(&fnargs_specs, id, &spec);
	if (!b)
		return;
	r = FNARGS_REC(b);
	if (!fentry)
		save_arg_regs(ctx, b->regs);
	n = spec->arg_cnt;
	for (i = 0; i < MAX_FNARGS; i++) {
		if (i >= n) {
			r->lens[i] = 0;
			continue;
		}
		r->lens[i] = capture_arg(ctx, fentry, &spec->args[i], b, r, i);
	}
	emit_args_rec(sess, r, REC_FNARGS, id, seq, n, args_raw_ptrs ? FNARGS_F_RAW_PTRS : 0);
}

#endif /* __RETSNOOP_ARGS_BPF_H */
