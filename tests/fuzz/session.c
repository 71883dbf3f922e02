// SPDX-License-Identifier: BSD-2-Clause
/*
 * Ring-buffer records (src/retsnoop.h) into the session store (src/session.c) and out through
 * the text renderers. Kept apart from the capture target and written only against
 * session_store__*() and render_text__sample(), so a new record layout means new seeds
 * (tests/fuzz/mkseeds.py), not a new target.
 *
 * Input: one byte of view flags, then records, each a little-endian __u16 length and that
 * many bytes. Records are handed over 8-byte aligned, as the ring buffer does.
 */
#include <errno.h>
#include "fuzz.h"
#include "render.h"

static const struct func_desc funcs[] = {
	{ "outer_fn", FUNC_IS_ENTRY, 0x1000 },
	{ "ptr_fn", FUNC_RET_PTR, 0x2000 },
	{ "int_fn", FUNC_NEEDS_SIGN_EXT, 0x3000 },
	{ "void_fn", FUNC_RET_VOID | FUNC_CANT_FAIL, 0 },
	{ "bool_fn", FUNC_RET_BOOL, 0x5000 },
};

/* Addresses below 0x8000 have symbols 0x1000 apart; inlines depend on the low bits. */
static bool fake_ksym(void *ctx, __u64 addr, struct ksym_hit *hit)
{
	static const char *const names[] = {
		"zero_fn", "outer_fn", "ptr_fn", "int_fn", "bpf_trampoline_6442", "bool_fn",
		"bpf_prog_00112233aabbccdd_handler", "outer_fn",
	};

	if (addr >= 0x8000)
		return false;
	hit->name = names[addr >> 12];
	hit->start = addr & ~0xfffULL;
	hit->size = addr & 0x800 ? 0 : 0x1000;
	return true;
}

static int fake_src(void *ctx, __u64 addr, struct src_frame *fr, int max)
{
	int n = addr & 7, i;

	if (addr >= 0x8000)
		return 0;
	for (i = 0; i < n && i < max; i++)
		fr[i] = (struct src_frame){ i ? "inlined_fn" : NULL, "kernel/fake.c", i, (int)addr };
	return n < max ? n : max;
}

struct ctx {
	struct render_opts o;
	FILE *out;
};

static int on_sample(void *c, const struct sample *s)
{
	struct ctx *ctx = c;
	int err;

	FUZZ_CHECK(s->start && s->end && s->start->sess_id == s->end->sess_id);
	FUZZ_CHECK(!s->trace_cnt || s->trace);
	fuzz_sink_reset();
	err = render_text__sample(ctx->out, s, &ctx->o);
	fflush(ctx->out);
	return err;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	setenv("TZ", "UTC", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx ctx = {};
	struct session_store_opts so = { .sz = sizeof(so), .on_sample = on_sample, .ctx = &ctx };
	const struct session_store_stats *stats;
	struct session_store *st;
	__u64 *rec = NULL;
	size_t off = 1, fed = 0, bad = 0;
	__u8 views;
	int err;

	if (size < 1)
		return 0;
	views = data[0];
	ctx.out = fuzz_sink();
	ctx.o = (struct render_opts){
		.sz = sizeof(ctx.o),
		.funcs = funcs,
		.func_cnt = sizeof(funcs) / sizeof(funcs[0]),
		.syms = { .ksym = views & 0x80 ? NULL : fake_ksym, .src = fake_src },
		.ts_offset_ns = (__s64)1700000000 * 1000000000,
		.stack_view = views & 0x1,
		.func_trace = views & 0x2,
		.lbr = views & 0x4,
		.full_lbr = views & 0x8,
		.unfiltered = views & 0x10,
		.emit_addrs = views & 0x20,
		.dec_offs = views & 0x40,
		.lbr_max_count = views & 0x3,
	};
	st = session_store__new(&so);
	if (!st)
		abort();
	while (size - off >= 2) {
		size_t len = data[off] | (size_t)data[off + 1] << 8;

		off += 2;
		if (len > size - off)
			len = size - off;
		/* exact size, 8-aligned: ASan catches any read past the record */
		rec = malloc(len ? len : 1);
		if (!rec)
			abort();
		memcpy(rec, data + off, len);
		off += len;
		err = session_store__add(st, rec, len);
		free(rec);
		FUZZ_CHECK(!err || err == -EINVAL || err == -ENOMEM);
		fed++;
		bad += err == -EINVAL;
	}
	stats = session_store__stats(st);
	FUZZ_CHECK(stats->malformed == bad);
	FUZZ_CHECK(session_store__pending(st) <= fed);
	session_store__free(st);
	return 0;
}
