// SPDX-License-Identifier: BSD-2-Clause
/* A capture replays to exactly what the live run rendered, with no resolver behind it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "unit.h"
#include "arg_plan.h"
#include "capture.h"
#include "probe_ctx.h"
#include "render.h"
#include "records.h"

static bool live_ksym(void *ctx, const struct addr_space *as, __u64 addr, struct sym_hit *hit)
{
	if (addr >= 0x1000 && addr < 0x2000) {
		*hit = (struct sym_hit){ "outer_fn", 0x1000, 0x1000 };
		return true;
	}
	if (addr >= 0x2000 && addr < 0x3000) {
		*hit = (struct sym_hit){ "inner_fn", 0x2000, 0 };
		return true;
	}
	return false;
}

/* the live run's lookups are cut short (a second Ctrl-C) */
static bool live_cut;

static int live_src(void *ctx, const struct addr_space *as, __u64 addr, struct src_frame *fr,
		    int max, const char **note)
{
	if (addr < 0x1000 || addr >= 0x2000 || max < 2)
		return 0;
	if (live_cut)
		return -EINTR;
	fr[0] = (struct src_frame){ "outer_fn", "kernel/outer.c", 10, 2 };
	fr[1] = (struct src_frame){ "helper", "include/linux/helper.h", 77, 9 };
	return 2;
}

static const struct func funcs[] = {
	{ .name = "outer_fn", .addr = 0x1000 },
	{ .name = "inner_fn", .flags = FUNC_RET_PTR, .addr = 0x2000 },
};

struct render_state {
	struct sample_build_opts b;	/* its view is the one the sample shows */
	FILE *out;
};

static int on_session(void *ctx, const struct sess_recs *r)
{
	struct render_state *rs = ctx;
	struct sample *s;
	int err = sample__build(r, &rs->b, &s);

	if (err)
		return err;
	err = render_text__sample(rs->out, s, &rs->b.view);
	sample__free(s);
	return err;
}

static void feed_session(struct capture *c, struct session_store *st, __u64 id)
{
	struct rec_session_start start = {
		.type = REC_SESSION_START, .sess_id = id, .pid = 42, .tgid = 41,
		.start_ts = 1000000000ULL * 3600 + 5000, .task_comm = "simfail", .proc_comm = "simfail",
	};
	struct rec_session_end *end = calloc(1, sizeof(*end));
	const void *recs[2] = { &start, end };
	size_t sizes[2] = { sizeof(start), sizeof(*end) };
	int i;

	end->type = REC_SESSION_END;
	end->sess_id = id;
	end->emit_ts = start.start_ts + 75000;
	end->is_err = 1;
	end->stack.max_depth = 2;
	end->stack.func_ids[1] = 1;
	end->stack.func_res[0] = -22;
	end->stack.func_lat[0] = 73000;
	end->stack.func_lat[1] = 2000;
	end->stack.kstack[0] = 0x1010;
	end->stack.kstack[1] = 0x5000;	/* no symbol */
	end->stack.kstack_sz = 16;
	for (i = 0; i < 2; i++) {
		if (c)
			assert_int_equal(capture__record(c, recs[i], sizes[i]), 0);
		assert_int_equal(session_store__add(st, recs[i], sizes[i]), 0);
	}
	free(end);
}

static char *run_live(const char *path)
{
	struct sym_resolver live = { .sym = live_ksym, .src = live_src };
	struct render_state rs = {
		.b = { .sz = sizeof(rs.b), .funcs = funcs, .func_cnt = 2, .view.stack = true },
	};
	struct capture_opts co = {
		.sz = sizeof(co), .funcs = funcs, .func_cnt = 2, .view = rs.b.view,
	};
	struct session_store_opts so = { .sz = sizeof(so), .on_session = on_session, .ctx = &rs };
	struct session_store *st = session_store__new(&so);
	struct capture *c;
	char *buf = NULL;
	size_t len = 0;

	c = capture__create(path, &co);
	assert_non_null(c);
	rs.out = open_memstream(&buf, &len);
	rs.b.syms = capture__resolver(c, &live);
	feed_session(c, st, 1);
	feed_session(c, st, 2);
	fclose(rs.out);
	assert_int_equal(capture__close(c), 0);
	session_store__free(st);
	return buf;
}

static char *run_replay(const char *path)
{
	struct replay *r = replay__open(path);
	struct render_state rs = {};
	struct session_store_opts so = { .sz = sizeof(so), .on_session = on_session, .ctx = &rs };
	struct session_store *st = session_store__new(&so);
	char *buf = NULL;
	size_t len = 0;

	assert_non_null(r);
	replay__build_opts(r, &rs.b);
	assert_int_equal(rs.b.func_cnt, 2);
	assert_int_equal(rs.b.funcs[0].addr, 0x1000);
	rs.out = open_memstream(&buf, &len);
	assert_int_equal(replay__feed(r, st), 0);
	fclose(rs.out);
	session_store__free(st);
	replay__free(r);
	return buf;
}

/* A live run (its lookups cut short if @cut) into a capture; its text, equal to the replay's. */
static char *live_equals_replay(bool cut)
{
	char path[] = "/tmp/retsnoop-cap-XXXXXX";
	int fd = mkstemp(path);
	char *live, *replayed;

	assert_true(fd >= 0);
	close(fd);
	setenv("TZ", "UTC", 1);
	live_cut = cut;
	live = run_live(path);
	live_cut = false;
	replayed = run_replay(path);
	unlink(path);
	assert_string_equal(replayed, live);
	free(replayed);
	return live;
}

static void test_replay_matches_live(void **state)
{
	char *live = live_equals_replay(false);

	/* The live output itself must be the real thing, not an empty match. */
	assert_non_null(strstr(live, "01:00:00.000005 -> 01:00:00.000080 TID/PID 42/41 (simfail/simfail):"));
	assert_non_null(strstr(live, "outer_fn+0x10  (kernel/outer.c:10:2)"));
	assert_non_null(strstr(live, ". helper"));
	assert_non_null(strstr(live, "0x5000"));
	free(live);
}

/* A lookup the live run cut short replays as cut short, never as "no source". */
static void test_replay_keeps_cut_lookups(void **state)
{
	char *live = live_equals_replay(true);

	assert_non_null(strstr(live, "outer_fn+0x10  (source lookup cut short)"));
	assert_null(strstr(live, "kernel/outer.c"));
	free(live);
}

/* Replay @view written with (or without) argument plans; @got is what replay decodes. */
static void view_through_capture(const struct view_opts *view, bool plans, struct view_opts *got)
{
	char path[] = "/tmp/retsnoop-cap-XXXXXX";
	struct arg_plans *ps = arg_plans__new_empty(2);
	struct capture_opts co = {
		.sz = sizeof(co), .funcs = funcs, .func_cnt = 2, .view = *view,
		.args = plans ? ps : NULL,
	};
	struct sample_build_opts b;
	struct capture *c;
	struct replay *r;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	c = capture__create(path, &co);
	assert_non_null(c);
	assert_int_equal(capture__close(c), 0);
	r = replay__open(path);
	assert_non_null(r);
	replay__build_opts(r, &b);
	*got = b.view;
	replay__free(r);
	arg_plans__free(ps);
	unlink(path);
}

static void assert_view_equal(const struct view_opts *a, const struct view_opts *b)
{
	assert_int_equal(a->stack, b->stack);
	assert_int_equal(a->func_trace, b->func_trace);
	assert_int_equal(a->lbr, b->lbr);
	assert_int_equal(a->full_lbr, b->full_lbr);
	assert_int_equal(a->unfiltered, b->unfiltered);
	assert_int_equal(a->lbr_max_count, b->lbr_max_count);
	assert_int_equal(a->emit_addrs, b->emit_addrs);
	assert_int_equal(a->dec_offs, b->dec_offs);
	assert_int_equal(a->args, b->args);
	assert_int_equal(a->args_fmt, b->args_fmt);
	assert_int_equal(a->args_max_width, b->args_max_width);
}

/*
 * A replay shows what the live run showed: each field of its view, set alone, reads back
 * as itself and nothing else; the arguments' part only when the run had plans to show.
 */
static void test_view_replays(void **state)
{
	static const struct view_opts one[] = {
		{ .stack = true }, { .func_trace = true }, { .lbr = true }, { .full_lbr = true },
		{ .unfiltered = true }, { .lbr_max_count = 7 }, { .emit_addrs = true },
		{ .dec_offs = true },
		{ .args = true, .args_fmt = ARGS_FMT_VERBOSE, .args_max_width = 33 },
		{ .args = true, .args_fmt = ARGS_FMT_MULTILINE },
	};
	const struct view_opts none = {};
	struct view_opts got;
	size_t i;

	for (i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		view_through_capture(&one[i], true, &got);
		assert_view_equal(&got, &one[i]);
	}
	/* -A asked for but nothing planned (no argument support): replay shows none */
	view_through_capture(&one[8], false, &got);
	assert_view_equal(&got, &none);
}

static void test_bad_files(void **state)
{
	char path[] = "/tmp/retsnoop-cap-XXXXXX";
	int fd = mkstemp(path);
	static const char junk[] = "RSNPCAP1\x01\x00\x00\x00\xff\xff\xff\x7f";

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not a capture", 13), 13);
	close(fd);
	assert_null(replay__open(path));
	assert_int_equal(errno, EINVAL);

	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, junk, sizeof(junk) - 1), (int)sizeof(junk) - 1);
	close(fd);
	assert_null(replay__open(path));	/* entry longer than the file */
	unlink(path);
	assert_null(replay__open("/nonexistent/capture"));
	assert_int_equal(errno, ENOENT);
}

/*
 * -A: the plans go into the capture with a copy of their types, and the replay renders
 * the arguments exactly as the live run did, in every mode.
 */
struct args_fixture {
	struct btf *btf;
	int fn;
};

/* int inner_fn(struct req *r, const char *name, union val v) */
static void args_btf(struct args_fixture *fx)
{
	struct btf *b = btf__new_empty();
	int u32, u64, chr, e, big, req, un, proto, arr, bf, pbig, preq, pstr;

	u32 = btf__add_int(b, "unsigned int", 4, 0);
	u64 = btf__add_int(b, "long long unsigned int", 8, 0);
	chr = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	e = btf__add_enum(b, "kind", 4);
	btf__add_enum_value(b, "K_NONE", 0);
	btf__add_enum_value(b, "K_NEG", -5);
	/* a big struct only pointed to: not copied into the capture */
	big = btf__add_struct(b, "big", 4000);
	btf__add_field(b, "x", u64, 0, 0);
	arr = btf__add_array(b, u32, chr, 8);
	bf = btf__add_typedef(b, "u32_t", u32);
	pbig = btf__add_ptr(b, big);
	/* types first: fields and params go to the type added last */
	req = btf__add_struct(b, "req", 32);
	btf__add_field(b, "kind", e, 0, 0);
	btf__add_field(b, "flags", bf, 32, 3);
	btf__add_field(b, "more", bf, 35, 29);
	btf__add_field(b, "big", pbig, 64, 0);
	btf__add_field(b, "name", arr, 128, 0);
	btf__add_field(b, "val", u64, 192, 0);
	un = btf__add_union(b, "val", 8);
	btf__add_field(b, "u", u64, 0, 0);
	btf__add_field(b, "i", u32, 0, 0);
	preq = btf__add_ptr(b, btf__add_const(b, req));
	pstr = btf__add_ptr(b, btf__add_const(b, chr));
	proto = btf__add_func_proto(b, u32);
	btf__add_func_param(b, "r", preq);
	btf__add_func_param(b, "name", pstr);
	btf__add_func_param(b, "v", un);
	fx->fn = btf__add_func(b, "inner_fn", BTF_FUNC_STATIC, proto);
	assert_true(fx->fn > 0);
	fx->btf = b;
}

static void feed_args(struct capture *c, struct session_store *st)
{
	struct rec_session_start start = { .type = REC_SESSION_START, .sess_id = 7 };
	struct rec_session_end *end = calloc(1, sizeof(*end));
	union {
		struct rec_fnargs r;
		__u8 raw[512];
	} a0 = {}, a1 = {};
	struct {
		__s32 kind;
		__u32 bits;
		__u64 big;
		char name[8];
		__u64 val;
	} req = { -5, 5 | (3 << 3), 0xffff888000123000ULL, "abc", 4194304 };
	__u64 regs[6] = { 1, 2, 3, 4, 5, 6 }, v = 0x100000001ULL;
	const void *recs[4] = { &start, &a0, &a1, end };
	size_t sizes[4];
	int i;

	/* outer_fn has no BTF: raw registers */
	a0.r = (struct rec_fnargs){ .type = REC_FNARGS, .sess_id = 7, .func_id = 0, .seq_id = 0,
				    .arg_cnt = 6, .data_len = 48 };
	for (i = 0; i < 6; i++)
		a0.r.lens[i] = 8;
	memcpy(a0.r.data, regs, 48);
	a1.r = (struct rec_fnargs){ .type = REC_FNARGS, .sess_id = 7, .func_id = 1, .seq_id = 1,
				    .arg_cnt = 3, .data_len = 32 + 8 + 8,
				    .lens = { sizeof(req), 5, 8 } };
	memcpy(a1.r.data, &req, sizeof(req));
	memcpy(a1.r.data + 32, "jump", 5);
	memcpy(a1.r.data + 40, &v, 8);
	end->type = REC_SESSION_END;
	end->sess_id = 7;
	end->last_seq_id = 3;
	end->is_err = 1;
	end->stack.max_depth = 2;
	end->stack.func_ids[1] = 1;
	end->stack.seq_ids[1] = 1;
	end->stack.func_res[0] = -22;
	end->stack.func_res[1] = -22;
	sizes[0] = sizeof(start);
	sizes[1] = sizeof(a0.r) + a0.r.data_len;
	sizes[2] = sizeof(a1.r) + a1.r.data_len;
	sizes[3] = sizeof(*end);
	for (i = 0; i < 4; i++) {
		if (c)
			assert_int_equal(capture__record(c, recs[i], sizes[i]), 0);
		assert_int_equal(session_store__add(st, recs[i], sizes[i]), 0);
	}
	free(end);
}

static char *args_live(const char *path, enum args_fmt_mode mode, struct args_fixture *fx)
{
	struct func fs[2] = { funcs[0], funcs[1] };
	struct arg_plans_opts po = {
		.sz = sizeof(po), .arch = &arg_arch_x86_64, .limits = { 256, 256 },
	};
	const struct view_opts view = {
		.stack = true, .args = true, .args_fmt = mode, .args_max_width = 40,
	};
	struct render_state rs = {};
	struct capture_opts co = { .sz = sizeof(co), .funcs = fs, .func_cnt = 2, .view = view };
	struct session_store_opts so = { .sz = sizeof(so), .on_session = on_session, .ctx = &rs };
	struct session_store *st = session_store__new(&so);
	struct arg_plans *ps;
	struct capture *c;
	char *buf = NULL;
	size_t len = 0;

	fs[1].btf = fx->btf;
	fs[1].btf_id = fx->fn;
	ps = arg_plans__new(fs, 2, &po);
	assert_non_null(ps);
	co.args = ps;
	rs.b = (struct sample_build_opts){ .sz = sizeof(rs.b), .funcs = fs, .func_cnt = 2,
					   .view = view, .args = ps };
	c = capture__create(path, &co);
	assert_non_null(c);
	rs.out = open_memstream(&buf, &len);
	feed_args(c, st);
	fclose(rs.out);
	assert_int_equal(capture__close(c), 0);
	session_store__free(st);
	arg_plans__free(ps);
	return buf;
}

static void test_args_replay_matches_live(void **state)
{
	static const enum args_fmt_mode modes[] = {
		ARGS_FMT_COMPACT, ARGS_FMT_MULTILINE, ARGS_FMT_VERBOSE,
	};
	char path[] = "/tmp/retsnoop-cap-XXXXXX";
	struct args_fixture fx;
	int fd = mkstemp(path);
	const struct func_arg_plan *p;
	struct sample_build_opts b;
	char *live, *replayed;
	struct replay *r;
	size_t i;

	assert_true(fd >= 0);
	close(fd);
	setenv("TZ", "UTC", 1);
	args_btf(&fx);
	for (i = 0; i < 3; i++) {
		live = args_live(path, modes[i], &fx);
		replayed = run_replay(path);
		assert_string_equal(replayed, live);
		if (modes[i] == ARGS_FMT_COMPACT) {
			assert_non_null(strstr(live, "arg0=1 arg1=2 arg2=3 arg3=4 arg4=5 arg5=6"));
			assert_non_null(strstr(live, "r=&{.kind=K_NEG,.flags=5,.more=3,.big=0xf…"
					       " name='jump' v={.u=0x100000001,.i=1}"));
		}
		if (modes[i] == ARGS_FMT_VERBOSE)
			assert_non_null(strstr(live, "› r = &{\n"
					       "             .kind = K_NEG,\n"
					       "             .flags = 5,\n"
					       "             .more = 3,\n"
					       "             .big = 0xffff888000123000,\n"
					       "             .name = ['a','b','c'],\n"
					       "             .val = 0x400000\n"
					       "         }\n"));
		/* the type copy stops at pointers: struct big is not in the capture */
		r = replay__open(path);
		assert_non_null(r);
		replay__build_opts(r, &b);
		p = arg_plans__get(b.args, 1);
		assert_non_null(p);
		assert_non_null(p->btf);
		assert_true(btf__find_by_name_kind(p->btf, "req", BTF_KIND_STRUCT) > 0);
		assert_true(btf__find_by_name_kind(p->btf, "big", BTF_KIND_STRUCT) < 0);
		assert_int_equal(arg_plans__get(b.args, 0)->args[0].kind, ARG_RAW_REG);
		replay__free(r);
		free(live);
		free(replayed);
	}
	unlink(path);
	btf__free(fx.btf);
}

static void add_rec(struct capture *c, struct session_store *st, const void *rec, size_t size)
{
	assert_int_equal(capture__record(c, rec, size), 0);
	assert_int_equal(session_store__add(st, rec, size), 0);
}

/* -J -T -A: a kprobe's registers at its hit (seq 1), as BPF sends them. */
static void feed_probe_ctx(struct capture *c, struct session_store *st)
{
	struct {
		struct rec_fnargs r;
		__u64 regs[2];
	} rec = {
		.r = { .type = REC_CTXARGS, .func_id = 1, .sess_id = 9, .seq_id = 1,
		       .data_len = 16, .arg_cnt = 1, .lens = { 16 } },
		.regs = { 0xffff888000001000ULL, 7 },
	};

	add_rec(c, st, &rec, sizeof(rec));
}

/* -J -T -I: a probe's hit row and its interim sample, then the final sample. */
static void feed_probe_session(struct capture *c, struct session_store *st)
{
	struct rec_session_start start = {
		.type = REC_SESSION_START, .sess_id = 9, .pid = 42, .tgid = 41,
		.start_ts = 1000000000ULL * 3600, .task_comm = "sh", .proc_comm = "sh",
	};
	struct rec_func_trace t = { .type = REC_FUNC_TRACE_ENTRY, .sess_id = 9, .depth = 1 };
	struct rec_session_interim *in = calloc(1, sizeof(*in));
	struct rec_session_end *end = calloc(1, sizeof(*end));

	add_rec(c, st, &start, sizeof(start));
	t.ts = start.start_ts + 1000;
	add_rec(c, st, &t, sizeof(t));
	t.type = REC_INJ_PROBE;
	t.func_id = 1;		/* the kprobe */
	t.seq_id = 1;
	t.depth = 2;
	t.ts += 1000;
	add_rec(c, st, &t, sizeof(t));
	feed_probe_ctx(c, st);
	in->end.type = REC_SESSION_PROBE;
	in->end.sess_id = 9;
	in->end.last_seq_id = 1;
	in->end.emit_ts = t.ts;
	in->end.stack.depth = 1;
	in->end.stack.max_depth = 1;
	in->end.stack.kstack[0] = 0x1010;
	in->end.stack.kstack_sz = 8;
	in->probe_id = 1;
	add_rec(c, st, in, sizeof(*in));
	t = (struct rec_func_trace){ .type = REC_FUNC_TRACE_EXIT, .sess_id = 9, .seq_id = 2,
				     .depth = 1, .ts = t.ts + 5000, .func_lat = 7000,
				     .func_res = -22 };
	add_rec(c, st, &t, sizeof(t));
	end->type = REC_SESSION_END;
	end->sess_id = 9;
	end->last_seq_id = 2;
	end->emit_ts = t.ts;
	end->is_err = 1;
	end->stack.max_depth = 1;
	end->stack.func_res[0] = -22;
	end->stack.func_lat[0] = 7000;
	add_rec(c, st, end, sizeof(*end));
	free(in);
	free(end);
}

/* A kernel BTF with just struct pt_regs { unsigned long di, si; }. */
static struct btf *regs_btf(void)
{
	struct btf *b = btf__new_empty();
	int u64 = btf__add_int(b, "long unsigned int", 8, 0);

	btf__add_struct(b, "pt_regs", 16);
	btf__add_field(b, "di", u64, 0, 0);
	btf__add_field(b, "si", u64, 64, 0);
	return b;
}

/*
 * The probe table travels in the capture: probe rows and samples replay by name; with -A
 * the probes' context plans too (the context of the kprobe's hit replays as it showed).
 */
static void test_probes_replay_matches_live(void **state)
{
	char path[] = "/tmp/retsnoop-cap-XXXXXX";
	struct sym_resolver syms = { .sym = live_ksym, .src = live_src };
	struct probe_spec probes[2];
	const struct view_opts view = { .stack = true, .func_trace = true, .args = true };
	struct render_state rs = {};
	struct capture_opts co = {
		.sz = sizeof(co), .funcs = funcs, .func_cnt = 2, .view = view,
		.probes = probes, .probe_cnt = 2,
	};
	const struct arg_limits lim = { .max_sized = 64, .max_str = 64 };
	struct arg_plans *fargs = arg_plans__new_empty(2), *pargs;
	struct btf *btf;
	struct session_store_opts so = { .sz = sizeof(so), .on_session = on_session, .ctx = &rs };
	struct session_store *st = session_store__new(&so);
	struct sample_build_opts b;
	char *live = NULL, *replayed;
	struct capture *c;
	struct replay *r;
	size_t len = 0;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	setenv("TZ", "UTC", 1);
	assert_int_equal(probe_spec__parse("tp:sched:sched_process_exec", &probes[0]), 0);
	assert_int_equal(probe_spec__parse("kprobe:outer_fn+5", &probes[1]), 0);
	btf = regs_btf();
	pargs = probe_ctx__plans(probes, 2, btf, &lim);
	assert_non_null(pargs);
	co.probe_args = pargs;
	co.args = fargs;
	rs.b = (struct sample_build_opts){ .sz = sizeof(rs.b), .funcs = funcs, .func_cnt = 2,
					   .view = view, .probes = probes, .probe_cnt = 2,
					   .args = fargs, .probe_args = pargs };
	c = capture__create(path, &co);
	assert_non_null(c);
	rs.b.syms = capture__resolver(c, &syms);
	rs.out = open_memstream(&live, &len);
	feed_probe_session(c, st);
	fclose(rs.out);
	assert_int_equal(capture__close(c), 0);
	session_store__free(st);
	probe_spec__free(&probes[0]);
	probe_spec__free(&probes[1]);
	arg_plans__free(pargs);
	arg_plans__free(fargs);
	btf__free(btf);

	replayed = run_replay(path);
	r = replay__open(path);
	assert_non_null(r);
	replay__build_opts(r, &b);
	assert_int_equal(b.probe_cnt, 2);
	assert_string_equal(probe_spec__display(b.probes, b.probe_cnt, 0),
			    "tp:sched:sched_process_exec");
	replay__free(r);
	unlink(path);
	/* two samples: the interim one with the running frame, then the final one */
	assert_non_null(strstr(live, "◎ kprobe:outer_fn+0x5                     "
				     "regs={.di=0xffff888000001000,.si=7}\n\n"));
	assert_non_null(strstr(live, "  ... [...]  outer_fn+0x10"));
	assert_non_null(strstr(live, "← outer_fn                  [-EINVAL]   7.000us"));
	assert_string_equal(replayed, live);
	free(live);
	free(replayed);
}

/*
 * Answers are kept per address space: the same address in the kernel, in one process and
 * in another replays to what each was answered, images, build IDs and notes included.
 */
static bool space_sym(void *ctx, const struct addr_space *as, __u64 addr, struct sym_hit *hit)
{
	if (as->kind == ADDR_SPACE_KERNEL) {
		*hit = (struct sym_hit){ "kfn", 0x1000, 0x100, { .path = "vmlinux" } };
		return true;
	}
	if (as->pid != 41)
		return false;
	if (addr == 0x1010) {
		*hit = (struct sym_hit){ "do_work", 0x1000, 0x40,
			{ "/usr/bin/app", "0123abcd", 0x10 } };
		return true;
	}
	/* a stripped library: only the image is known */
	*hit = (struct sym_hit){ .image = { "/lib/libx.so", NULL, 0x2345 } };
	return true;
}

static int space_src(void *ctx, const struct addr_space *as, __u64 addr, struct src_frame *fr,
		     int max, const char **note)
{
	if (as->kind == ADDR_SPACE_USER && addr == 0x100f) {
		fr[0] = (struct src_frame){ "do_work", "app.c", 12, 3 };
		return 1;
	}
	if (as->kind == ADDR_SPACE_USER)
		*note = "debug file build ID mismatch";
	return 0;
}

/* traced user functions' lines, by image and file offset */
static int space_image_src(void *ctx, const char *path, __u64 off, struct src_frame *fr,
			   int max, const char **note)
{
	if (!strcmp(path, "/usr/bin/app") && off == 0x1130) {
		fr[0] = (struct src_frame){ "open_config", "cfg.c", 9, 1 };
		fr[1] = (struct src_frame){ "do_work", "app.c", 27, 5 };
		return 2;
	}
	*note = "no debug info";
	return 0;
}

static void test_answers_by_space(void **state)
{
	const struct addr_space k = ADDR_SPACE_KERNEL_INIT;
	const struct addr_space u = { ADDR_SPACE_USER, 41 }, other = { ADDR_SPACE_USER, 7 };
	struct sym_resolver live = { .sym = space_sym, .src = space_src,
				     .image_src = space_image_src }, r;
	struct capture_opts co = { .sz = sizeof(co), .view.stack = true };
	char path[] = "/tmp/test_capture.XXXXXX";
	struct sample_build_opts b;
	struct src_frame fr[4];
	const char *note;
	struct sym_hit h;
	struct replay *rp = NULL;
	struct capture *c;
	int pass, fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	c = capture__create(path, &co);
	assert_non_null(c);
	r = capture__resolver(c, &live);
	/* pass 0 asks the live run through the capture, pass 1 the replay */
	for (pass = 0; pass < 2; pass++) {
		if (pass) {
			assert_int_equal(capture__close(c), 0);
			rp = replay__open(path);
			assert_non_null(rp);
			replay__build_opts(rp, &b);
			r = b.syms;
		}
		memset(&h, 0, sizeof(h));
		assert_true(r.sym(r.ctx, &u, 0x1010, &h));
		assert_string_equal(h.name, "do_work");
		assert_int_equal(h.start, 0x1000);
		assert_string_equal(h.image.path, "/usr/bin/app");
		assert_string_equal(h.image.build_id, "0123abcd");
		assert_int_equal(h.image.file_off, 0x10);
		memset(&h, 0, sizeof(h));
		assert_true(r.sym(r.ctx, &u, 0x7000, &h));
		assert_null(h.name);
		assert_string_equal(h.image.path, "/lib/libx.so");
		assert_null(h.image.build_id);
		assert_int_equal(h.image.file_off, 0x2345);
		memset(&h, 0, sizeof(h));
		assert_true(r.sym(r.ctx, &k, 0x1010, &h));
		assert_string_equal(h.name, "kfn");
		assert_string_equal(h.image.path, "vmlinux");
		assert_false(r.sym(r.ctx, &other, 0x1010, &h));

		assert_int_equal(r.src(r.ctx, &u, 0x100f, fr, 4, NULL), 1);
		assert_string_equal(fr[0].file, "app.c");
		assert_int_equal(fr[0].line, 12);
		note = NULL;
		assert_int_equal(r.src(r.ctx, &u, 0x6fff, fr, 4, &note), 0);
		assert_string_equal(note, "debug file build ID mismatch");
		note = NULL;
		assert_int_equal(r.src(r.ctx, &k, 0x100f, fr, 4, &note), 0);
		assert_null(note);

		/* a traced user function's lines: the same from the capture */
		assert_non_null(r.image_src);
		assert_int_equal(r.image_src(r.ctx, "/usr/bin/app", 0x1130, fr, 4, NULL), 2);
		assert_string_equal(fr[0].func, "open_config");
		assert_string_equal(fr[0].file, "cfg.c");
		assert_int_equal(fr[0].line, 9);
		assert_int_equal(fr[0].col, 1);
		assert_string_equal(fr[1].file, "app.c");
		assert_int_equal(fr[1].line, 27);
		note = NULL;
		assert_int_equal(r.image_src(r.ctx, "/lib/libx.so", 0x1130, fr, 4, &note), 0);
		assert_string_equal(note, "no debug info");
		/* asked twice live, written once: the replay answers the same */
		assert_int_equal(r.image_src(r.ctx, "/usr/bin/app", 0x1130, fr, 1, NULL), 2);
		assert_string_equal(fr[0].file, "cfg.c");
	}
	/* what the live run never asked, a replay doesn't know */
	assert_int_equal(r.image_src(r.ctx, "/usr/bin/app", 0x1131, fr, 4, NULL), 0);
	replay__free(rp);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_matches_live),
		cmocka_unit_test(test_replay_keeps_cut_lookups),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_view_replays),
		cmocka_unit_test(test_args_replay_matches_live),
		cmocka_unit_test(test_probes_replay_matches_live),
		cmocka_unit_test(test_answers_by_space),
	};

	return cmocka_run_group_tests_name("capture", tests, NULL, NULL);
}
