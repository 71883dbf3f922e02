// SPDX-License-Identifier: BSD-2-Clause
/* kallsyms answers, KASLR translation, -s vs -ss, modules, and degradation. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include <unistd.h>
#include "ksyms.h"
#include "symbolize.h"
#include "prog_ksym.h"

static const char kallsyms[] =
	"ffffffffa1000000 T _stext\n"
	"ffffffffa1000100 T __sys_bpf\n"
	"ffffffffa1000900 t map_create\n"
	"ffffffffa1000a00 D some_data\n"
	"ffffffffc0001000 t vmx_vcpu_run\t[kvm_intel]\n"
	"ffffffffc0001800 t vmx_exit\t[kvm_intel]\n";

static const struct addr_space kernel = { .kind = ADDR_SPACE_KERNEL };
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

static char logged[512];

static void log_to_buf(int level, const char *fmt, va_list args)
{
	size_t n = strlen(logged);

	vsnprintf(logged + n, sizeof(logged) - n, fmt, args);
}

static struct symbolize *make(struct ksyms *ks, bool inlines, bool with_src)
{
	struct symbolize_opts o = {
		.sz = sizeof(o), .ksyms = ks, .kaslr_offset = 0x20000000, .inlines = inlines,
		.src = { .lookup = with_src ? fake_lookup : NULL }, .print = log_to_buf,
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
	struct sym_hit h;

	assert_true(r.sym(r.ctx, &kernel, 0xffffffffa100048bULL, &h));
	assert_string_equal(h.name, "__sys_bpf");
	assert_int_equal(h.start, 0xffffffffa1000100ULL);
	assert_int_equal(h.size, 0x800);
	assert_string_equal(h.image.path, "vmlinux");
	assert_true(r.sym(r.ctx, &kernel, 0xffffffffc0001010ULL, &h));
	assert_string_equal(h.name, "vmx_vcpu_run");
	assert_string_equal(h.image.path, "kvm_intel");	/* the module is the image */
	assert_false(r.sym(r.ctx, &kernel, 0xffffffff00000000ULL, &h));	/* below everything */
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
	assert_int_equal(r.src(r.ctx, &kernel, 0xffffffffa100048bULL, fr, 8, NULL), 3);
	assert_int_equal(last_lookup, 0xffffffff8100048bULL);	/* runtime - KASLR offset */
	assert_string_equal(fr[2].func, "find_and_alloc_map");
	/* -s: one frame, the innermost location */
	assert_int_equal(r1.src(r1.ctx, &kernel, 0xffffffffa100048bULL, fr, 8, NULL), 1);
	assert_string_equal(fr[0].func, "find_and_alloc_map");
	assert_int_equal(fr[0].line, 132);
	/* module code has no DWARF in vmlinux */
	last_lookup = 0;
	assert_int_equal(r.src(r.ctx, &kernel, 0xffffffffc0001010ULL, fr, 8, NULL), 0);
	assert_int_equal(last_lookup, 0);
	symbolize__free(ss);
	symbolize__free(s1);
	ksyms__free(ks);
}

/* Without a backend it answers kallsyms only and says nothing (main warns at start-up). */
static void test_quiet_without_backend(void **state)
{
	struct ksyms *ks = ksyms__parse(kallsyms, sizeof(kallsyms) - 1);
	struct symbolize_opts o = { .sz = sizeof(o), .ksyms = ks, .print = log_to_buf };
	struct symbolize *s = symbolize__new(&o);
	struct sym_resolver r = symbolize__resolver(s);
	struct src_frame fr[4];
	struct sym_hit h;

	logged[0] = '\0';
	assert_int_equal(r.src(r.ctx, &kernel, 0xffffffffa100048bULL, fr, 4, NULL), 0);
	assert_true(r.sym(r.ctx, &kernel, 0xffffffffa100048bULL, &h));
	assert_string_equal(logged, "");
	/* a process never snapshotted has nothing known about it */
	assert_false(r.sym(r.ctx, &(struct addr_space){ .kind = ADDR_SPACE_USER, .pid = 1 },
			   0xffffffffa100048bULL, &h));
	symbolize__free(s);
	ksyms__free(ks);
}

static void test_degrades_once(void **state)
{
	struct ksyms *ks = ksyms__parse(kallsyms, sizeof(kallsyms) - 1);
	struct symbolize *s = make(ks, true, true);
	struct sym_resolver r = symbolize__resolver(s);
	const char *note;
	struct src_frame fr[8];
	struct sym_hit h;

	fail_next = 1;
	logged[0] = '\0';
	assert_int_equal(r.src(r.ctx, &kernel, 0xffffffffa100048bULL, fr, 8, NULL), 0);
	assert_true(symbolize__degraded(s));
	assert_non_null(strstr(logged, "source-line symbolization failed (-32)"));
	fail_next = 0;
	last_lookup = 0;
	note = NULL;
	assert_int_equal(r.src(r.ctx, &kernel, 0xffffffffa100048bULL, fr, 8, &note), 0);	/* off */
	assert_int_equal(last_lookup, 0);
	/* and each frame without lines says why */
	assert_string_equal(note, "source-line symbolizer failed");
	assert_true(r.sym(r.ctx, &kernel, 0xffffffffa100048bULL, &h));		/* kallsyms still on */
	symbolize__free(s);
	ksyms__free(ks);
}

/*
 * A lookup cut short (a second Ctrl-C while symbolizing what was received) is said, and so
 * is every one after it, without asking the backend again; no warning, no degradation.
 */
static void test_interrupted_lookup(void **state)
{
	struct ksyms *ks = ksyms__parse(kallsyms, sizeof(kallsyms) - 1);
	struct symbolize *s = make(ks, true, true);
	struct sym_resolver r = symbolize__resolver(s);
	struct src_frame fr[8];

	/* a lookup before the cut answers in full */
	assert_int_equal(r.src(r.ctx, &kernel, 0xffffffffa100048bULL, fr, 8, NULL), 3);
	logged[0] = '\0';
	fail_next = -EINTR;
	/* cut short: said to the caller, who marks the frame */
	assert_int_equal(r.src(r.ctx, &kernel, 0xffffffffa100048bULL, fr, 8, NULL), -EINTR);
	assert_false(symbolize__degraded(s));
	/* the rest go without, each one said too, and the backend is not asked again */
	fail_next = 0;
	last_lookup = 0;
	assert_int_equal(r.src(r.ctx, &kernel, 0xffffffffa100048bULL, fr, 8, NULL), -EINTR);
	assert_int_equal(last_lookup, 0);
	assert_string_equal(logged, "");	/* no warning: every frame says it */
	symbolize__free(s);
	ksyms__free(ks);
}

/* kallsyms read on the helper thread: the lookups that follow see it, or its failure once. */
static void test_prefetch(void **state)
{
	char path[] = "/tmp/test_symbolize.XXXXXX";
	int fd = mkstemp(path);
	struct symbolize_opts o = { .sz = sizeof(o), .kallsyms_path = path, .print = log_to_buf };
	struct symbolize *s;
	struct sym_resolver r;
	struct sym_hit h;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, kallsyms, sizeof(kallsyms) - 1), sizeof(kallsyms) - 1);
	close(fd);
	logged[0] = '\0';
	s = symbolize__new(&o);
	assert_non_null(s);
	assert_false(symbolize__early_text(s));	/* no early table: the fresh read answers all */
	assert_int_equal(symbolize__prefetch(s), 0);
	assert_int_equal(symbolize__prefetch(s), 0);	/* once */
	r = symbolize__resolver(s);
	assert_true(r.sym(r.ctx, &kernel, 0xffffffffa100048bULL, &h));
	assert_string_equal(h.name, "__sys_bpf");
	assert_true(r.sym(r.ctx, &kernel, 0xffffffffc0001810ULL, &h));
	assert_string_equal(h.name, "vmx_exit");
	symbolize__free(s);
	/* -vv: read once, ahead of the lookups */
	assert_non_null(strstr(logged, "Symbols: "));
	assert_non_null(strstr(logged, " symbols, ahead of the first stack that needed them.\n"));
	assert_null(strstr(strstr(logged, "Symbols: ") + 1, "Symbols: "));

	/* freed while the thread may still be reading: joined, nothing leaks, the read said */
	logged[0] = '\0';
	s = symbolize__new(&o);
	assert_int_equal(symbolize__prefetch(s), 0);
	symbolize__free(s);
	assert_non_null(strstr(logged, "needed by no stack.\n"));

	/* unreadable: said once, lookups find nothing */
	unlink(path);
	logged[0] = '\0';
	s = symbolize__new(&o);
	assert_int_equal(symbolize__prefetch(s), 0);
	r = symbolize__resolver(s);
	assert_false(r.sym(r.ctx, &kernel, 0xffffffffa100048bULL, &h));
	assert_false(r.sym(r.ctx, &kernel, 0xffffffffa100048bULL, &h));
	assert_non_null(strstr(logged, "Failed to load"));
	assert_null(strstr(strstr(logged, "Failed to load") + 1, "Failed to load"));
	symbolize__free(s);
}

/*
 * The early table (read before BPF was loaded) answers for the kernel's own text without
 * the fresh read; everything else -- a BPF program loaded since, inside the range the early
 * table would give to an older one, and modules -- comes from the fresh read.
 */
static void test_early_ksyms(void **state)
{
	static const char early_txt[] =
		"ffffffffa1000000 T _stext\n"
		"ffffffffa1000100 T __sys_bpf\n"
		"ffffffffa1000900 t map_create\n"
		"ffffffffa1001000 T _etext\n"
		"ffffffffc0001000 t bpf_prog_1111_old\t[bpf]\n";
	static const char fresh_txt[] =
		"ffffffffa1000000 T _stext\n"
		"ffffffffa1000100 T __sys_bpf\n"
		"ffffffffa1000900 t map_create\n"
		"ffffffffa1001000 T _etext\n"
		"ffffffffc0001000 t bpf_prog_1111_old\t[bpf]\n"
		"ffffffffc0001800 t bpf_prog_2222_kentry\t[bpf]\n";
	char path[] = "/tmp/test_symbolize.XXXXXX";
	struct ksyms *early = ksyms__parse(early_txt, sizeof(early_txt) - 1);
	struct symbolize_opts o = {
		.sz = sizeof(o), .kallsyms_path = path, .early_ksyms = early, .print = log_to_buf,
	};
	int fd = mkstemp(path);
	struct symbolize *s;
	struct sym_resolver r;
	struct sym_hit h;

	assert_non_null(early);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);	/* no fresh table: a lookup that needed it would fail */
	logged[0] = '\0';
	s = symbolize__new(&o);
	assert_true(symbolize__early_text(s));
	r = symbolize__resolver(s);
	assert_true(r.sym(r.ctx, &kernel, 0xffffffffa100048bULL, &h));
	assert_string_equal(h.name, "__sys_bpf");
	assert_string_equal(logged, "");	/* kernel text: the fresh table never read */
	assert_false(r.sym(r.ctx, &kernel, 0xffffffffc0001810ULL, &h));
	assert_non_null(strstr(logged, "Failed to load"));
	symbolize__free(s);

	/* with the fresh table, the new program is found (the early one says bpf_prog_1111) */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, fresh_txt, sizeof(fresh_txt) - 1), sizeof(fresh_txt) - 1);
	close(fd);
	s = symbolize__new(&o);
	r = symbolize__resolver(s);
	logged[0] = '\0';
	assert_true(r.sym(r.ctx, &kernel, 0xffffffffc0001810ULL, &h));
	assert_string_equal(h.name, "bpf_prog_2222_kentry");
	/* no prefetch: read when this lookup first needed it, beyond the kernel's own text */
	assert_non_null(strstr(logged, "beyond the kernel's own text, when a stack first needed them.\n"));
	assert_true(r.sym(r.ctx, &kernel, 0xffffffffa1000905ULL, &h));
	assert_string_equal(h.name, "map_create");
	symbolize__free(s);
	unlink(path);
	ksyms__free(early);
}

/*
 * Our own program, known from itself (symbolize__add_ksym()): a frame in it is named
 * without the kallsyms read (none exists here: a lookup that needed it would fail and
 * say so), has no source lines, and addresses beyond it still need the read.
 */
static void test_own_ksym(void **state)
{
	static const char early_txt[] =
		"ffffffffa1000000 T _stext\n"
		"ffffffffa1000100 T __sys_bpf\n"
		"ffffffffa1001000 T _etext\n";
	struct prog_ksym k = { .addr = 0xffffffffc03a0000ULL, .size = 0x400 };
	struct ksyms *early = ksyms__parse(early_txt, sizeof(early_txt) - 1);
	struct symbolize_opts o = {
		.sz = sizeof(o), .kallsyms_path = "/nonexistent/kallsyms", .early_ksyms = early,
		.src = { .lookup = fake_lookup }, .print = log_to_buf,
	};
	struct src_frame fr[4];
	struct symbolize *s;
	struct sym_resolver r;
	struct sym_hit h = {};

	assert_non_null(early);
	snprintf(k.name, sizeof(k.name), "bpf_prog_ee4fd71b2fd6575a_ksession");
	s = symbolize__new(&o);
	assert_non_null(s);
	assert_int_equal(symbolize__add_ksym(s, &k), 0);
	r = symbolize__resolver(s);
	logged[0] = '\0';
	last_lookup = 0;
	assert_true(r.sym(r.ctx, &kernel, 0xffffffffc03a030bULL, &h));
	assert_string_equal(h.name, "bpf_prog_ee4fd71b2fd6575a_ksession");
	assert_int_equal(h.start, 0xffffffffc03a0000ULL);
	assert_string_equal(h.image.path, "bpf");
	assert_int_equal(r.src(r.ctx, &kernel, 0xffffffffc03a030bULL, fr, 4, NULL), 0);
	assert_int_equal(last_lookup, 0);
	assert_string_equal(logged, "");	/* kallsyms never read */
	/* the first byte past it is not it: that one needs the read, which fails here */
	assert_false(r.sym(r.ctx, &kernel, 0xffffffffc03a0400ULL, &h));
	assert_non_null(strstr(logged, "Failed to load"));
	symbolize__free(s);
	ksyms__free(early);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ksym),
		cmocka_unit_test(test_src_kaslr_and_modes),
		cmocka_unit_test(test_quiet_without_backend),
		cmocka_unit_test(test_degrades_once),
		cmocka_unit_test(test_interrupted_lookup),
		cmocka_unit_test(test_prefetch),
		cmocka_unit_test(test_early_ksyms),
		cmocka_unit_test(test_own_ksym),
	};

	return cmocka_run_group_tests_name("symbolize", tests, NULL, NULL);
}
