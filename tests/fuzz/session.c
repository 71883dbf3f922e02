// SPDX-License-Identifier: BSD-2-Clause
/*
 * Ring-buffer records (src/records.h) into the session store (src/session.c), decoded by
 * the sample builder and out through the text renderers or the JSON sink. Kept apart from
 * the capture target and written only against session_store__*(), sample__build() and the
 * sinks, so a new record layout means new seeds (tests/fuzz/mkseeds.py), not a new target.
 *
 * Input: one byte of view flags, then records, each a little-endian __u16 length and that
 * many bytes. Records are handed over 8-byte aligned, as the ring buffer does.
 */
#include <errno.h>
#include "fuzz.h"
#include "render.h"
#include "sink.h"

static const struct func funcs[] = {
	{ .name = "outer_fn", .flags = FUNC_IS_ENTRY, .addr = 0x1000 },
	{ .name = "ptr_fn", .flags = FUNC_RET_PTR, .addr = 0x2000 },
	{ .name = "int_fn", .flags = FUNC_NEEDS_SIGN_EXT, .addr = 0x3000 },
	{ .name = "void_fn", .flags = FUNC_RET_VOID | FUNC_CANT_FAIL },
	{ .name = "bool_fn", .flags = FUNC_RET_BOOL, .addr = 0x5000 },
};

/* Addresses below 0x8000 have symbols 0x1000 apart; inlines depend on the low bits. */
static bool fake_ksym(void *ctx, const struct addr_space *as, __u64 addr, struct sym_hit *hit)
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

static int fake_src(void *ctx, const struct addr_space *as, __u64 addr, struct src_frame *fr,
		    int max, const char **note)
{
	int n = addr & 7, i;

	if (addr >= 0x8000)
		return 0;
	for (i = 0; i < n && i < max; i++)
		fr[i] = (struct src_frame){ i ? "inlined_fn" : NULL, "kernel/fake.c", i, (int)addr };
	return n < max ? n : max;
}

struct ctx {
	struct sample_build_opts b;
	struct sink *json;		/* set: JSON lines instead of text */
	FILE *out;
};

static int on_session(void *c, const struct sess_recs *r)
{
	struct ctx *ctx = c;
	struct sample *s;
	size_t i;
	int err;

	FUZZ_CHECK(r->start && r->end && r->start->sess_id == r->end->sess_id);
	FUZZ_CHECK(!r->trace_cnt || r->trace);
	err = sample__build(r, &ctx->b, &s);
	FUZZ_CHECK(!err || err == -ENOMEM);
	if (err)
		return err;
	/* the model's own promises: indexes in range, LBR cut-off within the records */
	FUZZ_CHECK(s->deepest < (int)s->frame_cnt);
	for (i = 0; i < s->frame_cnt; i++)
		FUZZ_CHECK(s->frames[i].func_id < 0 || s->frames[i].func_id == (int)(__u32)s->frames[i].func_id);
	FUZZ_CHECK(!s->lbr_relevant || s->lbr_first <= s->lbr_cnt);
	fuzz_sink_reset();
	if (ctx->json)
		err = sink__sample(ctx->json, s);
	else
		err = render_text__sample(ctx->out, s, &ctx->b.view);
	fflush(ctx->out);
	sample__free(s);
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
	struct session_store_opts so = { .sz = sizeof(so), .on_session = on_session, .ctx = &ctx };
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
	ctx.b = (struct sample_build_opts){
		.sz = sizeof(ctx.b),
		.funcs = funcs,
		.func_cnt = sizeof(funcs) / sizeof(funcs[0]),
		.syms = { .sym = views & 0x80 ? NULL : fake_ksym, .src = fake_src },
		.clock_off_ns = (__s64)1700000000 * 1000000000,
		.view = {
			.stack = views & 0x1,
			.func_trace = views & 0x2,
			.lbr = views & 0x4,
			.full_lbr = views & 0x8,
			.unfiltered = views & 0x10,
			.emit_addrs = views & 0x20,
			.dec_offs = views & 0x40,
			.lbr_max_count = views & 0x3,
		},
	};
	/* stack view off and emit-addrs on: a combination the text test doesn't need, JSON */
	if (!(views & 0x1) && (views & 0x20)) {
		struct json_sink_opts jo = { .sz = sizeof(jo), .out = ctx.out };

		ctx.json = json_sink__new(&jo);
	}
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
	sink__free(ctx.json);
	return 0;
}
