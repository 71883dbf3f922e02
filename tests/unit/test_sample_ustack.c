// SPDX-License-Identifier: BSD-2-Clause
/*
 * -U in the sample model and its views: the unwinder's addresses and images (innermost
 * first, strings valid during the callback only) become the sample's user frames, outermost
 * first, resolved through the symbols object (a return address' line at its call), with
 * their images, symbols, lines and notes copied; the stack view prints them above a
 * kernel rule, the -T view alone as its header, JSON as user_stack. A lost record and an
 * unfinished stack are said.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "unit.h"
#include "render.h"
#include "sample.h"
#include "sink.h"

static const struct func funcs[] = {
	{ .name = "__x64_sys_openat", .flags = FUNC_IS_ENTRY | FUNC_NEEDS_SIGN_EXT },
};

/* What the sidecar would answer for main -> do_work -> open_config -> libc's open. */
struct fake_frame {
	__u64 pc;
	const char *path, *bid, *sym, *file, *no_lines;
	int line, col;
	bool guessed;		/* found by following the frame pointer */
};

static const struct fake_frame fake[] = {	/* innermost first */
	{ 0x7f0000001011, "/lib/x86_64-linux-gnu/libc.so.6", "93ac", "__open64", NULL,
	  "No DWARF information found" },
	{ 0x7f0000101132, "/opt/u/libucfg.so", "a52e", "open_config", "ucfg.c", NULL, 9, 11 },
	{ 0x5500000011ed, "/opt/u/userprog", "b5ee", "do_work", "main.c", NULL, 17, 11 },
	{ 0x550000001097, "/opt/u/userprog", "b5ee", NULL, NULL, "No DWARF information found",
	  .guessed = true },
};

static const char *fake_note;

/* The unwinder gives addresses and images only, innermost first. */
static int fake_unwind(void *ctx, const struct rec_ustack *r, size_t size, ustack_frame_cb cb,
		       void *cb_ctx, const char **note)
{
	size_t i;
	int err;

	for (i = 0; i < sizeof(fake) / sizeof(fake[0]); i++) {
		const struct fake_frame *f = &fake[i];
		/* scratch the callee may not keep: overwritten after each call */
		char path[64];
		struct ustack_frame fr = {
			.tgid = r->tgid, .pc = f->pc, .activation = i == 0, .guessed = f->guessed,
			.image = { path, f->bid, f->pc & 0xffff },
		};

		snprintf(path, sizeof(path), "%s", f->path);
		err = cb(cb_ctx, &fr);
		memset(path, 'X', sizeof(path) - 1);
		if (err)
			return err;
	}
	*note = fake_note;
	return 0;
}

static const struct fake_frame *fake_at(__u64 addr)
{
	size_t i;

	for (i = 0; i < sizeof(fake) / sizeof(fake[0]); i++)
		if (fake[i].pc == addr)
			return &fake[i];
	return NULL;
}

/* The symbols object: what it knows of each address, in scratch it overwrites later. */
static char sym_scratch[32], file_scratch[32];
static int lookups_at_call;

static bool fake_sym(void *ctx, const struct addr_space *as, __u64 addr, struct sym_hit *hit)
{
	const struct fake_frame *f = fake_at(addr);

	if (as->kind != ADDR_SPACE_USER)
		return false;	/* the kernel frame: a bare address */
	assert_int_equal(as->pid, 42);
	if (!f)
		return false;
	memset(hit, 0, sizeof(*hit));
	hit->image = (struct code_image){ f->path, f->bid, f->pc & 0xffff };
	if (f->sym) {
		snprintf(sym_scratch, sizeof(sym_scratch), "%s", f->sym);
		hit->name = sym_scratch;
		hit->start = f->pc - 0x10;
	}
	return true;
}

static int fake_src(void *ctx, const struct addr_space *as, __u64 addr, struct src_frame *fr,
		    int max, const char **note)
{
	/* the innermost frame is looked up at its pc, a return address at the call before */
	const struct fake_frame *f = fake_at(addr) ?: fake_at(addr + 1);

	assert_int_equal(as->kind, ADDR_SPACE_USER);
	assert_non_null(f);
	if (f != &fake[0])
		assert_int_equal(addr, f->pc - 1), lookups_at_call++;
	if (!f->file) {
		*note = f->no_lines;
		return 0;
	}
	snprintf(file_scratch, sizeof(file_scratch), "%s", f->file);
	fr[0] = (struct src_frame){ sym_scratch, file_scratch, f->line, f->col };
	return 1;
}

struct fixture {
	struct rec_session_start st;
	struct rec_session_end end;
	struct rec_ustack us;
	struct sess_recs r;
	struct sample_build_opts b;
};

static void fixture_init(struct fixture *fx, bool with_record)
{
	static const __u64 ks[] = { 0xffffffff81000100 };

	memset(fx, 0, sizeof(*fx));
	fx->st.tgid = fx->st.pid = 42;
	fx->end.is_err = 1;
	fx->end.stack.max_depth = 1;
	fx->end.stack.func_res[0] = -2;
	memcpy(fx->end.stack.kstack, ks, sizeof(ks));
	fx->end.stack.kstack_sz = sizeof(ks);
	fx->us.type = REC_USTACK;
	fx->us.tgid = fx->us.pid = 42;
	fx->r = (struct sess_recs){ .start = &fx->st, .end = &fx->end };
	if (with_record) {
		fx->r.ustack = &fx->us;
		fx->r.ustack_size = sizeof(fx->us);
	}
	fx->b = (struct sample_build_opts){
		.sz = sizeof(fx->b), .funcs = funcs, .func_cnt = 1, .ustack = true,
		.ustacks = { .unwind = fake_unwind },
		.syms = { .sym = fake_sym, .src = fake_src },
	};
}

static void test_model(void **state)
{
	struct fixture fx;
	struct sample *s;

	fake_note = NULL;
	lookups_at_call = 0;
	fixture_init(&fx, true);
	assert_int_equal(sample__build(&fx.r, &fx.b, &s), 0);
	/* every frame but the innermost: a return address, whose line is its call's */
	assert_int_equal(lookups_at_call, 3);
	assert_true(s->has_ustack);
	assert_false(s->ustack_missing);
	assert_null(s->ustack_note);
	assert_int_equal(s->uframe_cnt, 4);
	/* outermost first; every string a copy of its own */
	assert_int_equal(s->uframes[0].addr, fake[3].pc);
	assert_null(s->uframes[0].sym);
	assert_string_equal(s->uframes[0].src_note, "No DWARF information found");
	/* the one caller the unwinder only guessed, and no other */
	assert_true(s->uframes[0].fp_guess);
	assert_false(s->uframes[1].fp_guess || s->uframes[2].fp_guess || s->uframes[3].fp_guess);
	assert_string_equal(s->uframes[1].sym, "do_work");
	assert_string_equal(s->uframes[1].src[0].file, "main.c");
	assert_int_equal(s->uframes[1].src[0].line, 17);
	assert_string_equal(s->uframes[2].image.path, "/opt/u/libucfg.so");
	assert_string_equal(s->uframes[2].image.build_id, "a52e");
	assert_int_equal(s->uframes[2].image.file_off, 0x1132);
	assert_int_equal(s->uframes[3].as.kind, ADDR_SPACE_USER);
	assert_int_equal(s->uframes[3].as.pid, 42);
	assert_string_equal(s->uframes[3].sym, "__open64");
	sample__free(s);
}

static char *render(struct fixture *fx, bool stack_view, bool trace)
{
	struct sample *s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fx->b.view = (struct view_opts){ .stack = stack_view, .func_trace = trace };
	assert_int_equal(sample__build(&fx->r, &fx->b, &s), 0);
	assert_int_equal(stack_view ? render_stack(f, s, &fx->b.view) :
				      render_ustack(f, s, &fx->b.view), 0);
	sample__free(s);
	fclose(f);
	return buf;
}

/* The JSON line of @fx's sample, parsed */
static json_t *json_of(struct fixture *fx)
{
	struct json_sink_opts jo = { .sz = sizeof(jo) };
	struct sample *s;
	struct sink *sk;
	char *buf = NULL;
	size_t len = 0;
	json_t *o;

	jo.out = open_memstream(&buf, &len);
	sk = json_sink__new(&jo);
	assert_non_null(sk);
	assert_int_equal(sample__build(&fx->r, &fx->b, &s), 0);
	assert_int_equal(sink__sample(sk, s), 0);
	sample__free(s);
	sink__free(sk);
	fclose(jo.out);
	o = json_loads(buf, 0, NULL);
	free(buf);
	assert_non_null(o);
	return o;
}

static void test_stack_view(void **state)
{
	struct fixture fx;
	char *out;

	fake_note = "no caller found for userprog+0x1111: No DWARF information found";
	fixture_init(&fx, true);
	out = render(&fx, true, false);
	assert_string_equal(out,
"   [user stack incomplete: no caller found for userprog+0x1111: No DWARF information found]\n"
"?                   [userprog+0x1097]   (userprog: no lines: No DWARF information found)\n"
"                    do_work+0x10        (main.c:17:11)\n"
"                    open_config+0x10    (ucfg.c:9:11)\n"
"                    __open64+0x10       (libc.so.6: no lines: No DWARF information found)\n"
"   ------------- kernel --------------\n"
"                    0xffffffff81000100\n"
"!    0us [-ENOENT]  __x64_sys_openat\n");
	free(out);
	/* -T alone: the user frames only, as the trace's header */
	out = render(&fx, false, true);
	assert_non_null(strstr(out, "do_work+0x10"));
	assert_null(strstr(out, "kernel"));
	free(out);
	/* a dropped record */
	fixture_init(&fx, false);
	out = render(&fx, true, false);
	assert_int_equal(strncmp(out, "   [user stack: its record was dropped]\n   ---", 43), 0);
	free(out);
}

/*
 * A capture BPF took where the session ended late (its syscall returned unseen): the
 * frames shown, under a line that says they are the thread's later stack; JSON says so too
 */
static void test_taken_late(void **state)
{
	struct fixture fx;
	struct sample *s;
	char *out;
	json_t *o;

	(void)state;
	fake_note = NULL;
	fixture_init(&fx, true);
	fx.us.flags = USTACK_F_LATE;
	assert_int_equal(sample__build(&fx.r, &fx.b, &s), 0);
	assert_true(s->ustack_late);
	assert_int_equal(s->uframe_cnt, 4);
	sample__free(s);
	out = render(&fx, true, false);
	{
		const char *want =
"   [user stack taken after the call: its syscall returned unseen, the thread's stack when the session ended]\n"
"?                   [userprog+0x1097]";

		assert_int_equal(strncmp(out, want, strlen(want)), 0);
	}
	free(out);
	o = json_of(&fx);
	assert_true(json_is_true(json_object_get(json_object_get(o, "user_stack"), "taken_late")));
	json_decref(o);
	/* an ordinary capture: not said, no such field */
	fixture_init(&fx, true);
	assert_int_equal(sample__build(&fx.r, &fx.b, &s), 0);
	assert_false(s->ustack_late);
	sample__free(s);
	out = render(&fx, true, false);
	assert_null(strstr(out, "taken after the call"));
	free(out);
	o = json_of(&fx);
	assert_null(json_object_get(json_object_get(o, "user_stack"), "taken_late"));
	json_decref(o);
}

static void test_json(void **state)
{
	struct fixture fx;
	json_t *o, *us, *fr;

	fake_note = "stack at sp+0x2356 is beyond the 1040 bytes captured";
	fixture_init(&fx, true);
	o = json_of(&fx);
	us = json_object_get(o, "user_stack");
	assert_non_null(us);
	assert_true(json_is_false(json_object_get(us, "complete")));
	assert_true(json_is_false(json_object_get(us, "missing")));
	assert_string_equal(json_string_value(json_object_get(us, "note")), fake_note);
	assert_int_equal(json_array_size(json_object_get(us, "frames")), 4);
	fr = json_array_get(json_object_get(us, "frames"), 2);
	assert_string_equal(json_string_value(json_object_get(fr, "kind")), "user");
	assert_string_equal(json_string_value(json_object_get(fr, "symbol")), "open_config");
	assert_string_equal(json_string_value(json_object_get(json_object_get(fr, "image"), "path")),
			    "/opt/u/libucfg.so");
	assert_string_equal(json_string_value(json_object_get(json_object_get(fr, "image"),
							      "build_id")), "a52e");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(fr, "source"), "line")),
			 9);
	assert_null(json_object_get(fr, "frame_pointer_guess"));
	fr = json_array_get(json_object_get(us, "frames"), 0);
	assert_string_equal(json_string_value(json_object_get(fr, "source_missing")),
			    "No DWARF information found");
	assert_true(json_is_true(json_object_get(fr, "frame_pointer_guess")));
	json_decref(o);
}

/*
 * The "kernel" rule marks where user space ends: above the first kernel frame, so below
 * traced user-space functions too, and nowhere in a session of user functions only.
 */
static const struct func mixed_funcs[] = {
	{ .name = "do_work", .flags = FUNC_IS_ENTRY | FUNC_USER },
	{ .name = "__x64_sys_openat", .flags = FUNC_NEEDS_SIGN_EXT },
};

static void mixed_init(struct fixture *fx, int depth)
{
	fixture_init(fx, true);
	fx->b.funcs = mixed_funcs;
	fx->b.func_cnt = 2;
	fx->end.stack.max_depth = depth;
	fx->end.stack.func_ids[0] = 0;
	fx->end.stack.func_ids[1] = 1;
	fx->end.stack.func_res[0] = -1;
	fx->end.stack.func_res[1] = -2;
	if (depth == 1)
		fx->end.stack.kstack_sz = 0;	/* a user function's session: no kernel stack */
}

static void test_rule_at_user_kernel_boundary(void **state)
{
	struct fixture fx;
	struct sample *s;
	const char *rule, *traced, *kernel;
	char *out;

	fake_note = NULL;
	/* user function -> syscall: user stack, do_work, the rule, then the kernel's */
	mixed_init(&fx, 2);
	out = render(&fx, true, false);
	rule = strstr(out, " kernel ");
	traced = strstr(out, "do_work  ");
	kernel = strstr(out, "0xffffffff81000100");
	assert_non_null(rule);
	assert_non_null(traced);
	assert_non_null(kernel);
	assert_true(traced < rule && rule < kernel);
	assert_null(strstr(rule + 1, " kernel "));	/* one rule */
	free(out);
	/* the model behind it: do_work is a user function, the syscall frame is not */
	mixed_init(&fx, 2);
	assert_int_equal(sample__build(&fx.r, &fx.b, &s), 0);
	assert_true(s->frame_cnt >= 2);
	assert_true(sample__func(s, s->frames[0].func_id)->flags & FUNC_USER);
	sample__free(s);
	/* user functions only: the user stack flows into the traced frame, no rule */
	mixed_init(&fx, 1);
	out = render(&fx, true, false);
	assert_non_null(strstr(out, "do_work  "));
	assert_null(strstr(out, "kernel"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_stack_view),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_taken_late),
		cmocka_unit_test(test_rule_at_user_kernel_boundary),
	};

	return cmocka_run_group_tests_name("sample_ustack", tests, NULL, NULL);
}
