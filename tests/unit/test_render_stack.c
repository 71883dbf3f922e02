// SPDX-License-Identifier: BSD-2-Clause
/* Stack-view layout against the seed README's example, rebuilt as a recorded sample. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "retsnoop.h"
#include "sample_harness.h"

struct fake_sym {
	const char *name;
	__u64 start, size;
	int nsrc;
	struct src_frame src[3];	/* for the one call site of this function we use */
};

static const struct fake_sym syms[] = {
	{ "entry_SYSCALL_64_after_hwframe", 0x1000, 0x100, 1,
	  { { "entry_SYSCALL_64_after_hwframe", "arch/x86/entry/entry_64.S", 120, 0 } } },
	{ "do_syscall_64", 0x2000, 0x100, 2,
	  { { "do_syscall_64", "arch/x86/entry/common.c", 80, 7 },
	    { "do_syscall_x64", "arch/x86/entry/common.c", 50, 12 } } },
	{ "__x64_sys_bpf", 0x3000, 0x100, 1, { { "__x64_sys_bpf", "kernel/bpf/syscall.c", 5067, 1 } } },
	{ "__sys_bpf", 0x4000, 0x1000, 3,
	  { { "__sys_bpf", "kernel/bpf/syscall.c", 4947, 9 },
	    { "map_create", "kernel/bpf/syscall.c", 1106, 8 },
	    { "find_and_alloc_map", "kernel/bpf/syscall.c", 132, 5 } } },
	{ "bpf_trampoline_6442537193", 0x9000, 0x100, 0, {} },
	{ "map_create", 0x5000, 0x200, 0, {} },
	{ "bpf_prog_3a7c5a2d1b4e6f80_fexit3", 0xa000, 0x100, 0, {} },
};

static const struct fake_sym *find(__u64 addr)
{
	size_t i;

	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (addr >= syms[i].start && addr < syms[i].start + syms[i].size)
			return &syms[i];
	return NULL;
}

static bool fake_ksym(void *ctx, const struct addr_space *as, __u64 addr, struct sym_hit *hit)
{
	const struct fake_sym *s = find(addr);

	if (!s)
		return false;
	hit->name = s->name;
	hit->start = s->start;
	hit->size = s->size;
	return true;
}

static int fake_src(void *ctx, const struct addr_space *as, __u64 addr, struct src_frame *fr,
		    int max, const char **note)
{
	const struct fake_sym *s = find(addr);
	int i;

	if (!s)
		return 0;
	for (i = 0; i < s->nsrc && i < max; i++)
		fr[i] = s->src[i];
	return s->nsrc;
}

static const struct func funcs[] = {
	{ .name = "__x64_sys_bpf" },
	{ .name = "__sys_bpf", .flags = FUNC_NEEDS_SIGN_EXT },
	{ .name = "array_map_alloc", .flags = FUNC_RET_PTR },
	{ .name = "bpf_map_alloc_percpu", .flags = FUNC_RET_PTR },
};

static char *render(struct rec_session_end *e, bool with_src)
{
	struct text_sink_opts o = { .sz = sizeof(o), .stack_view = true };
	struct sym_resolver syms = { .sym = fake_ksym, .src = with_src ? fake_src : NULL };

	return harness_render_end(funcs, 4, syms, e, &o, render_stack);
}

static struct rec_session_end *seed_sample(void)
{
	struct rec_session_end *e = calloc(1, sizeof(*e));
	struct call_stack *cs = &e->stack;
	static const __s64 res[] = { -12, 0xffffffffLL - 11, -12, 0 };
	static const __u64 lat[] = { 73123, 70999, 50000, 2500 };
	/* innermost first, as bpf_get_stack() returns it */
	static const __u64 ks[] = { 0x438b, 0x301a, 0x2035, 0x1063 };
	int i;

	for (i = 0; i < 4; i++) {
		cs->func_ids[i] = i;
		cs->func_res[i] = res[i];
		cs->func_lat[i] = lat[i];
	}
	cs->max_depth = 4;
	cs->stitched = ~0ULL << 3;
	memcpy(cs->kstack, ks, sizeof(ks));
	cs->kstack_sz = sizeof(ks);
	return e;
}

static void test_seed_layout(void **state)
{
	struct rec_session_end *e = seed_sample();
	char *out = render(e, true);

	assert_string_equal(out,
"                    entry_SYSCALL_64_after_hwframe+0x63  (arch/x86/entry/entry_64.S:120:0)\n"
"                    do_syscall_64+0x35                   (arch/x86/entry/common.c:80:7)\n"
"                    . do_syscall_x64                     (arch/x86/entry/common.c:50:12)\n"
"    73us [-ENOMEM]  __x64_sys_bpf+0x1a                   (kernel/bpf/syscall.c:5067:1)\n"
"    70us [-ENOMEM]  __sys_bpf+0x38b                      (kernel/bpf/syscall.c:4947:9)\n"
"                    . map_create                         (kernel/bpf/syscall.c:1106:8)\n"
"                    . find_and_alloc_map                 (kernel/bpf/syscall.c:132:5)\n"
"!   50us [-ENOMEM]  array_map_alloc\n"
"!*   2us [NULL]     bpf_map_alloc_percpu\n");
	free(out);
	free(e);
}

static void test_kallsyms_only(void **state)
{
	struct rec_session_end *e = seed_sample();
	char *out;

	e->stack.stitched = 0;
	out = render(e, false);
	assert_string_equal(out,
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    do_syscall_64+0x35\n"
"    73us [-ENOMEM]  __x64_sys_bpf+0x1a\n"
"    70us [-ENOMEM]  __sys_bpf+0x38b\n"
"!   50us [-ENOMEM]  array_map_alloc\n"
"!    2us [NULL]     bpf_map_alloc_percpu\n");
	free(out);
	free(e);
}

static void test_bpf_frames_filtered(void **state)
{
	struct rec_session_end *e = seed_sample();
	/* fexit pattern around __sys_bpf (IBT: F+0x9), around __x64_sys_bpf (F+0x5), a BPF prog */
	static const __u64 ks[] = { 0xa010, 0x438b, 0x9010, 0x4009, 0x301a, 0x9020, 0x3005,
				    0x2035, 0x1063 };
	char *out;

	memcpy(e->stack.kstack, ks, sizeof(ks));
	e->stack.kstack_sz = sizeof(ks);
	e->stack.stitched = 0;
	out = render(e, false);
	assert_string_equal(out,
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    do_syscall_64+0x35\n"
"    73us [-ENOMEM]  __x64_sys_bpf+0x1a\n"
"    70us [-ENOMEM]  __sys_bpf+0x38b\n"
"!   50us [-ENOMEM]  array_map_alloc\n"
"!    2us [NULL]     bpf_map_alloc_percpu\n");
	free(out);
	free(e);
}

static void test_untraced_callers_before_missing_frames(void **state)
{
	struct rec_session_end *e = seed_sample();
	/* captured where array_map_alloc returned: an untraced caller sits above __sys_bpf's callee */
	static const __u64 ks[] = { 0x5010, 0x438b, 0x301a, 0x2035, 0x1063 };
	char *out;

	memcpy(e->stack.kstack, ks, sizeof(ks));
	e->stack.kstack_sz = sizeof(ks);
	e->stack.stitched = 0;
	out = render(e, false);
	assert_string_equal(out,
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    do_syscall_64+0x35\n"
"    73us [-ENOMEM]  __x64_sys_bpf+0x1a\n"
"    70us [-ENOMEM]  __sys_bpf+0x38b\n"
"                    map_create+0x10\n"
"!   50us [-ENOMEM]  array_map_alloc\n"
"!    2us [NULL]     bpf_map_alloc_percpu\n");
	free(out);
	free(e);
}

static void test_unfinished_frames(void **state)
{
	struct rec_session_end *e = seed_sample();
	char *out;

	e->stack.depth = 1;	/* outermost still running */
	e->stack.kstack_sz = 0;
	e->stack.stitched = 0;
	out = render(e, false);
	assert_string_equal(out,
"!    ... [...]      __x64_sys_bpf\n"
"!   70us [-ENOMEM]  __sys_bpf\n"
"!   50us [-ENOMEM]  array_map_alloc\n"
"!    2us [NULL]     bpf_map_alloc_percpu\n");
	free(out);
	free(e);
}

/* A wrapper that tail-called its callee has no frame: it goes where it ran, once. */
static void test_tail_called_wrapper(void **state)
{
	struct rec_session_end *e = seed_sample();
	/* __x64_sys_bpf (0x3000) left no frame: do_syscall_64 returns straight into __sys_bpf's caller */
	static const __u64 ks[] = { 0x438b, 0x2035, 0x1063 };
	char *out;

	memcpy(e->stack.kstack, ks, sizeof(ks));
	e->stack.kstack_sz = sizeof(ks);
	e->stack.stitched = 0;
	out = render(e, false);
	assert_string_equal(out,
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    do_syscall_64+0x35\n"
"!   73us [-ENOMEM]  __x64_sys_bpf\n"
"    70us [-ENOMEM]  __sys_bpf+0x38b\n"
"!   50us [-ENOMEM]  array_map_alloc\n"
"!    2us [NULL]     bpf_map_alloc_percpu\n");
	free(out);
	free(e);
}

/* Recursion: two traced frames of one name pair with two kernel frames of it, in order. */
static void test_recursion_pairs_in_order(void **state)
{
	struct rec_session_end *e = seed_sample();
	static const __u64 ks[] = { 0x4400, 0x438b, 0x2035, 0x1063 };
	char *out;

	e->stack.func_ids[2] = 1;	/* __sys_bpf calls itself */
	e->stack.max_depth = 3;
	memcpy(e->stack.kstack, ks, sizeof(ks));
	e->stack.kstack_sz = sizeof(ks);
	e->stack.stitched = 0;
	out = render(e, false);
	assert_string_equal(out,
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    do_syscall_64+0x35\n"
"!   73us [-ENOMEM]  __x64_sys_bpf\n"
"    70us [-ENOMEM]  __sys_bpf+0x38b\n"
"    50us [-ENOMEM]  __sys_bpf+0x400\n");
	free(out);
	free(e);
}

/*
 * The deepest call's own fexit program takes the stack: "F+0x9, bpf_trampoline_N, prog".
 * F has returned into its trampoline, so it gets no kernel frame (as in the other modes);
 * the same address with no trampoline inside it is a real frame.
 */
static void test_fexit_of_deepest_call(void **state)
{
	struct rec_session_end *e = seed_sample();
	static const __u64 ks[] = { 0xa010, 0x9010, 0x4009, 0x301a, 0x2035, 0x1063 };
	char *out;

	e->stack.max_depth = 2;
	memcpy(e->stack.kstack, ks, sizeof(ks));
	e->stack.kstack_sz = sizeof(ks);
	e->stack.stitched = 0;
	out = render(e, false);
	assert_string_equal(out,
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    do_syscall_64+0x35\n"
"    73us [-ENOMEM]  __x64_sys_bpf+0x1a\n"
"!   70us [-ENOMEM]  __sys_bpf\n");
	free(out);

	/* a kprobe's stack: nothing of BPF's inside __sys_bpf+0x9 */
	memcpy(e->stack.kstack, ks + 2, sizeof(ks) - 2 * sizeof(ks[0]));
	e->stack.kstack_sz = sizeof(ks) - 2 * sizeof(ks[0]);
	out = render(e, false);
	assert_string_equal(out,
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    do_syscall_64+0x35\n"
"    73us [-ENOMEM]  __x64_sys_bpf+0x1a\n"
"    70us [-ENOMEM]  __sys_bpf+0x9\n");
	free(out);
	free(e);
}

/* -C stacks.unfiltered/emit-addrs/dec-offs reach the output. */
static void test_stack_options(void **state)
{
	struct rec_session_end *e = seed_sample();
	static const __u64 ks[] = { 0xa010, 0x438b, 0x9010, 0x4009, 0x301a, 0x2035, 0x1063 };
	struct text_sink_opts o = { .sz = sizeof(o), .stack_view = true, .emit_addrs = true,
				    .dec_offs = true };
	struct sym_resolver syms = { .sym = fake_ksym };
	struct rec_session_start st = {};
	struct sess_recs r = { .start = &st, .end = e };
	struct sample_build_opts b = { .sz = sizeof(b), .funcs = funcs, .func_cnt = 4,
				       .syms = syms, .unfiltered = true };
	char *out;

	memcpy(e->stack.kstack, ks, sizeof(ks));
	e->stack.kstack_sz = sizeof(ks);
	e->stack.stitched = 0;
	out = harness_render(&r, &b, &o, render_stack);
	assert_string_equal(out,
"                     0000000000001063 entry_SYSCALL_64_after_hwframe+99\n"
"                     0000000000002035 do_syscall_64+53\n"
"    73us [-ENOMEM]   000000000000301a __x64_sys_bpf+26\n"
"                    ~0000000000004009 __sys_bpf+9\n"
"                    ~0000000000009010 bpf_trampoline_6442537193+16\n"
"    70us [-ENOMEM]   000000000000438b __sys_bpf+907\n"
"                    ~000000000000a010 bpf_prog_3a7c5a2d1b4e6f80_fexit3+16\n"
"!   50us [-ENOMEM]                    array_map_alloc\n"
"!    2us [NULL]                       bpf_map_alloc_percpu\n");
	free(out);
	free(e);
}

static int failed_src(void *ctx, const struct addr_space *as, __u64 addr, struct src_frame *fr,
		      int max, const char **note)
{
	*note = "source-line symbolizer failed";
	return 0;
}

/*
 * The source-line symbolizer gone (the sidecar crashed): every frame keeps its symbol, and
 * where its line would be it says why there is none.
 */
static void test_degraded_frames_say_so(void **state)
{
	struct text_sink_opts o = { .sz = sizeof(o), .stack_view = true };
	struct sym_resolver syms = { .sym = fake_ksym, .src = failed_src };
	struct rec_session_end *e = seed_sample();
	char *out;

	e->stack.stitched = 0;
	out = harness_render_end(funcs, 4, syms, e, &o, render_stack);
	assert_string_equal(out,
"                    entry_SYSCALL_64_after_hwframe+0x63  (source-line symbolizer failed)\n"
"                    do_syscall_64+0x35                   (source-line symbolizer failed)\n"
"    73us [-ENOMEM]  __x64_sys_bpf+0x1a                   (source-line symbolizer failed)\n"
"    70us [-ENOMEM]  __sys_bpf+0x38b                      (source-line symbolizer failed)\n"
"!   50us [-ENOMEM]  array_map_alloc\n"
"!    2us [NULL]     bpf_map_alloc_percpu\n");
	free(out);
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_layout),
		cmocka_unit_test(test_kallsyms_only),
		cmocka_unit_test(test_degraded_frames_say_so),
		cmocka_unit_test(test_bpf_frames_filtered),
		cmocka_unit_test(test_untraced_callers_before_missing_frames),
		cmocka_unit_test(test_unfinished_frames),
		cmocka_unit_test(test_tail_called_wrapper),
		cmocka_unit_test(test_recursion_pairs_in_order),
		cmocka_unit_test(test_fexit_of_deepest_call),
		cmocka_unit_test(test_stack_options),
	};

	return cmocka_run_group_tests_name("render_stack", tests, NULL, NULL);
}
