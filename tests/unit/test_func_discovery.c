// SPDX-License-Identifier: BSD-2-Clause
/*
 * The discovery pipeline over fixture kallsyms and available_filter_functions, with vmlinux
 * and module BTF built here (module BTF written out as split raw BTF, like /sys/kernel/btf).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "unit.h"
#include "btf_funcs.h"
#include "func_discovery.h"
#include "func_discovery_int.h"
#include "func_types.h"
#include "records.h"

static struct btf *vmlinux_btf;
static char mod_dir[] = "/tmp/retsnoop-modbtf-XXXXXX";
static char kallsyms_path[512], aff_path[512];

static char msgs[16384];
static size_t msgs_len;

static void capture_print(int level, const char *fmt, va_list args)
{
	int n;

	if (msgs_len >= sizeof(msgs) - 1)
		return;
	n = snprintf(msgs + msgs_len, sizeof(msgs) - msgs_len, "%d:", level);
	msgs_len += n;
	if (msgs_len >= sizeof(msgs) - 1)
		return;
	n = vsnprintf(msgs + msgs_len, sizeof(msgs) - msgs_len, fmt, args);
	msgs_len += n;
	if (msgs_len > sizeof(msgs) - 1)
		msgs_len = sizeof(msgs) - 1;
}

/* Type ids shared by vmlinux and module BTF. */
static int t_int, t_long, t_char, t_void_ptr, t_regs_ptr, t_char_ptr, t_bpfptr;

static int add_func(struct btf *btf, const char *name, int ret, int nargs, const int *args)
{
	int proto, i;

	proto = btf__add_func_proto(btf, ret);
	for (i = 0; i < nargs; i++)
		btf__add_func_param(btf, "a", args[i]);
	return btf__add_func(btf, name, BTF_FUNC_GLOBAL, proto);
}

static int write_module_btf(const char *mod, void (*fill)(struct btf *btf))
{
	struct btf *btf = btf__new_empty_split(vmlinux_btf);
	const void *data;
	char path[600];
	__u32 sz;
	FILE *f;
	int ok;

	if (!btf)
		return -1;
	fill(btf);
	data = btf__raw_data(btf, &sz);
	snprintf(path, sizeof(path), "%s/%s", mod_dir, mod);
	f = fopen(path, "w");
	ok = f && data && fwrite(data, 1, sz, f) == sz;
	if (f)
		fclose(f);
	btf__free(btf);
	return ok ? 0 : -1;
}

static void fill_kvm(struct btf *btf)
{
	int args[] = { t_void_ptr, t_long, t_void_ptr, t_long };

	add_func(btf, "kvm_read_guest", t_int, 4, args);
}

static void fill_mymod(struct btf *btf)
{
	int args[] = { t_int };

	add_func(btf, "array_map_mod_fn", t_char_ptr, 1, args);	/* char *: no fentry */
	add_func(btf, "common_name", t_int, 1, args);
	add_func(btf, "mod_only_btf", t_int, 1, args);
}

static int setup(void **state)
{
	int regs, bpfptr_s, a1[1], a2[2], a7[7];
	struct btf *b;
	int i;

	snprintf(kallsyms_path, sizeof(kallsyms_path), "%s/discovery/kallsyms", fixtures_dir());
	snprintf(aff_path, sizeof(aff_path), "%s/discovery/available_filter_functions",
		 fixtures_dir());
	if (!mkdtemp(mod_dir))
		return -1;

	b = vmlinux_btf = btf__new_empty();
	if (!b)
		return -1;
	t_int = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	t_long = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	t_char = btf__add_int(b, "char", 1, BTF_INT_CHAR);
	regs = btf__add_struct(b, "pt_regs", 8);
	t_regs_ptr = btf__add_ptr(b, btf__add_const(b, regs));
	t_void_ptr = btf__add_ptr(b, 0);
	t_char_ptr = btf__add_ptr(b, t_char);
	bpfptr_s = btf__add_struct(b, "bpfptr", 16);
	t_bpfptr = btf__add_typedef(b, "bpfptr_t", bpfptr_s);

	a1[0] = t_regs_ptr;
	add_func(b, "__x64_sys_bpf", t_long, 1, a1);
	a2[0] = t_int;
	a2[1] = t_bpfptr;				/* struct by value: no fentry */
	add_func(b, "__sys_bpf", t_int, 2, a2);
	a1[0] = t_void_ptr;
	add_func(b, "array_map_alloc_check", t_int, 1, a1);
	a2[0] = t_void_ptr;
	a2[1] = t_void_ptr;
	add_func(b, "array_map_lookup_elem", t_void_ptr, 2, a2);
	add_func(b, "array_map_free", 0, 1, a1);
	add_func(b, "array_map_free", t_int, 0, NULL);	/* second BTF instance: ignored */
	a1[0] = t_int;
	add_func(b, "dup_static", t_int, 1, a1);
	add_func(b, "mismatch_fn", t_int, 1, a1);
	add_func(b, "rcu_read_lock_held", t_int, 0, NULL);
	add_func(b, "notrace_fn", t_int, 0, NULL);
	a2[0] = t_int;
	a2[1] = 0;					/* "...": variadic */
	add_func(b, "array_map_varargs", t_int, 2, a2);
	add_func(b, "vfs_read", t_long, 0, NULL);
	add_func(b, "common_name", t_int, 0, NULL);
	for (i = 0; i < 7; i++)
		a7[i] = t_long;
	add_func(b, "too_many_args", t_int, 7, a7);

	if (write_module_btf("kvm", fill_kvm) || write_module_btf("mymod", fill_mymod))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/kvm", mod_dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/mymod", mod_dir);
	unlink(path);
	rmdir(mod_dir);
	btf__free(vmlinux_btf);
	return 0;
}

/* Set: discovery reads the vmlinux BTF's digest, and the BTF itself only from this file. */
static const struct btf_funcs *use_digest;
static char vmlinux_path[600];
static bool no_deny_counts;
static bool no_unattachable;

/* Globs as "e:GLOB", "a:GLOB" or "d:GLOB". */
static int discover(bool fentry, size_t max, const char *const *globs, struct func_discovery **out)
{
	LIBBPF_OPTS(func_discovery_opts, opts,
		.fentry = fentry,
		.max_func_cnt = max,
		.kallsyms_path = kallsyms_path,
		.aff_path = aff_path,
		.module_btf_dir = mod_dir,
		.vmlinux_btf = vmlinux_btf,
		.print = capture_print,
	);
	struct func_discovery *d;
	int err;

	opts.no_deny_counts = no_deny_counts;
	opts.no_unattachable = no_unattachable;
	if (use_digest) {
		opts.vmlinux_btf = NULL;
		opts.btf_funcs = use_digest;
		opts.vmlinux_btf_path = vmlinux_path;
	}
	msgs_len = 0;
	msgs[0] = '\0';
	d = func_discovery__new(&opts);
	assert_non_null(d);
	for (; *globs; globs++) {
		enum func_glob_role role = (*globs)[0] == 'e' ? FUNC_GLOB_ENTRY :
					   (*globs)[0] == 'a' ? FUNC_GLOB_ALLOW : FUNC_GLOB_DENY;
		struct glob_spec spec;

		assert_int_equal(glob_spec__parse(*globs + 2, &spec), 0);
		spec.mandatory = role == FUNC_GLOB_ENTRY;
		err = func_discovery__add_glob(d, role, &spec);
		glob_spec__free(&spec);
		assert_int_equal(err, 0);
	}
	err = func_discovery__run(d);
	*out = d;
	return err;
}

static const char *func_str(const struct func *f, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s%s%s%s@%llx%s%s%s", f->name, f->module ? "[" : "", f->module ?: "",
		 f->module ? "]" : "", (unsigned long long)f->addr, f->btf_id ? "+btf" : "",
		 f->flags & FUNC_IS_ENTRY ? "+entry" : "", f->kprobe_fallback ? "+kprobe" : "");
	return buf;
}

static void assert_funcs(const struct func_discovery *d, const char *const *want)
{
	size_t i, n = func_discovery__func_cnt(d);
	char buf[256];

	for (i = 0; i < n && want[i]; i++)
		assert_string_equal(func_str((&func_discovery__funcs(d)[i]), buf, sizeof(buf)), want[i]);
	for (; want[i]; i++)
		;
	assert_int_equal(n, i);
}

static void assert_msg(const char *needle)
{
	if (!strstr(msgs, needle))
		fail_msg("message '%s' not printed; got:\n%s", needle, msgs);
}

static const char *const bpf_globs[] = {
	"e:*sys_bpf", "a:array_map_*", "a:dup_static", "a:mismatch_fn", "a:rcu_read_*",
	"a:notrace_fn", "a:only_in_aff", "a:kvm_*", "a:vfs_*", NULL,
};

static void test_kprobe_pipeline(void **state)
{
	static const char *const want[] = {
		/* vmlinux BTF, in BTF id order */
		"__x64_sys_bpf@ffffffff81001000+btf+entry",
		"__sys_bpf@ffffffff81001100+btf+entry",
		"array_map_alloc_check@ffffffff81001400+btf",
		"array_map_lookup_elem@ffffffff81001500+btf",
		"array_map_free@ffffffff81001600+btf",
		"dup_static@ffffffff81001700+btf",	/* listed twice, two kallsyms instances */
		"dup_static@ffffffff81001800+btf",
		"array_map_varargs@ffffffff81001f00+btf",
		"vfs_read@ffffffff81002000+btf",
		/* module BTF, modules by name */
		"kvm_read_guest[kvm]@ffffffffc0001000+btf",
		"array_map_mod_fn[mymod]@ffffffffc0001100+btf",
		/* no BTF: compiler clone, module without BTF */
		"array_map_helper.isra.0@ffffffff81001c00",
		"array_map_nobtf[nobtfmod]@ffffffffc0002000",
		NULL,
	};
	const struct func_discovery_stats *st;
	struct func_discovery *d;
	const struct func *f;

	assert_int_equal(discover(false, 0, bpf_globs, &d), 0);
	assert_funcs(d, want);

	st = func_discovery__stats(d);
	assert_int_equal(st->aff_cnt, 18);
	/* rcu_read_lock_held (built-in deny), common_name x2 (no glob) */
	assert_int_equal(st->filtered_cnt, 15);
	assert_int_equal(st->unique_cnt, 14);
	assert_int_equal(st->found_cnt, 13);
	/* 3 glob rejects + notrace_fn + mismatch_fn + only_in_aff */
	assert_int_equal(st->skipped_cnt, 6);

	assert_msg("1:Discovered 18 available kprobes, filtered down to 15, and compacted to 14 unique names!\n");
	assert_msg("1:Loaded BTF for [vmlinux].\n");
	assert_msg("1:Function 'notrace_fn' is not an attachable kprobe, skipping.\n");
	assert_msg("1:Function 'mismatch_fn' has mismatched 2 ksyms vs 1 attachable kprobe entries, skipping.\n");
	/* at the default verbosity, one summary line whatever the count (issue 23 item 6) */
	assert_int_equal(st->mismatch_cnt, 1);
	assert_msg("0:Note: skipped 1 functions listed a different number of times in kallsyms and in available_filter_functions (which address is which can't be told; -v names them).\n");
	assert_msg("1:Loaded BTF for module [kvm].\n");
	assert_msg("1:Loaded BTF for module [mymod].\n");
	assert_msg("1:Failed to load BTF for module [nobtfmod]: -2\n");
	assert_msg("3:Function 'only_in_aff' not found in /proc/kallsyms, skipping.\n");
	assert_msg("1:Found 13 attachable functions in total.\n");
	assert_msg("1:Skipped 6 functions in total.\n");
	assert_msg("2:Entry glob '*sys_bpf' matched 2 functions.\n");
	assert_msg("2:Allow glob 'array_map_*' matched 7 functions.\n");
	assert_msg("3:Deny glob 'rcu_read_lock*' matched 1 functions.\n");
	/* BTF-less functions not in the fixture BTF never get the "not attachable" line */
	assert_null(strstr(msgs, "'mod_only_btf'"));

	f = (&func_discovery__funcs(d)[10]);
	assert_string_equal(btf__name_by_offset(f->btf, btf__type_by_id(f->btf, f->btf_id)->name_off),
			    "array_map_mod_fn");
	assert_int_equal(f->size, 0x80);
	assert_ptr_equal(func_discovery__vmlinux_btf(d), vmlinux_btf);
	func_discovery__free(d);
}

static void test_fentry_pipeline(void **state)
{
	/* -F loses nothing: what fentry/fexit can't attach is marked for kprobes */
	static const char *const want[] = {
		"__x64_sys_bpf@ffffffff81001000+btf+entry",
		"__sys_bpf@ffffffff81001100+btf+entry+kprobe",
		"array_map_alloc_check@ffffffff81001400+btf",
		"array_map_lookup_elem@ffffffff81001500+btf",
		"array_map_free@ffffffff81001600+btf",
		"dup_static@ffffffff81001700+btf+kprobe",
		"dup_static@ffffffff81001800+btf+kprobe",
		"array_map_varargs@ffffffff81001f00+btf+kprobe",
		"vfs_read@ffffffff81002000+btf",
		"kvm_read_guest[kvm]@ffffffffc0001000+btf",
		"array_map_mod_fn[mymod]@ffffffffc0001100+btf+kprobe",
		"array_map_helper.isra.0@ffffffff81001c00+kprobe",
		"array_map_nobtf[nobtfmod]@ffffffffc0002000+kprobe",
		NULL,
	};
	struct func_discovery *d;

	assert_int_equal(discover(true, 0, bpf_globs, &d), 0);
	assert_funcs(d, want);
	assert_int_equal(func_discovery__stats(d)->fallback_cnt, 7);
	assert_string_equal(func_discovery__funcs(d)[1].fentry_why,
			    "a parameter is not an integer, enum or pointer");
	assert_msg("1:Function '__sys_bpf' can't be traced with fentry/fexit (a parameter is not an integer, enum or pointer); a kprobe pair traces it instead.\n");
	assert_msg("1:Function 'array_map_varargs' can't be traced with fentry/fexit (variadic); a kprobe pair traces it instead.\n");
	assert_msg("1:Function 'array_map_mod_fn' can't be traced with fentry/fexit (unsupported return type); a kprobe pair traces it instead.\n");
	assert_msg("1:Function 'dup_static' can't be traced with fentry/fexit (several functions of this name (fentry attaches by name)); a kprobe pair traces it instead.\n");
	assert_msg("1:Function 'array_map_helper.isra.0' can't be traced with fentry/fexit (no BTF); a kprobe pair traces it instead.\n");
	func_discovery__free(d);
}

static void test_deny_wins(void **state)
{
	static const char *const globs[] = {
		"e:*sys_bpf", "a:array_map_*", "d:array_map_free", "d:* [mymod]", "d:*.isra.*",
		NULL,
	};
	static const char *const want[] = {
		"__x64_sys_bpf@ffffffff81001000+btf+entry",
		"__sys_bpf@ffffffff81001100+btf+entry",
		"array_map_alloc_check@ffffffff81001400+btf",
		"array_map_lookup_elem@ffffffff81001500+btf",
		"array_map_varargs@ffffffff81001f00+btf",
		"array_map_nobtf[nobtfmod]@ffffffffc0002000",
		NULL,
	};
	struct func_discovery *d;

	assert_int_equal(discover(false, 0, globs, &d), 0);
	assert_funcs(d, want);
	func_discovery__free(d);
}

static void test_entry_beats_allow(void **state)
{
	static const char *const globs[] = { "a:array_map_*", "e:array_map_free", NULL };
	struct func_discovery *d;
	size_t i, entries = 0;

	assert_int_equal(discover(false, 0, globs, &d), 0);
	assert_int_equal(func_discovery__func_cnt(d), 7);
	for (i = 0; i < func_discovery__func_cnt(d); i++) {
		const struct func *f = (&func_discovery__funcs(d)[i]);

		if (f->flags & FUNC_IS_ENTRY) {
			entries++;
			assert_string_equal(f->name, "array_map_free");
		}
	}
	assert_int_equal(entries, 1);
	func_discovery__free(d);
}

/* FUNC_SYSCALL marks the syscall entry wrapper only, not __sys_bpf (an entry here too) */
static void test_syscall_flag(void **state)
{
	struct func_discovery *d;
	size_t i, syscalls = 0;

	assert_int_equal(discover(false, 0, bpf_globs, &d), 0);
	for (i = 0; i < func_discovery__func_cnt(d); i++) {
		const struct func *f = (&func_discovery__funcs(d)[i]);

		if (f->flags & FUNC_SYSCALL) {
			syscalls++;
			assert_string_equal(f->name, "__x64_sys_bpf");
			assert_true(f->flags & FUNC_IS_ENTRY);
		}
	}
#if defined(__aarch64__)
	assert_int_equal(syscalls, 0);	/* the fixture is x86-64's */
#else
	assert_int_equal(syscalls, 1);
#endif
	func_discovery__free(d);
}

static void test_module_globs(void **state)
{
	static const char *const kvm[] = { "e:* [kvm]", NULL };
	static const char *const common[] = { "e:common_name", NULL };
	static const char *const common_mod[] = { "e:common_name [my*]", NULL };
	static const char *const want_kvm[] = { "kvm_read_guest[kvm]@ffffffffc0001000+btf+entry", NULL };
	/* no module glob: vmlinux and modules alike */
	static const char *const want_common[] = {
		"common_name@ffffffff81002100+btf+entry",
		"common_name[mymod]@ffffffffc0001180+btf+entry",
		NULL,
	};
	static const char *const want_common_mod[] = {
		"common_name[mymod]@ffffffffc0001180+btf+entry", NULL,
	};
	struct func_discovery *d;

	assert_int_equal(discover(false, 0, kvm, &d), 0);
	assert_funcs(d, want_kvm);
	func_discovery__free(d);
	assert_int_equal(discover(false, 0, common, &d), 0);
	assert_funcs(d, want_common);
	func_discovery__free(d);
	assert_int_equal(discover(false, 0, common_mod, &d), 0);
	assert_funcs(d, want_common_mod);
	func_discovery__free(d);
}

static void test_builtin_deny(void **state)
{
	static const char *const globs[] = { "e:rcu_read_lock_held", NULL };
	struct func_discovery *d;

	/* explicitly asked for, still denied: nothing left */
	assert_int_equal(discover(false, 0, globs, &d), -ENOENT);
	assert_msg("-1:No matching functions found.\n");
	assert_false(func_discovery__is_allowed(d, "rcu_read_lock_held", NULL));
	assert_false(func_discovery__is_allowed(d, "__bpf_prog_enter_recur", NULL));
	assert_false(func_discovery__is_allowed(d, "preempt_count_add", "somemod"));
	assert_false(func_discovery__is_allowed(d, "vfs_read", NULL));	/* matches no allow glob */
	func_discovery__free(d);
}

static void test_sleepable_deny(void **state)
{
	LIBBPF_OPTS(func_discovery_opts, opts, .deny_sleepable = true);
	struct func_discovery *d = func_discovery__new(&opts), *d2 = func_discovery__new(NULL);
	struct glob_spec all = { .name = (char *)"*", .kind = GLOB_NAME };

	assert_int_equal(func_discovery__add_glob(d, FUNC_GLOB_ALLOW, &all), 0);
	assert_int_equal(func_discovery__add_glob(d2, FUNC_GLOB_ALLOW, &all), 0);
	assert_false(func_discovery__is_allowed(d, "__x64_sys_nanosleep", NULL));
	assert_false(func_discovery__is_allowed(d, "__x64_sys_epoll_wait", NULL));
	assert_true(func_discovery__is_allowed(d, "__x64_sys_epoll_ctl", NULL));
	assert_true(func_discovery__is_allowed(d2, "__x64_sys_nanosleep", NULL));
	assert_false(func_discovery__is_allowed(d2, "migrate_disable", NULL));
	assert_false(func_discovery__is_allowed(d2, "___migrate_enable", NULL));
	assert_true(func_discovery__is_allowed(d2, "migrate_disable_switch.isra.0", NULL));
	/* the helpers our probes call, whatever -a says; the BPF subsystem itself stays */
	assert_false(func_discovery__is_allowed(d2, "bpf_get_current_pid_tgid", NULL));
	assert_false(func_discovery__is_allowed(d2, "__htab_map_lookup_elem", NULL));
	assert_false(func_discovery__is_allowed(d2, "bpf_ringbuf_reserve", NULL));
	assert_true(func_discovery__is_allowed(d2, "bpf_prog_load", NULL));
	assert_true(func_discovery__is_allowed(d2, "htab_map_update_elem", NULL));
	func_discovery__free(d);
	func_discovery__free(d2);
}

static void test_mandatory_entry_glob(void **state)
{
	static const char *const globs[] = {
		"e:*sys_bpf", "e:no_such_func*", "e:array_map_free [kvm]", NULL,
	};
	struct func_discovery *d;

	assert_int_equal(discover(false, 0, globs, &d), -ENOENT);
	assert_msg("-1:Entry glob 'no_such_func*' doesn't match any kernel function!\n");
	func_discovery__free(d);
}

/* 300 allow globs that match nothing are one warning line, not 300 (issue 23 item 6) */
static void test_idle_allow_globs_summed(void **state)
{
	static const char *const globs[] = {
		"e:*sys_bpf", "a:no_such_a*", "a:no_such_b*", "a:no_such_c*", NULL,
	};
	static const char *const one[] = { "e:*sys_bpf", "a:no_such_a*", NULL };
	struct func_discovery *d;
	const char *p;
	int lines = 0;

	assert_int_equal(discover(false, 0, globs, &d), 0);
	assert_int_equal(func_discovery__stats(d)->idle_allow_cnt, 3);
	assert_msg("0:WARNING: 3 allow globs match no traceable kernel function (-v names them).\n");
	assert_msg("1:WARNING: allow glob 'no_such_b*' doesn't match any traceable kernel function.\n");
	for (p = msgs; (p = strstr(p, "\n0:")); p++)
		lines++;
	/* the first message has no newline before it */
	lines += strncmp(msgs, "0:", 2) == 0;
	assert_int_equal(lines, 1);
	func_discovery__free(d);

	assert_int_equal(discover(false, 0, one, &d), 0);
	assert_msg("0:WARNING: 1 allow glob matches no traceable kernel function (-v names it).\n");
	func_discovery__free(d);
}

static void test_limit(void **state)
{
	struct func_discovery *d;

	assert_int_equal(discover(false, 12, bpf_globs, &d), -E2BIG);
	assert_msg("-1:Too many functions to trace: 13, the limit is 12.");
	func_discovery__free(d);
	assert_int_equal(discover(false, 13, bpf_globs, &d), 0);
	func_discovery__free(d);
}

static void test_src_path_glob(void **state)
{
	struct func_discovery *d = func_discovery__new(NULL);
	struct glob_spec spec;
	int err;

	msgs_len = 0;
	assert_int_equal(glob_spec__parse(":kernel/bpf/*.c", &spec), 0);
	err = func_discovery__add_glob(d, FUNC_GLOB_ALLOW, &spec);
	glob_spec__free(&spec);
	assert_int_equal(err, -EOPNOTSUPP);
	func_discovery__free(d);
}

static void test_unreadable_inputs(void **state)
{
	LIBBPF_OPTS(func_discovery_opts, opts,
		.kallsyms_path = kallsyms_path,
		.aff_path = "/nonexistent/available_filter_functions",
		.vmlinux_btf = vmlinux_btf,
		.print = capture_print,
	);
	struct glob_spec spec = { .name = (char *)"*", .kind = GLOB_NAME, .mandatory = true };
	struct func_discovery *d;
	char restricted[600];

	msgs_len = 0;
	d = func_discovery__new(&opts);
	assert_int_equal(func_discovery__add_glob(d, FUNC_GLOB_ENTRY, &spec), 0);
	assert_int_equal(func_discovery__run(d), -ENOENT);
	assert_msg("-1:Failed to read the list of traceable kernel functions from /nonexistent/available_filter_functions: No such file or directory;");
	func_discovery__free(d);

	/* kallsyms with hidden addresses must not produce functions at address 0 */
	snprintf(restricted, sizeof(restricted), "%s/discovery/kallsyms-restricted", fixtures_dir());
	opts.aff_path = aff_path;
	opts.kallsyms_path = restricted;
	msgs_len = 0;
	d = func_discovery__new(&opts);
	assert_int_equal(func_discovery__add_glob(d, FUNC_GLOB_ENTRY, &spec), 0);
	assert_int_equal(func_discovery__run(d), -EPERM);
	assert_msg("-1:Kernel addresses in ");
	assert_msg("are hidden (all zero): kernel.kptr_restrict is 2");
	/* said right after reading kallsyms, before any function is looked at */
	assert_null(strstr(msgs, "Discovered"));
	func_discovery__free(d);
}

static void test_fentry_unsupported(void **state)
{
	int id;

	id = btf__find_by_name_kind(vmlinux_btf, "__x64_sys_bpf", BTF_KIND_FUNC);
	assert_null(func_types__fentry_unsupported(vmlinux_btf, id));
	id = btf__find_by_name_kind(vmlinux_btf, "array_map_lookup_elem", BTF_KIND_FUNC);
	assert_null(func_types__fentry_unsupported(vmlinux_btf, id));	/* void * */
	id = btf__find_by_name_kind(vmlinux_btf, "too_many_args", BTF_KIND_FUNC);
	assert_string_equal(func_types__fentry_unsupported(vmlinux_btf, id), "more than 6 parameters");
	id = btf__find_by_name_kind(vmlinux_btf, "array_map_varargs", BTF_KIND_FUNC);
	assert_string_equal(func_types__fentry_unsupported(vmlinux_btf, id), "variadic");
	id = btf__find_by_name_kind(vmlinux_btf, "__sys_bpf", BTF_KIND_FUNC);
	assert_non_null(func_types__fentry_unsupported(vmlinux_btf, id));
	assert_string_equal(func_types__fentry_unsupported(vmlinux_btf, t_int), "not a BTF function");
}

static void assert_same_funcs_only(const struct func_discovery *a, const struct func_discovery *b)
{
	size_t i, n = func_discovery__func_cnt(a);

	assert_int_equal(func_discovery__func_cnt(b), n);
	for (i = 0; i < n; i++) {
		const struct func *x = &func_discovery__funcs(a)[i], *y = &func_discovery__funcs(b)[i];

		assert_string_equal(x->name, y->name);
		assert_true(!x->module == !y->module);
		if (x->module)
			assert_string_equal(x->module, y->module);
		assert_int_equal(x->addr, y->addr);
		assert_int_equal(x->size, y->size);
		assert_int_equal(x->btf_id, y->btf_id);
		assert_int_equal(x->arg_cnt, y->arg_cnt);
		assert_int_equal(x->flags, y->flags);
		assert_int_equal(x->kprobe_fallback, y->kprobe_fallback);
	}
}

/* the same functions and the same counts */
static void assert_same_funcs(const struct func_discovery *a, const struct func_discovery *b)
{
	assert_same_funcs_only(a, b);
	assert_memory_equal(func_discovery__stats(a), func_discovery__stats(b),
			    sizeof(struct func_discovery_stats));
}

/*
 * The vmlinux BTF's digest (btf_funcs.h) in place of the BTF: the same functions, ids,
 * parameter counts, flags and counts; the BTF itself read only for module functions.
 */
static void test_btf_funcs_digest(void **state)
{
	static const char *const vmlinux_globs[] = {
		"e:*sys_bpf", "a:array_map_alloc_check", "a:array_map_lookup_elem",
		"a:array_map_free", "a:array_map_varargs", "a:dup_static", "a:notrace_fn", "a:vfs_*",
		"a:too_many_args", NULL,
	};
	char digest_path[600];
	struct func_discovery *a, *b;
	struct btf_funcs *bf;
	const void *raw;
	size_t len;
	void *data;
	__u32 sz;
	FILE *f;

	snprintf(vmlinux_path, sizeof(vmlinux_path), "%s/vmlinux", mod_dir);
	raw = btf__raw_data(vmlinux_btf, &sz);
	f = fopen(vmlinux_path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(raw, 1, sz, f), sz);
	fclose(f);
	assert_int_equal(btf_funcs__build(vmlinux_btf, NULL, &data, &len), 0);
	snprintf(digest_path, sizeof(digest_path), "%s/btf-funcs", mod_dir);
	f = fopen(digest_path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	free(data);
	bf = btf_funcs__open(digest_path, NULL);
	assert_non_null(bf);

	/* vmlinux and module functions: module BTF needs the vmlinux BTF, read then */
	assert_int_equal(discover(false, 0, bpf_globs, &a), 0);
	use_digest = bf;
	assert_int_equal(discover(false, 0, bpf_globs, &b), 0);
	assert_msg("1:Read the vmlinux BTF's 14 functions from the boot cache.\n");
	assert_msg("1:Loaded BTF for module [kvm].\n");
	assert_msg("1:Function 'notrace_fn' is not an attachable kprobe, skipping.\n");
	assert_same_funcs(a, b);
	assert_non_null(func_discovery__vmlinux_btf(b));
	func_discovery__free(a);
	func_discovery__free(b);

	/* vmlinux functions only: no BTF read at all */
	use_digest = NULL;
	assert_int_equal(discover(false, 0, vmlinux_globs, &a), 0);
	use_digest = bf;
	assert_int_equal(discover(false, 0, vmlinux_globs, &b), 0);
	assert_same_funcs(a, b);
	assert_null(func_discovery__vmlinux_btf(b));
	func_discovery__free(a);
	func_discovery__free(b);

	/* -F needs the BTF itself: the digest is not used */
	assert_int_equal(discover(true, 0, vmlinux_globs, &b), 0);
	assert_msg("1:Loaded BTF for [vmlinux].\n");
	func_discovery__free(b);

	use_digest = NULL;
	btf_funcs__free(bf);
	unlink(digest_path);
	unlink(vmlinux_path);
}

/* Without the deny globs' hit counts (-vv only): the same functions and counts otherwise. */
static void test_no_deny_counts(void **state)
{
	struct func_discovery *a, *b;

	assert_int_equal(discover(false, 0, bpf_globs, &a), 0);
	assert_msg("3:Deny glob 'rcu_read_lock*' matched 1 functions.\n");
	no_deny_counts = true;
	assert_int_equal(discover(false, 0, bpf_globs, &b), 0);
	no_deny_counts = false;
	assert_msg("3:Deny glob 'rcu_read_lock*' matched 0 functions.\n");
	assert_same_funcs(a, b);
	func_discovery__free(a);
	func_discovery__free(b);
}

/*
 * Without looking for what ftrace can't attach (below -v): the same functions, found
 * without testing the globs against the BTF's names; the allowed BTF function missing from
 * available_filter_functions is neither named nor counted.
 */
static void test_no_unattachable(void **state)
{
	struct func_discovery *a, *b;
	struct func_discovery_stats sa, sb;

	assert_int_equal(discover(false, 0, bpf_globs, &a), 0);
	assert_msg("1:Function 'notrace_fn' is not an attachable kprobe, skipping.\n");
	no_unattachable = true;
	assert_int_equal(discover(false, 0, bpf_globs, &b), 0);
	no_unattachable = false;
	assert_null(strstr(msgs, "not an attachable kprobe"));
	assert_msg("1:Skipped 5 functions in total.\n");
	sa = *func_discovery__stats(a);
	sb = *func_discovery__stats(b);
	assert_int_equal(sa.skipped_cnt, 6);
	assert_int_equal(sb.skipped_cnt, 5);
	assert_same_funcs_only(a, b);
	sb.skipped_cnt = sa.skipped_cnt;
	assert_memory_equal(&sa, &sb, sizeof(sa));
	func_discovery__free(a);
	func_discovery__free(b);

	/* -F, and module functions, the same way */
	assert_int_equal(discover(true, 0, bpf_globs, &a), 0);
	no_unattachable = true;
	assert_int_equal(discover(true, 0, bpf_globs, &b), 0);
	no_unattachable = false;
	assert_same_funcs_only(a, b);
	func_discovery__free(a);
	func_discovery__free(b);
}

/*
 * A name's first three characters pick its candidate key: names that share them, and
 * names shorter than three characters, are told apart by the search that follows.
 */
static void test_cand_keys(void **state)
{
	static const char *const globs[] = { "a:vfs_*", "a:v", NULL };
	struct func_discovery *d;

	assert_int_equal(disc_cand_key("vfs_read"), disc_cand_key("vfs_write"));
	assert_int_equal(disc_cand_key(""), 0);
	assert_int_not_equal(disc_cand_key("v"), disc_cand_key("vf"));
	no_unattachable = true;
	assert_int_equal(discover(false, 0, globs, &d), 0);
	no_unattachable = false;
	assert_true(disc_may_be_cand(d, "vfs_read"));
	assert_true(disc_may_be_cand(d, "vfs_anything"));	/* same key: a search says no */
	assert_false(disc_may_be_cand(d, "array_map_free"));
	func_discovery__free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kprobe_pipeline),
		cmocka_unit_test(test_fentry_pipeline),
		cmocka_unit_test(test_deny_wins),
		cmocka_unit_test(test_entry_beats_allow),
		cmocka_unit_test(test_syscall_flag),
		cmocka_unit_test(test_module_globs),
		cmocka_unit_test(test_builtin_deny),
		cmocka_unit_test(test_sleepable_deny),
		cmocka_unit_test(test_mandatory_entry_glob),
		cmocka_unit_test(test_idle_allow_globs_summed),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_src_path_glob),
		cmocka_unit_test(test_unreadable_inputs),
		cmocka_unit_test(test_fentry_unsupported),
		cmocka_unit_test(test_btf_funcs_digest),
		cmocka_unit_test(test_no_deny_counts),
		cmocka_unit_test(test_no_unattachable),
		cmocka_unit_test(test_cand_keys),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
