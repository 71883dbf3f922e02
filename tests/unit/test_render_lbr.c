// SPDX-License-Identifier: BSD-2-Clause
/* LBR view: the seed README's array_map_alloc_check example, trimming and max count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "records.h"
#include "sample_harness.h"

#define AMAC 0x5000ULL		/* array_map_alloc_check, 0x80 bytes */
#define FTRACE_TRAMP 0x9000ULL
#define KRET_TRAMP 0xa000ULL
#define OTHER 0xb000ULL		/* retsnoop's own probe machinery */

static bool ksym(void *ctx, const struct addr_space *as, __u64 addr, struct sym_hit *hit)
{
	static const struct { const char *n; __u64 s, sz; } t[] = {
		{ "array_map_alloc_check", AMAC, 0x80 },
		{ "ftrace_trampoline", FTRACE_TRAMP, 0x200 },
		{ "__kretprobe_trampoline", KRET_TRAMP, 0x10 },
		{ "bpf_prog_123_kexit", OTHER, 0x1000 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (addr >= t[i].s && addr < t[i].s + t[i].sz) {
			*hit = (struct sym_hit){ t[i].n, t[i].s, t[i].sz };
			return true;
		}
	}
	return false;
}

static int src(void *ctx, const struct addr_space *as, __u64 addr, struct src_frame *fr,
	       int max, const char **note)
{
	static const char *const f = "kernel/bpf/arraymap.c";
	struct src_frame inl = { "bpf_map_attr_numa_node", "include/linux/bpf.h", 1735, 19 };

	if (addr < AMAC || addr >= AMAC + 0x80)
		return 0;
	fr[0] = (struct src_frame){ "array_map_alloc_check", f, 0, 0 };
	switch (addr - AMAC) {
	case 0x5: fr[0].line = 53; fr[0].col = 20; return 1;
	case 0x13: case 0x75: case 0x7a: fr[0].line = 54; fr[0].col = 18; fr[1] = inl; return 2;
	case 0x18: case 0x1d: fr[0].line = 57; fr[0].col = 5; return 1;
	case 0x6f: fr[0].line = 62; fr[0].col = 10; return 1;
	case 0x74: fr[0].line = 79; fr[0].col = 1; return 1;
	}
	return 0;
}

static const struct func funcs[] = {
	{ .name = "__x64_sys_bpf", .addr = 0x1000 },
	{ .name = "array_map_alloc_check", .flags = FUNC_NEEDS_SIGN_EXT, .addr = AMAC },
};

static struct rec_lbr_stack lbr;
static struct rec_session_end end;

static struct rec_session_start start;

static struct sample_build_opts lbr_opts(int max_count, bool full)
{
	return (struct sample_build_opts){
		.sz = sizeof(struct sample_build_opts), .funcs = funcs, .func_cnt = 2,
		.view = { .lbr = true, .full_lbr = full, .lbr_max_count = max_count },
		.syms = { .sym = ksym, .src = src },
	};
}

static char *render_lbr_of(const struct rec_lbr_stack *l, int max_count, bool full)
{
	struct sess_recs r = { .start = &start, .end = &end, .lbr = l };
	struct sample_build_opts b = lbr_opts(max_count, full);

	return harness_render(&r, &b, render_lbr);
}

/* The model the view is drawn from (sample__free() it). */
static struct sample *model_of(const struct rec_lbr_stack *l, bool full)
{
	struct sess_recs r = { .start = &start, .end = &end, .lbr = l };
	struct sample_build_opts b = lbr_opts(0, full);
	struct sample *s;

	assert_int_equal(sample__build(&r, &b, &s), 0);
	assert_true(s->has_lbr);
	return s;
}

static char *render(int max_count, bool full)
{
	return render_lbr_of(&lbr, max_count, full);
}

static void setup_seed(void)
{
	int i;

	memset(&lbr, 0, sizeof(lbr));
	memset(&end, 0, sizeof(end));
	end.stack.max_depth = 2;
	end.stack.func_ids[1] = 1;
	/* #00..#17: branches inside the BPF program that captured them */
	for (i = 0; i < 18; i++) {
		lbr.lbrs[i].from = OTHER + 0x10 * i + 8;
		lbr.lbrs[i].to = OTHER + 0x10 * i;
	}
	lbr.lbrs[22] = (struct lbr_record){ FTRACE_TRAMP + 0x14c, AMAC + 0x5 };
	lbr.lbrs[21] = (struct lbr_record){ AMAC + 0x13, AMAC + 0x75 };
	lbr.lbrs[20] = (struct lbr_record){ AMAC + 0x7a, AMAC + 0x18 };
	lbr.lbrs[19] = (struct lbr_record){ AMAC + 0x1d, AMAC + 0x6f };
	lbr.lbrs[18] = (struct lbr_record){ AMAC + 0x74, KRET_TRAMP };
	lbr.lbrs_sz = 23 * sizeof(struct lbr_record);
}

static void test_seed_layout(void **state)
{
	struct sample *s;
	char *out;

	setup_seed();
	/* the model: every record, newest first; relevant from #18, the last touching AMAC */
	s = model_of(&lbr, false);
	assert_int_equal(s->lbr_cnt, 23);
	assert_true(s->lbr_relevant);
	assert_int_equal(s->lbr_first, 18);
	assert_string_equal(s->lbrs[22].from.sym, "ftrace_trampoline");
	assert_int_equal(s->lbrs[22].to.addr, AMAC + 0x5);
	assert_int_equal(s->lbrs[22].to.src_cnt, 1);
	assert_int_equal(s->lbrs[22].to.src[0].line, 53);
	/* branch ends are looked up at the address itself, not the call before it */
	assert_int_equal(s->lbrs[21].from.src_cnt, 2);
	assert_string_equal(s->lbrs[21].from.src[1].func, "bpf_map_attr_numa_node");
	assert_string_equal(s->lbrs[18].to.sym, "__kretprobe_trampoline");
	assert_int_equal(s->lbrs[18].to.src_cnt, 0);
	sample__free(s);
	out = render(0, false);
	assert_string_equal(out,
"[#22] ftrace_trampoline+0x14c                                    ->  array_map_alloc_check+0x5   (kernel/bpf/arraymap.c:53:20)\n"
"[#21] array_map_alloc_check+0x13  (kernel/bpf/arraymap.c:54:18)  ->  array_map_alloc_check+0x75  (kernel/bpf/arraymap.c:54:18)\n"
"      . bpf_map_attr_numa_node    (include/linux/bpf.h:1735:19)      . bpf_map_attr_numa_node    (include/linux/bpf.h:1735:19)\n"
"[#20] array_map_alloc_check+0x7a  (kernel/bpf/arraymap.c:54:18)  ->  array_map_alloc_check+0x18  (kernel/bpf/arraymap.c:57:5)\n"
"      . bpf_map_attr_numa_node    (include/linux/bpf.h:1735:19)\n"
"[#19] array_map_alloc_check+0x1d  (kernel/bpf/arraymap.c:57:5)   ->  array_map_alloc_check+0x6f  (kernel/bpf/arraymap.c:62:10)\n"
"[#18] array_map_alloc_check+0x74  (kernel/bpf/arraymap.c:79:1)   ->  __kretprobe_trampoline+0x0\n");
	free(out);
}

static void test_max_count_keeps_most_recent(void **state)
{
	char *out;

	setup_seed();
	out = render(2, false);
	assert_null(strstr(out, "[#22]"));
	assert_null(strstr(out, "[#20]"));
	assert_non_null(strstr(out, "[#19] array_map_alloc_check+0x1d"));
	assert_non_null(strstr(out, "[#18] array_map_alloc_check+0x74"));
	assert_null(strstr(out, "[#17]"));
	free(out);
}

static void test_full_and_irrelevant(void **state)
{
	struct sample *s;
	char *out;

	setup_seed();
	s = model_of(&lbr, true);
	assert_int_equal(s->lbr_cnt, 23);
	assert_true(s->lbr_relevant);
	assert_int_equal(s->lbr_first, 0);
	sample__free(s);
	out = render(0, true);
	assert_non_null(strstr(out, "[#00] bpf_prog_123_kexit+0x8"));
	assert_null(strstr(out, "No relevant LBR"));
	free(out);

	/* nothing touches the deepest function: show all, say so */
	memset(&lbr.lbrs[18], 0, 5 * sizeof(lbr.lbrs[0]));
	lbr.lbrs_sz = 18 * sizeof(struct lbr_record);
	s = model_of(&lbr, false);
	assert_int_equal(s->lbr_cnt, 18);
	assert_false(s->lbr_relevant);
	assert_int_equal(s->lbr_first, 0);
	sample__free(s);
	out = render(0, false);
	assert_non_null(strstr(out, "[#17] bpf_prog_123_kexit+0x118"));
	assert_non_null(strstr(out, "[#00] bpf_prog_123_kexit+0x8"));
	assert_non_null(strstr(out, "[LBR] No relevant LBR data were captured, showing unfiltered LBR stack!\n"));
	free(out);
}

static void test_errors(void **state)
{
	struct sample *s = model_of(NULL, false);
	char *out;

	assert_true(s->lbr_missing);
	assert_int_equal(s->lbr_cnt, 0);
	sample__free(s);
	out = render_lbr_of(NULL, 0, false);

	assert_string_equal(out, "LBR data was dropped and is missing in this sample!\n");
	free(out);
	lbr.lbrs_sz = -2;
	s = model_of(&lbr, false);
	assert_false(s->lbr_missing);
	assert_int_equal(s->lbr_err, -2);
	sample__free(s);
	out = render(0, false);
	assert_string_equal(out, "Failed to capture LBR entries: -2\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_layout),
		cmocka_unit_test(test_max_count_keeps_most_recent),
		cmocka_unit_test(test_full_and_irrelevant),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests_name("render_lbr", tests, NULL, NULL);
}
