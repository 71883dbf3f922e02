// SPDX-License-Identifier: BSD-2-Clause
/*
 * Recorded argument bytes (REC_FNARGS as BPF sends them) rendered in the three modes:
 * per-argument text, widths and cuts, NULL, read errors, (trunc), the skipped kinds,
 * printf varargs, raw pointers, lost records; then the stack view and the -T table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "unit.h"
#include "arg_plan.h"
#include "arg_render.h"
#include "sample_harness.h"
#include "sink.h"

static const struct arg_limits lim = { .max_sized = 256, .max_str = 64 };

static struct btf *btf;
static int fn_main, fn_printk, fn_skips, s16_id;

/*
 * int main_fn(int cmd, struct s16 *attr, const char *name, void *p, struct s16 v, char *nul);
 * int printk_fn(const char *fmt, ...);
 * int skips_fn(double d, int late, ...);
 */
static int setup(void **state)
{
	int i32, u64, chr, cstr, s16, ps16, vp, flt, proto;

	btf = btf__new_empty();
	i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	u64 = btf__add_int(btf, "long unsigned int", 8, 0);
	chr = btf__add_int(btf, "char", 1, BTF_INT_SIGNED);
	cstr = btf__add_ptr(btf, btf__add_const(btf, chr));
	s16 = s16_id = btf__add_struct(btf, "s16", 16);
	btf__add_field(btf, "a", u64, 0, 0);
	btf__add_field(btf, "b", u64, 64, 0);
	ps16 = btf__add_ptr(btf, s16);
	vp = btf__add_ptr(btf, 0);
	flt = btf__add_float(btf, "double", 8);

	proto = btf__add_func_proto(btf, i32);
	btf__add_func_param(btf, "cmd", i32);
	btf__add_func_param(btf, "attr", ps16);
	btf__add_func_param(btf, "name", cstr);
	btf__add_func_param(btf, "p", vp);
	btf__add_func_param(btf, "v", s16);
	btf__add_func_param(btf, "nul", cstr);
	fn_main = btf__add_func(btf, "main_fn", BTF_FUNC_STATIC, proto);

	proto = btf__add_func_proto(btf, i32);
	btf__add_func_param(btf, "fmt", cstr);
	btf__add_func_param(btf, "", 0);
	fn_printk = btf__add_func(btf, "printk_fn", BTF_FUNC_STATIC, proto);

	proto = btf__add_func_proto(btf, i32);
	btf__add_func_param(btf, "d", flt);
	btf__add_func_param(btf, "late", i32);
	btf__add_func_param(btf, "", 0);
	fn_skips = btf__add_func(btf, "skips_fn", BTF_FUNC_STATIC, proto);
	assert_true(fn_skips > 0);
	return 0;
}

static int teardown(void **state)
{
	btf__free(btf);
	return 0;
}

/* A REC_FNARGS being filled the way BPF fills it. */
struct recbuf {
	union {
		struct rec_fnargs r;
		__u8 raw[sizeof(struct rec_fnargs) + 1024];
	};
};

static void rec_init(struct recbuf *b, __u32 func_id, __u32 seq, int arg_cnt, bool raw_ptrs)
{
	memset(b, 0, sizeof(*b));
	b->r.type = REC_FNARGS;
	b->r.func_id = func_id;
	b->r.seq_id = seq;
	b->r.arg_cnt = arg_cnt;
	b->r.flags = raw_ptrs ? FNARGS_F_RAW_PTRS : 0;
}

/* Argument @i: optional raw pointer, then @len bytes (or -errno). */
static void rec_arg(struct recbuf *b, int i, const __u64 *ptr, int len, const void *data)
{
	__u8 *d = b->r.data + b->r.data_len;

	if (ptr) {
		memcpy(d, ptr, 8);
		d += 8;
		b->r.data_len += 8;
		b->r.ptr_mask |= 1 << i;
	}
	b->r.lens[i] = len;
	if (len > 0) {
		memcpy(d, data, len);
		b->r.data_len += (len + 7) & ~7;
	}
}

static void args_of(struct sample_args *a, const struct func_arg_plan *p, const struct recbuf *b)
{
	memset(a, 0, sizeof(*a));
	a->plan = p;
	a->raw_ptrs = b->r.flags & FNARGS_F_RAW_PTRS;
	a->ptr_mask = b->r.ptr_mask;
	a->arg_cnt = b->r.arg_cnt;
	memcpy(a->lens, b->r.lens, sizeof(a->lens));
	a->data = b->r.data;
	a->data_len = b->r.data_len;
}

static char *compact(const struct sample_args *a, int width)
{
	struct arg_render_opts o = { .sz = sizeof(o), .mode = ARGS_FMT_COMPACT, .max_width = width };
	char *s = arg_render__compact(a, &o);

	assert_non_null(s);
	return s;
}

#define EXPECT_COMPACT(a, width, want) do {			\
	char *__s = compact(a, width);				\
	assert_string_equal(__s, want);				\
	free(__s);						\
} while (0)

static void main_rec(struct recbuf *b, bool raw)
{
	const __u64 s[2] = { 1, 4194304 }, attr_ptr = 0xffff888003c1d000ULL, name_ptr = 0x7ffc1000;
	const __u64 cmd = 5, p = 0xffffc9000031e000ULL, zero = 0;

	rec_init(b, 0, 3, 6, raw);
	rec_arg(b, 0, NULL, 4, &cmd);
	rec_arg(b, 1, raw ? &attr_ptr : NULL, 16, s);
	rec_arg(b, 2, raw ? &name_ptr : NULL, 7, "hi\tyo\n");
	rec_arg(b, 3, NULL, 8, &p);
	rec_arg(b, 4, NULL, 16, s);
	rec_arg(b, 5, raw ? &zero : NULL, -ENODATA, NULL);
}

static void test_kinds(void **state)
{
	struct func_arg_plan p;
	struct sample_args a;
	struct recbuf b;

	assert_int_equal(arg_plan__build(&p, btf, fn_main, &arg_arch_x86_64, &lim), 0);
	main_rec(&b, false);
	args_of(&a, &p, &b);
	EXPECT_COMPACT(&a, 120, "cmd=5 attr=&{.a=1,.b=0x400000} name='hi yo ' p=0xffffc9000031e000 "
		       "v={.a=1,.b=0x400000} nul=NULL");
	/* args.capture-raw-ptrs: the pointer first */
	main_rec(&b, true);
	args_of(&a, &p, &b);
	EXPECT_COMPACT(&a, 0, "cmd=5 attr=(0xffff888003c1d000)&{.a=1,.b=0x400000} "
		       "name=(0x7ffc1000)'hi yo ' p=0xffffc9000031e000 v={.a=1,.b=0x400000} "
		       "nul=(0x0)NULL");
}

static void test_errors_and_widths(void **state)
{
	const __u64 s[2] = { 0x1234567, 0x89abcdef }, cmd = (__u32)-22;
	struct func_arg_plan p;
	struct sample_args a;
	struct recbuf b;

	assert_int_equal(arg_plan__build(&p, btf, fn_main, &arg_arch_x86_64, &lim), 0);
	rec_init(&b, 0, 0, 6, false);
	rec_arg(&b, 0, NULL, 4, &cmd);
	rec_arg(&b, 1, NULL, -EFAULT, NULL);
	rec_arg(&b, 2, NULL, -ENOSPC, NULL);
	rec_arg(&b, 3, NULL, -1000, NULL);
	rec_arg(&b, 4, NULL, 16, s);
	/* a string that is empty */
	rec_arg(&b, 5, NULL, 1, "");
	args_of(&a, &p, &b);
	EXPECT_COMPACT(&a, 0, "cmd=-22 attr=<ERR:-EFAULT> name=(trunc) p=<ERR:-1000> "
		       "v={.a=0x1234567,.b=0x89abcdef} nul=''");
	/* width: 12 columns at most, the last one an ellipsis; the name doesn't count */
	EXPECT_COMPACT(&a, 12, "cmd=-22 attr=<ERR:-EFAUL\u2026 name=(trunc) p=<ERR:-1000> "
		       "v={.a=0x12345\u2026 nul=''");
	/* exactly the width: kept */
	EXPECT_COMPACT(&a, 13, "cmd=-22 attr=<ERR:-EFAULT> name=(trunc) p=<ERR:-1000> "
		       "v={.a=0x123456\u2026 nul=''");
}

static void test_skipped_kinds(void **state)
{
	const __u64 late = 7;
	struct func_arg_plan p;
	struct sample_args a;
	struct recbuf b;

	assert_int_equal(arg_plan__build(&p, btf, fn_skips, &arg_arch_x86_64, &lim), 0);
	rec_init(&b, 0, 0, 3, false);
	rec_arg(&b, 1, NULL, 4, &late);
	args_of(&a, &p, &b);
	EXPECT_COMPACT(&a, 0, "d=(unsupp) late=7 ...=(vararg)");

	/* without BTF: the argument registers */
	assert_int_equal(arg_plan__build(&p, NULL, 0, &arg_arch_x86_64, &lim), 0);
	rec_init(&b, 0, 0, 6, false);
	for (int i = 0; i < 6; i++) {
		__u64 v = i == 1 ? 0xffff888003c1d000ULL : (__u64)i;

		rec_arg(&b, i, NULL, 8, &v);
	}
	args_of(&a, &p, &b);
	EXPECT_COMPACT(&a, 0, "arg0=0 arg1=0xffff888003c1d000 arg2=2 arg3=3 arg4=4 arg5=5");
}

static void test_printf_varargs(void **state)
{
	const __u64 five = 5, sptr = 0xffffffff82000000ULL, bad = 0xffffffff81000000ULL;
	const char fmt[] = "x=%d s=%s %% b=%s n=%u\n";
	struct func_arg_plan p;
	struct sample_args a;
	struct recbuf b;

	assert_int_equal(arg_plan__build(&p, btf, fn_printk, &arg_arch_x86_64, &lim), 0);
	rec_init(&b, 0, 0, 12, false);
	rec_arg(&b, 0, NULL, sizeof(fmt), fmt);
	rec_arg(&b, 1, NULL, 8, &five);			/* a number */
	rec_arg(&b, 2, &sptr, 5, "text");		/* a kernel string */
	rec_arg(&b, 3, NULL, 8, &bad);			/* looked like one, wasn't readable */
	rec_arg(&b, 4, NULL, 8, &five);
	rec_arg(&b, 5, NULL, 8, &five);			/* beyond the format's count */
	args_of(&a, &p, &b);
	assert_int_equal(arg_render__shown(&a), 5);
	EXPECT_COMPACT(&a, 0, "fmt='x=%d s=%s %% b=%s n=%u ' vararg0=5 vararg1='text' "
		       "vararg2=0xffffffff81000000 vararg3=5");
	b.r.flags = FNARGS_F_RAW_PTRS;
	args_of(&a, &p, &b);
	EXPECT_COMPACT(&a, 0, "fmt='x=%d s=%s %% b=%s n=%u ' vararg0=5 "
		       "vararg1=(0xffffffff82000000)'text' vararg2=0xffffffff81000000 vararg3=5");
	/* no format string: every slot */
	b.r.lens[0] = -EFAULT;
	b.r.data_len = 0;
	b.r.ptr_mask = 0;
	memset(b.r.lens + 1, 0, sizeof(b.r.lens) - sizeof(b.r.lens[0]));
	args_of(&a, &p, &b);
	assert_int_equal(arg_render__shown(&a), 12);
}

static void test_modes_and_missing(void **state)
{
	struct arg_render_opts o = { .sz = sizeof(o), .mode = ARGS_FMT_MULTILINE, .max_width = 10 };
	struct func_arg_plan p;
	struct sample_args a, missing = { .missing = true };
	struct recbuf b;
	char **strs, *s;
	int cnt;

	assert_int_equal(arg_plan__build(&p, btf, fn_main, &arg_arch_x86_64, &lim), 0);
	main_rec(&b, false);
	args_of(&a, &p, &b);
	assert_int_equal(arg_render__strs(&a, &o, &strs, &cnt), 0);
	assert_int_equal(cnt, 6);
	assert_string_equal(strs[0], "cmd = 5");
	assert_string_equal(strs[1], "attr = &{.a=1,.b\u2026");
	assert_string_equal(strs[5], "nul = NULL");
	arg_render__free_strs(strs, cnt);

	/* verbose: no width limit, nested lines indented past the marker column */
	o.mode = ARGS_FMT_VERBOSE;
	o.indent = 2;
	assert_int_equal(arg_render__strs(&a, &o, &strs, &cnt), 0);
	assert_string_equal(strs[1], "attr = &{\n      .a = 1,\n      .b = 0x400000\n  }");
	assert_string_equal(strs[2], "name = 'hi yo '");
	arg_render__free_strs(strs, cnt);

	assert_int_equal(arg_render__strs(&missing, &o, &strs, &cnt), 0);
	assert_int_equal(cnt, 1);
	assert_string_equal(strs[0], "... data missing ...");
	arg_render__free_strs(strs, cnt);
	s = compact(&missing, 120);
	assert_string_equal(s, "... data missing ...");
	free(s);

	/* a record shorter than its lengths say: the arguments it lacks are missing */
	a.data_len = 20;
	s = compact(&a, 0);
	assert_string_equal(s, "cmd=5 attr=... data missing ... name=... data missing ... "
			    "p=... data missing ... v=... data missing ... nul=... data missing ...");
	free(s);
}

/* ---- the views ---- */

static const struct func funcs_tmpl[] = {
	{ .name = "__sys_bpf", .flags = FUNC_NEEDS_SIGN_EXT },
	{ .name = "main_fn", .flags = FUNC_NEEDS_SIGN_EXT },
};

/* The view's sample through @render (NULL: the JSON sink). */
static char *view_with(bool trace, enum args_fmt_mode mode, int width, bool lose_outer,
		       view_fn render);

static char *view(bool trace, enum args_fmt_mode mode, int width, bool lose_outer)
{
	return view_with(trace, mode, width, lose_outer, trace ? render_trace : render_stack);
}

static char *view_with(bool trace, enum args_fmt_mode mode, int width, bool lose_outer,
		       view_fn render)
{
	struct func funcs[2] = { funcs_tmpl[0], funcs_tmpl[1] };
	struct arg_plans_opts po = { .sz = sizeof(po), .arch = &arg_arch_x86_64, .limits = lim };
	const __u64 cmd = 0;
	struct recbuf outer, inner;
	const struct rec_fnargs *recs[2] = { &outer.r, &inner.r };
	struct rec_session_start st = {};
	struct rec_session_end e = {
		.type = REC_SESSION_END, .last_seq_id = 3, .is_err = 1,
		.stack = { .func_ids = { 0, 1 }, .seq_ids = { 0, 1 }, .func_res = { -22, -22 },
			   .func_lat = { 9000, 3000 }, .max_depth = 2 },
	};
	const struct rec_func_trace tr[] = {
		{ .type = REC_FUNC_TRACE_ENTRY, .func_id = 0, .seq_id = 0, .depth = 1 },
		{ .type = REC_FUNC_TRACE_ENTRY, .func_id = 1, .seq_id = 1, .depth = 2 },
		{ .type = REC_FUNC_TRACE_EXIT, .func_id = 1, .seq_id = 2, .depth = 2,
		  .func_lat = 3000, .func_res = -22 },
		{ .type = REC_FUNC_TRACE_EXIT, .func_id = 0, .seq_id = 3, .depth = 1,
		  .func_lat = 9000, .func_res = -22 },
	};
	struct sess_recs r = {
		.start = &st, .end = &e, .trace = tr, .trace_cnt = trace ? 4 : 0,
		.args = lose_outer ? recs + 1 : recs, .args_cnt = lose_outer ? 1 : 2,
	};
	struct sample_build_opts bo = {
		.sz = sizeof(bo), .funcs = funcs, .func_cnt = 2,
		.view = { .stack = !trace, .func_trace = trace, .args = true, .args_fmt = mode,
			  .args_max_width = width },
	};
	struct arg_plans *ps;
	char *out;

	funcs[1].btf = btf;
	funcs[1].btf_id = fn_main;
	ps = arg_plans__new(funcs, 2, &po);
	assert_non_null(ps);
	bo.args = ps;
	rec_init(&outer, 0, 0, 6, false);
	for (int i = 0; i < 6; i++)
		rec_arg(&outer, i, NULL, 8, &cmd);
	main_rec(&inner, false);
	inner.r.func_id = 1;
	inner.r.seq_id = 1;
	if (render) {
		out = harness_render(&r, &bo, render);
	} else {
		struct json_sink_opts jo = { .sz = sizeof(jo) };
		struct sample *smp;
		struct sink *sk;
		size_t len = 0;

		out = NULL;
		jo.out = open_memstream(&out, &len);
		sk = json_sink__new(&jo);
		assert_int_equal(sample__build(&r, &bo, &smp), 0);
		assert_int_equal(sink__sample(sk, smp), 0);
		sample__free(smp);
		sink__free(sk);
		fclose(jo.out);
	}
	arg_plans__free(ps);
	return out;
}

static void test_stack_view(void **state)
{
	char *s = view(false, ARGS_FMT_COMPACT, 30, false);

	assert_string_equal(s,
"     9us [-EINVAL]  __sys_bpf    arg0=0 arg1=0 arg2=0 arg3=0 arg4=0 arg5=0\n"
"!    3us [-EINVAL]  main_fn      cmd=5 attr=&{.a=1,.b=0x400000} name='hi yo ' "
"p=0xffffc9000031e000 v={.a=1,.b=0x400000} nul=NULL\n");
	free(s);
	s = view(false, ARGS_FMT_MULTILINE, 14, false);
	assert_string_equal(s,
"     9us [-EINVAL]  __sys_bpf\n"
"         › arg0 = 0\n"
"         › arg1 = 0\n"
"         › arg2 = 0\n"
"         › arg3 = 0\n"
"         › arg4 = 0\n"
"         › arg5 = 0\n"
"!    3us [-EINVAL]  main_fn\n"
"         › cmd = 5\n"
"         › attr = &{.a=1,.b=0x4…\n"
"         › name = 'hi yo '\n"
"         › p = 0xffffc900003…\n"
"         › v = {.a=1,.b=0x40…\n"
"         › nul = NULL\n");
	free(s);
	/* the outer record was lost */
	s = view(false, ARGS_FMT_VERBOSE, 14, true);
	assert_string_equal(s,
"     9us [-EINVAL]  __sys_bpf\n"
"         › ... data missing ...\n"
"!    3us [-EINVAL]  main_fn\n"
"         › cmd = 5\n"
"         › attr = &{\n"
"             .a = 1,\n"
"             .b = 0x400000\n"
"         }\n"
"         › name = 'hi yo '\n"
"         › p = 0xffffc9000031e000\n"
"         › v = {\n"
"             .a = 1,\n"
"             .b = 0x400000\n"
"         }\n"
"         › nul = NULL\n");
	free(s);
}

static void test_trace_view(void **state)
{
	char *s = view(true, ARGS_FMT_COMPACT, 12, false);

	assert_string_equal(s,
"FUNCTION CALL TRACE   RESULT     DURATION  CONTEXT\n"
"-------------------   ---------  --------  -------\n"
"→ __sys_bpf                                arg0=0 arg1=0 arg2=0 arg3=0 arg4=0 arg5=0\n"
"    ↔ main_fn         [-EINVAL]   3.000us  cmd=5 attr=&{.a=1,.b=0…"
" name='hi yo ' p=0xffffc9000… v={.a=1,.b=0x… nul=NULL\n"
"← __sys_bpf           [-EINVAL]   9.000us\n");
	free(s);
	s = view(true, ARGS_FMT_MULTILINE, 0, true);
	assert_string_equal(s,
"FUNCTION CALL TRACE   RESULT     DURATION\n"
"-------------------   ---------  --------\n"
"→ __sys_bpf\n"
"                      › ... data missing ...\n"
"    ↔ main_fn         [-EINVAL]   3.000us\n"
"                      › cmd = 5\n"
"                      › attr = &{.a=1,.b=0x400000}\n"
"                      › name = 'hi yo '\n"
"                      › p = 0xffffc9000031e000\n"
"                      › v = {.a=1,.b=0x400000}\n"
"                      › nul = NULL\n"
"← __sys_bpf           [-EINVAL]   9.000us\n");
	free(s);
}

static void test_json(void **state)
{
	char *s = view_with(true, ARGS_FMT_COMPACT, 10, true, NULL);

	/* the lost record of the outer call, on its frame and its entry row */
	assert_non_null(strstr(s, "\"function\":\"__sys_bpf\",\"marker\":\"  \",\"stitched\":false,"
			       "\"origin\":false,\"replaced\":false,\"running\":false,\"duration_ns\":9000,\"result_type\":\"int\","
			       "\"result_text\":\"-EINVAL\",\"result\":-22,\"failed\":true,"
			       "\"errno\":\"EINVAL\",\"args_missing\":true"));
	/* every argument: rendered without the width limit, with its bytes */
	assert_non_null(strstr(s, "\"args\":[{\"name\":\"cmd\",\"kind\":\"value\",\"text\":\"5\","
			       "\"bytes\":\"05000000\"},{\"name\":\"attr\",\"kind\":\"pointee\","
			       "\"text\":\"&{.a=1,.b=0x400000}\",\"bytes\":\"01000000000000000000400000000000\"},"
			       "{\"name\":\"name\",\"kind\":\"string\",\"text\":\"'hi yo '\","
			       "\"bytes\":\"68690979"));
	assert_non_null(strstr(s, "{\"name\":\"nul\",\"kind\":\"string\",\"text\":\"NULL\",\"null\":true}]"));
	/* the leaf row carries them too */
	assert_non_null(strstr(s, "\"kind\":\"leaf\",\"depth\":2,\"seq\":1,\"function\":\"main_fn\","));
	assert_non_null(strstr(s, "\"lost\":{\"dropped_records\":0,\"trace_records\":0,\"args_records\":0,"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_errors_and_widths),
		cmocka_unit_test(test_skipped_kinds),
		cmocka_unit_test(test_printf_varargs),
		cmocka_unit_test(test_modes_and_missing),
		cmocka_unit_test(test_stack_view),
		cmocka_unit_test(test_trace_view),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests_name("arg_render", tests, setup, teardown);
}
