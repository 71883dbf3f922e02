/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * -J -T -A: an injected probe's context at its hit, planned in user space once per probe
 * (probe_ctx.c) like a function's arguments: a kprobe's registers, a tracepoint's fields
 * (strings behind __data_loc ones included), a raw tracepoint's arguments. Everything is
 * read through the context pointer with bpf_probe_read_kernel(), never loaded directly, so
 * one function serves every program type. Sent as a REC_CTXARGS (struct rec_fnargs, the
 * probe id for the function id) tied to the hit's seq id.
 *
 * BPF-side only; a part of retsnoop.bpf.c. args.bpf.h has the per-CPU buffer, CLAMP(), the
 * pointee capture and the record's sending.
 */
#ifndef __RETSNOOP_PROBE_CTX_BPF_H
#define __RETSNOOP_PROBE_CTX_BPF_H

#include "retsnoop_state.bpf.h"
#include "args.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);			/* resized to the probe count with -J -A */
	__type(key, __u32);
	__type(value, struct func_args_spec);
} probe_ctx_specs SEC(".maps");

/* A __data_loc string: @dl's low half is its offset in the record, its high half its length. */
static __always_inline int capture_data_loc(void *ctx, __u32 dl, __u8 *dst, __u64 want)
{
	__u64 len = dl >> 16;
	long err;

	if (len > want)
		len = want;
	if (!len) {
		*dst = 0;
		return 1;
	}
	err = bpf_probe_read_kernel_str(dst, CLAMP(len, MAX_FNARG_SIZE),
					(char *)ctx + (dl & 0xffff));
	return err;
}

/* Capture context piece @s into @r's data; returns its rec_fnargs.lens[] value. */
static __always_inline int capture_ctx_arg(void *ctx, const struct fnarg_spec *s,
					   struct fnargs_buf *b, struct rec_fnargs *r)
{
	__u64 want = s->len, kind = s->kind, off = s->off, o = DATA_LEN(r), w = 0;
	__u8 *data = FNARGS_DATA(b);
	__u32 dl = 0;
	long err;

	if (kind == FNARG_SKIP)
		return 0;
	if (want > MAX_FNARG_SIZE)
		return -FNARG_E2BIG;
	if (o + round8(want) > args_max_total)
		return -FNARG_ENOSPC;
	if (s->loc == FNARG_CTX_DATALOC) {
		err = bpf_probe_read_kernel(&dl, sizeof(dl), (char *)ctx + off);
		if (err)
			return err;
		err = capture_data_loc(ctx, dl, data + CLAMP(o, MAX_DATA_OFF), want);
		if (err < 0)
			return err;
		DATA_LEN(r) = o + round8(err);
		return err;
	}
	if (kind == FNARG_VALUE) {
		err = bpf_probe_read_kernel(data + CLAMP(o, MAX_DATA_OFF),
					    CLAMP(want, MAX_FNARG_SIZE), (char *)ctx + off);
		if (err)
			return err;
		DATA_LEN(r) = o + round8(want);
		return want;
	}
	/* FNARG_PTR, FNARG_STR: the pointer is in the context; kernel or user memory behind */
	err = bpf_probe_read_kernel(&w, sizeof(w), (char *)ctx + off);
	if (err)
		return err;
	return capture_pointee(data, r, o, want, kind, w);
}

/* The context of probe @probe_id's hit @seq in @sess. */
static __always_inline void emit_probe_ctx(void *ctx, struct session *sess, __u32 probe_id,
					   __u32 seq)
{
	struct func_args_spec *spec;
	struct rec_fnargs *r;
	struct fnargs_buf *b;
	__u32 i, n;

	b = fnargs_begin(&probe_ctx_specs, probe_id, &spec);
	if (!b)
		return;
	r = FNARGS_REC(b);
	n = spec->arg_cnt;
	for (i = 0; i < MAX_FNARGS; i++) {
		if (i >= n) {
			r->lens[i] = 0;
			continue;
		}
		r->lens[i] = capture_ctx_arg(ctx, &spec->args[i], b, r);
	}
	emit_args_rec(sess, r, REC_CTXARGS, probe_id, seq, n, 0);
}

#endif /* __RETSNOOP_PROBE_CTX_BPF_H */
