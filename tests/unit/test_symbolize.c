// SPDX-License-Identifier: BSD-2-Clause
/* kallsyms answers, KASLR translation, -s vs -ss, modules, and degradation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "ksyms.h"
#include "symbolize.h"

static const char kallsyms[] =
	"ffffffffa1000000 T _stext\n"
	"ffffffffa1000100 T __sys_bpf\n"
	"ffffffffa1000900 t map_create\n"
	"ffffffffa1000a00 D some_data\n"
	"ffffffffc0001000 t vmx_vcpu_run\t[kvm_intel]\n"
	"ffffffffc0001800 t vmx_exit\t[kvm_intel]\n";

static __u64 last_lookup;
static int fail_next;

static int fake_lookup(void *ctx, __u64 file_addr, struct src_frame *fr, int max)
{
	last_lookup = file_addr;
	if (fail_next)
		return fail_next < 0 ? fail_next : -EPIPE;
	fr[0] = (struct src_frame){ "__sys_bpf", "kernel/bpf/syscall.c", 4947, 9 };
	fr[1] = (struct src_frame){ "map_create", "kernel/bpf/syscall.c", 1106, 8 };
	fr[2] = (struct src_frame){ "find_and_alloc_map", "kernel/bpf/syscall.c", 132, 5 };
	return 3;
}

static struct symbolize *make(struct ksyms *ks, bool inlines, bool with_src)
{
	struct symbolize_opts o = {
		.sz = sizeof(o), .ksyms = ks, .kaslr_offset = 0x20000000, .inlines = inlines,
		.src = { .lookup = with_src ? fake_lookup : NULL },
	};
	struct symbolize *s = symbolize__new(&o);

	assert_non_null(s);
	return s;
}

static void test_ksym(void **state)
{
	struct ksyms *ks = ksyms__parse(kallsyms, sizeof(kallsyms) - 1);
	struct symbolize *s = make(ks, true, false);
	struct sym_resolver r = symbolize__resolver(s);
	struct ksym_hit h;

	assert_true(r.ksym(r.ctx, 0xffffffffa100048bULL, &h));
	assert_string_equal(h.name, "__sys_bpf");
	assert_int_equal(h.start, 0xffffffffa1000100ULL);
	assert_int_equal(h.size, 0x800);
	assert_true(r.ksym(r.ctx, 0xffffffffc0001010ULL, &h));
	assert_string_equal(h.name, "vmx_vcpu_run");
	assert_false(r.ksym(r.ctx, 0xffffffff00000000ULL, &h));	/* below everything */
	symbolize__free(s);
	ksyms__free(ks);
}

static void test_src_kaslr_and_modes(void **state)
{
	struct ksyms *ks = ksyms__parse(kallsyms, sizeof(kallsyms) - 1);
	struct symbolize *ss = make(ks, true, true), *s1 = make(ks, false, true);
	struct sym_resolver r = symbolize__resolver(ss), r1 = symbolize__resolver(s1);
	struct src_frame fr[8];

	fail_next = 0;
	assert_int_equal(r.src(r.ctx, 0xffffffffa100048bULL, fr, 8), 3);
	assert_int_equal(last_lookup, 0xffffffff8100048bULL);	/* runtime - KASLR offset */
	assert_string_equal(fr[2].func, "find_and_alloc_map");
	/* -s: one frame, the innermost location */
	assert_int_equal(r1.src(r1.ctx, 0xffffffffa100048bULL, fr, 8), 1);
	assert_string_equal(fr[0].func, "find_and_alloc_map");
	assert_int_equal(fr[0].line, 132);
	/* module code has no DWARF in vmlinux */
	last_lookup = 0;
	assert_int_equal(r.src(r.ctx, 0xffffffffc0001010ULL, fr, 8), 0);
	assert_int_equal(last_lookup, 0);
	symbolize__free(ss);
	symbolize__free(s1);
	ksyms__free(ks);
}

static void test_warns_once_without_backend(void **state)
{
	struct ksyms *ks = ksyms__parse(kallsyms, sizeof(kallsyms) - 1);
	struct symbolize_opts o = { .sz = sizeof(o), .ksyms = ks, .warn_no_src = true };
	struct symbolize *s = symbolize__new(&o);
	struct sym_resolver r = symbolize__resolver(s);
	struct src_frame fr[4];
	char *buf = NULL;
	size_t len = 0;
	FILE *old = stderr;

	stderr = open_memstream(&buf, &len);
	assert_int_equal(r.src(r.ctx, 0xffffffffa100048bULL, fr, 4), 0);
	assert_int_equal(r.src(r.ctx, 0xffffffffa100048bULL, fr, 4), 0);
	fclose(stderr);
	stderr = old;
	assert_non_null(strstr(buf, "WARNING: no usable DWARF vmlinux"));
	assert_null(strstr(strstr(buf, "WARNING") + 1, "WARNING"));	/* once */
	free(buf);
	symbolize__free(s);
	ksyms__free(ks);
}

static void test_degrades_once(void **state)
{
	struct ksyms *ks = ksyms__parse(kallsyms, sizeof(kallsyms) - 1);
	struct symbolize *s = make(ks, true, true);
	struct sym_resolver r = symbolize__resolver(s);
	struct src_frame fr[8];
	struct ksym_hit h;

	fail_next = 1;
	assert_int_equal(r.src(r.ctx, 0xffffffffa100048bULL, fr, 8), 0);
	assert_true(symbolize__degraded(s));
	fail_next = 0;
	last_lookup = 0;
	assert_int_equal(r.src(r.ctx, 0xffffffffa100048bULL, fr, 8), 0);	/* stays off */
	assert_int_equal(last_lookup, 0);
	assert_true(r.ksym(r.ctx, 0xffffffffa100048bULL, &h));		/* kallsyms still on */
	symbolize__free(s);
	ksyms__free(ks);
}

/* An interrupted lookup (Ctrl-C during a slow one) costs that address its lines, no more. */
static void test_interrupted_lookup(void **state)
{
	struct ksyms *ks = ksyms__parse(kallsyms, sizeof(kallsyms) - 1);
	struct symbolize *s = make(ks, true, true);
	struct sym_resolver r = symbolize__resolver(s);
	struct src_frame fr[8];
	char *buf = NULL;
	size_t len = 0;
	FILE *old = stderr;

	stderr = open_memstream(&buf, &len);
	fail_next = -EINTR;
	assert_int_equal(r.src(r.ctx, 0xffffffffa100048bULL, fr, 8), 0);
	assert_false(symbolize__degraded(s));
	fail_next = 0;
	assert_int_equal(r.src(r.ctx, 0xffffffffa100048bULL, fr, 8), 3);
	fclose(stderr);
	stderr = old;
	assert_int_equal(len, 0);	/* no warning */
	free(buf);
	symbolize__free(s);
	ksyms__free(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ksym),
		cmocka_unit_test(test_src_kaslr_and_modes),
		cmocka_unit_test(test_warns_once_without_backend),
		cmocka_unit_test(test_degrades_once),
		cmocka_unit_test(test_interrupted_lookup),
	};

	return cmocka_run_group_tests_name("symbolize", tests, NULL, NULL);
}
