// SPDX-License-Identifier: BSD-2-Clause
/*
 * mass_attacher's planning, without a kernel: which mode a run ends up in, how each
 * function is attached (fentry, or kprobes where fentry can't), which fexit template
 * serves which function, and what the kernel must offer for each.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "unit.h"
#include "mass_attacher.h"
#include "records.h"

static char msgs[1024];

static void log_to_buf(int level, const char *fmt, va_list args)
{
	size_t n = strlen(msgs);

	vsnprintf(msgs + n, sizeof(msgs) - n, fmt, args);
}

static const struct func funcs[] = {
	{ .name = "__x64_sys_bpf", .btf_id = 10, .arg_cnt = 1, .flags = FUNC_IS_ENTRY },
	{ .name = "__sys_bpf", .btf_id = 11, .arg_cnt = 3, .kprobe_fallback = true,
	  .fentry_why = "a parameter is not an integer, enum or pointer" },
	{ .name = "array_map_alloc_check", .btf_id = 12, .arg_cnt = 1,
	  .flags = FUNC_NEEDS_SIGN_EXT },
	{ .name = "bpf_map_free", .btf_id = 13, .arg_cnt = 1,
	  .flags = FUNC_RET_VOID | FUNC_CANT_FAIL },
	{ .name = "array_map_helper.isra.0" },			/* no BTF */
	{ .name = "array_map_update_elem", .btf_id = 14, .arg_cnt = 4 },
};

#define FUNC_CNT (sizeof(funcs) / sizeof(funcs[0]))

static struct mass_attacher *plan(enum attach_mode mode, bool multi, bool cookies,
				  bool func_ip, int kret_off, int want_err)
{
	struct mass_attacher_progs progs = {};
	struct mass_attacher_opts o = {
		.sz = sizeof(o), .mode = mode, .print = log_to_buf, .has_kprobe_multi = multi,
		.has_cookies = cookies, .has_func_ip = func_ip, .has_fentry = true,
		.kret_ip_off = kret_off,
	};
	struct mass_attacher *att = mass_attacher__new(&progs, funcs, FUNC_CNT, &o);

	assert_non_null(att);
	msgs[0] = '\0';
	assert_int_equal(mass_attacher__plan(att), want_err);
	return att;
}

static void test_auto_mode(void **state)
{
	struct mass_attacher *att = plan(ATTACH_AUTO, true, true, true, 5, 0);
	size_t i;

	assert_int_equal(mass_attacher__mode(att), ATTACH_KPROBE_MULTI);
	for (i = 0; i < FUNC_CNT; i++)
		assert_int_equal(mass_attacher__func_attach(att, i), FUNC_ATTACH_KPROBE_MULTI);
	assert_true(mass_attacher__uses_cookies(att));
	assert_int_equal(mass_attacher__ip_slots(att), 0);	/* ids from cookies */
	mass_attacher__free(att);

	/* 6.1: no kprobe.multi, single kprobes */
	att = plan(ATTACH_AUTO, false, true, true, 5, 0);
	assert_int_equal(mass_attacher__mode(att), ATTACH_KPROBE_SINGLE);
	assert_int_equal(mass_attacher__func_attach(att, 0), FUNC_ATTACH_KPROBE);
	mass_attacher__free(att);

	/* 5.10: no cookies, no bpf_get_func_ip(): kretprobes name functions by calibration */
	att = plan(ATTACH_AUTO, false, false, false, 5, 0);
	assert_false(mass_attacher__uses_cookies(att));
	assert_int_equal(mass_attacher__ip_slots(att), FUNC_CNT);
	mass_attacher__free(att);
	att = plan(ATTACH_AUTO, false, false, false, 0, -EOPNOTSUPP);
	assert_non_null(strstr(msgs, "Kprobes can't tell which function"));
	mass_attacher__free(att);
}

static void test_forced_modes(void **state)
{
	struct mass_attacher *att = plan(ATTACH_KPROBE_MULTI, false, true, true, 5, -EOPNOTSUPP);

	assert_non_null(strstr(msgs, "no kprobe.multi links"));
	assert_null(strstr(msgs, "-M"));	/* flags are main's to name */
	mass_attacher__free(att);
	att = plan(ATTACH_KPROBE_SINGLE, true, true, true, 5, 0);
	assert_int_equal(mass_attacher__func_attach(att, 2), FUNC_ATTACH_KPROBE);
	mass_attacher__free(att);
	att = plan(ATTACH_FENTRY, true, true, false, 5, -EOPNOTSUPP);
	assert_non_null(strstr(msgs, "bpf_get_func_ip()"));
	mass_attacher__free(att);
}

/* -F: what fentry can't attach is traced with kprobes (multi where the kernel has them). */
static void test_fentry_mixed(void **state)
{
	struct mass_attacher *att = plan(ATTACH_FENTRY, true, true, true, 5, 0);

	assert_int_equal(mass_attacher__mode(att), ATTACH_FENTRY);
	assert_int_equal(mass_attacher__func_attach(att, 0), FUNC_ATTACH_FENTRY);
	assert_int_equal(mass_attacher__func_attach(att, 1), FUNC_ATTACH_KPROBE_MULTI);
	assert_int_equal(mass_attacher__func_attach(att, 2), FUNC_ATTACH_FENTRY);
	assert_int_equal(mass_attacher__func_attach(att, 4), FUNC_ATTACH_KPROBE_MULTI);
	assert_int_equal(mass_attacher__fallback_cnt(att), 2);
	/* templates: fexit by argument count, void apart */
	assert_int_equal(mass_attacher__fexit_slot(att, 0), 1);
	assert_int_equal(mass_attacher__fexit_slot(att, 3), MA_FEXIT_TMPLS);
	assert_int_equal(mass_attacher__fexit_tmpl_func(att, 1), 0);	/* first 1-arg non-void */
	assert_int_equal(mass_attacher__fexit_tmpl_func(att, MA_FEXIT_TMPLS), 3);
	assert_int_equal(mass_attacher__fexit_tmpl_func(att, 4), 5);
	assert_int_equal(mass_attacher__fexit_tmpl_func(att, 3), -1);	/* __sys_bpf: kprobes */
	/* fentry/fexit programs carry their id, the kprobe ones come by cookie */
	assert_int_equal(mass_attacher__ip_slots(att), 0);
	mass_attacher__free(att);

	/* 6.1: no kprobe.multi, single kprobes for the rest */
	att = plan(ATTACH_FENTRY, false, true, true, 5, 0);
	assert_int_equal(mass_attacher__func_attach(att, 1), FUNC_ATTACH_KPROBE);
	mass_attacher__free(att);
}

/* kprobe.multi with one session link where the kernel has them (a kfunc id) and progs do. */
static struct mass_attacher *plan_session(enum attach_mode mode, bool multi, __u32 kfunc_id,
					  bool has_prog)
{
	static int prog_stub;
	struct mass_attacher_progs progs = {
		.ksession = has_prog ? (struct bpf_program *)&prog_stub : NULL,
	};
	struct mass_attacher_opts o = {
		.sz = sizeof(o), .mode = mode, .print = log_to_buf, .has_kprobe_multi = multi,
		.has_cookies = true, .has_func_ip = true, .has_fentry = true,
		.session_kfunc_id = kfunc_id,
	};
	struct mass_attacher *att = mass_attacher__new(&progs, funcs, FUNC_CNT, &o);

	assert_non_null(att);
	assert_int_equal(mass_attacher__plan(att), 0);
	return att;
}

static void test_kprobe_session(void **state)
{
	struct mass_attacher *att = plan_session(ATTACH_AUTO, true, 30057, true);

	assert_true(mass_attacher__kprobe_multi_used(att));
	assert_true(mass_attacher__kprobe_session_used(att));
	mass_attacher__free(att);
	/* -F: the kprobe fallbacks go to one session link too */
	att = plan_session(ATTACH_FENTRY, true, 30057, true);
	assert_true(mass_attacher__kprobe_session_used(att));
	mass_attacher__free(att);
	/* no session kfunc (older kernel, or -C bpf.kprobe-session=n): the pair */
	att = plan_session(ATTACH_KPROBE_MULTI, true, 0, true);
	assert_true(mass_attacher__kprobe_multi_used(att));
	assert_false(mass_attacher__kprobe_session_used(att));
	mass_attacher__free(att);
	/* the caller has no session program */
	att = plan_session(ATTACH_AUTO, true, 30057, false);
	assert_false(mass_attacher__kprobe_session_used(att));
	mass_attacher__free(att);
	/* -K and 6.1's single kprobes never use them */
	att = plan_session(ATTACH_KPROBE_SINGLE, true, 30057, true);
	assert_false(mass_attacher__kprobe_session_used(att));
	mass_attacher__free(att);
	att = plan_session(ATTACH_AUTO, false, 30057, true);
	assert_false(mass_attacher__kprobe_session_used(att));
	mass_attacher__free(att);
}

/*
 * -F with fsession programs where the kernel has them (7.0+): one per function, or (@multi,
 * with @multi_prog) one for vmlinux's functions on a tracing multi-link.
 */
static struct mass_attacher *plan_fsession_in(const struct func *fs, size_t cnt,
					      enum attach_mode mode, __u32 kfunc_id,
					      bool has_prog, bool multi, bool multi_prog)
{
	static int prog_stub[3];
	struct mass_attacher_progs progs = {
		.fsession = has_prog ? (struct bpf_program *)&prog_stub[0] : NULL,
		.fsession_void = has_prog ? (struct bpf_program *)&prog_stub[1] : NULL,
		.fsession_multi = multi_prog ? (struct bpf_program *)&prog_stub[2] : NULL,
	};
	struct mass_attacher_opts o = {
		.sz = sizeof(o), .mode = mode, .print = log_to_buf, .has_kprobe_multi = true,
		.has_cookies = true, .has_func_ip = true, .has_fentry = true,
		.fsession_kfunc_id = kfunc_id, .fsession_multi = multi,
	};
	struct mass_attacher *att = mass_attacher__new(&progs, fs, cnt, &o);

	assert_non_null(att);
	assert_int_equal(mass_attacher__plan(att), 0);
	return att;
}

static struct mass_attacher *plan_fsession(enum attach_mode mode, __u32 kfunc_id, bool has_prog)
{
	return plan_fsession_in(funcs, FUNC_CNT, mode, kfunc_id, has_prog, false, true);
}

static void test_fsession(void **state)
{
	struct mass_attacher *att = plan_fsession(ATTACH_FENTRY, 30057, true);
	int slot;

	assert_true(mass_attacher__fsession_used(att));
	/* the same functions as the pair would take, the rest still by kprobes */
	assert_int_equal(mass_attacher__func_attach(att, 0), FUNC_ATTACH_FENTRY);
	assert_int_equal(mass_attacher__func_attach(att, 1), FUNC_ATTACH_KPROBE_MULTI);
	assert_int_equal(mass_attacher__fallback_cnt(att), 2);
	/* no fentry/fexit template is loaded for any function */
	for (slot = 0; slot <= MA_FEXIT_TMPLS; slot++)
		assert_int_equal(mass_attacher__fexit_tmpl_func(att, slot), -1);
	mass_attacher__free(att);
	/* no kfunc id (older kernel, or -C bpf.fsession=n), or no program: the pair */
	att = plan_fsession(ATTACH_FENTRY, 0, true);
	assert_false(mass_attacher__fsession_used(att));
	assert_int_equal(mass_attacher__fexit_tmpl_func(att, 1), 0);
	mass_attacher__free(att);
	att = plan_fsession(ATTACH_FENTRY, 30057, false);
	assert_false(mass_attacher__fsession_used(att));
	mass_attacher__free(att);
	/* only -F */
	att = plan_fsession(ATTACH_KPROBE_MULTI, 30057, true);
	assert_false(mass_attacher__fsession_used(att));
	mass_attacher__free(att);
}

/* every fentry function goes on a multi-link (vmlinux's, or its module's) */
static void test_fsession_multi(void **state)
{
	static const struct func mixed[] = {
		{ .name = "__x64_sys_mount", .btf_id = 20, .arg_cnt = 5 },
		{ .name = "path_put", .btf_id = 21, .arg_cnt = 1, .flags = FUNC_RET_VOID },
		{ .name = "ext4_fill_super", .module = "ext4", .btf_id = 70001, .arg_cnt = 2 },
		{ .name = "do_new_mount.isra.0" },		/* no BTF: a kprobe */
		{ .name = "vfs_get_tree", .btf_id = 22, .arg_cnt = 1 },
	};
	static const struct {
		enum attach_mode mode;
		__u32 kfunc_id;
		bool multi, multi_prog, fsession;
	} none[] = {
		{ ATTACH_FENTRY, 30057, false, true, true },
		{ ATTACH_FENTRY, 30057, true, false, true },
		{ ATTACH_FENTRY, 0, true, true, false },
		{ ATTACH_KPROBE_MULTI, 30057, true, true, false },
	};
	size_t n = sizeof(mixed) / sizeof(mixed[0]), i;
	struct mass_attacher *att;

	att = plan_fsession_in(mixed, n, ATTACH_FENTRY, 30057, true, true, true);
	assert_true(mass_attacher__fsession_used(att));
	assert_int_equal(mass_attacher__fsession_multi_cnt(att), 4);
	assert_int_equal(mass_attacher__func_attach(att, 2), FUNC_ATTACH_FENTRY);
	assert_int_equal(mass_attacher__func_attach(att, 3), FUNC_ATTACH_KPROBE_MULTI);
	assert_int_equal(mass_attacher__fallback_cnt(att), 1);
	mass_attacher__free(att);
	/* -C bpf.fsession-multi=n (or a kernel without them), no program, no fsession, no -F */
	for (i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		att = plan_fsession_in(mixed, n, none[i].mode, none[i].kfunc_id, true,
				       none[i].multi, none[i].multi_prog);
		assert_int_equal(mass_attacher__fsession_used(att), none[i].fsession);
		assert_int_equal(mass_attacher__fsession_multi_cnt(att), 0);
		mass_attacher__free(att);
	}
}

/*
 * The one multi-link program of vmlinux's functions may leave its recursion to the kernel:
 * not with a module's clone of it, a clone per function or an injected probe beside it
 * (they all share the guard); the kprobe fallbacks never took it.
 */
static void test_sole_tracing_prog(void **state)
{
	static const struct func vml[] = {
		{ .name = "__x64_sys_mount", .btf_id = 20, .arg_cnt = 5 },
		{ .name = "path_put", .btf_id = 21, .arg_cnt = 1, .flags = FUNC_RET_VOID },
		{ .name = "do_new_mount.isra.0" },		/* no BTF: a kprobe */
	};
	static const struct func with_mod[] = {
		{ .name = "__x64_sys_mount", .btf_id = 20, .arg_cnt = 5 },
		{ .name = "ext4_fill_super", .module = "ext4", .btf_id = 70001, .arg_cnt = 2 },
	};
	static int prog_stub[4];
	struct mass_attacher_progs progs = {
		.fsession = (struct bpf_program *)&prog_stub[0],
		.fsession_void = (struct bpf_program *)&prog_stub[1],
		.fsession_multi = (struct bpf_program *)&prog_stub[2],
		.inject = { [PROBE_KPROBE] = (struct bpf_program *)&prog_stub[3] },
	};
	struct mass_attacher_opts o = {
		.sz = sizeof(o), .mode = ATTACH_FENTRY, .print = log_to_buf,
		.has_kprobe_multi = true, .has_cookies = true, .has_func_ip = true,
		.has_fentry = true, .fsession_kfunc_id = 30057, .fsession_multi = true,
	};
	struct probe_spec spec = { .kind = PROBE_KPROBE, .spec = "kprobe:do_mount",
				   .name = "do_mount", .display = "kprobe:do_mount" };
	struct mass_attacher *att;

	att = plan_fsession_in(vml, 3, ATTACH_FENTRY, 30057, true, true, true);
	assert_int_equal(mass_attacher__fsession_multi_cnt(att), 2);
	assert_int_equal(mass_attacher__fallback_cnt(att), 1);
	assert_true(mass_attacher__sole_tracing_prog(att));
	mass_attacher__free(att);
	/* a module's function: its module's clone runs beside vmlinux's program */
	att = plan_fsession_in(with_mod, 2, ATTACH_FENTRY, 30057, true, true, true);
	assert_int_equal(mass_attacher__fsession_multi_cnt(att), 2);
	assert_false(mass_attacher__sole_tracing_prog(att));
	mass_attacher__free(att);
	/* an fsession program a function (no multi-links), or the pair */
	att = plan_fsession_in(vml, 3, ATTACH_FENTRY, 30057, true, false, true);
	assert_false(mass_attacher__sole_tracing_prog(att));
	mass_attacher__free(att);
	att = plan_fsession_in(vml, 3, ATTACH_FENTRY, 0, true, true, true);
	assert_false(mass_attacher__sole_tracing_prog(att));
	mass_attacher__free(att);
	/* no fentry at all (kprobes only): nothing takes the guard, nothing to say */
	att = plan_fsession_in(vml, 3, ATTACH_KPROBE_MULTI, 30057, true, true, true);
	assert_false(mass_attacher__sole_tracing_prog(att));
	mass_attacher__free(att);
	/* an injected probe's program takes the guard too */
	att = mass_attacher__new(&progs, vml, 3, &o);
	assert_non_null(att);
	assert_int_equal(mass_attacher__add_inject(att, &spec, 0), 0);
	assert_int_equal(mass_attacher__plan(att), 0);
	assert_int_equal(mass_attacher__fsession_multi_cnt(att), 2);
	assert_false(mass_attacher__sole_tracing_prog(att));
	mass_attacher__free(att);
}

static void test_no_functions(void **state)
{
	struct mass_attacher_progs progs = {};
	struct mass_attacher_opts o = { .sz = sizeof(o), .print = log_to_buf };
	struct mass_attacher *att = mass_attacher__new(&progs, NULL, 0, &o);

	msgs[0] = '\0';
	assert_int_equal(mass_attacher__plan(att), -ENOENT);
	assert_non_null(strstr(msgs, "No matching functions found."));
	mass_attacher__free(att);
	/* an opts struct too short to hold even its size is refused */
	o.sz = 1;
	assert_null(mass_attacher__new(&progs, funcs, FUNC_CNT, &o));
	assert_int_equal(errno, EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_auto_mode),
		cmocka_unit_test(test_forced_modes),
		cmocka_unit_test(test_fentry_mixed),
		cmocka_unit_test(test_kprobe_session),
		cmocka_unit_test(test_fsession),
		cmocka_unit_test(test_fsession_multi),
		cmocka_unit_test(test_sole_tracing_prog),
		cmocka_unit_test(test_no_functions),
	};

	return cmocka_run_group_tests_name("mass_attacher", tests, NULL, NULL);
}
