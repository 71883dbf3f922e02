// SPDX-License-Identifier: BSD-2-Clause
/*
 * The boot cache over a /proc and /sys tree of the test's own: what the copies hold after
 * a save, which changes make another key, and when nothing may be kept.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "unit.h"
#include "fake_root.h"
#include "boot_cache.h"
#include "ftrace_funcs.h"
#include "ksyms.h"

static char root[64];
static char dir[128];

static const char kallsyms_text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 t do_one\n"
	"ffffffff81000200 T __x64_sys_bpf\n"
	"ffffffff81000300 W weak_one\n"
	"ffffffff81001000 T _etext\n"
	"ffffffff82000000 D some_data\n"
	"ffffffffc0000000 t mod_func\t[kvm]\n"
	"ffffffffc0000100 T mod_other\t[kvm]\n"
	"ffffffffc0100000 t bpf_prog_6deef7357e7b4530_sd_fw_ingress\t[bpf]\n"
	"ffffffffc0200000 t ftrace_trampoline\t[__builtin__ftrace]\n"
	"ffffffffc0300000 t kprobe_insn_page\t[__builtin__kprobes]\n";

static const char aff_text[] =
	"do_one\n"
	"__x64_sys_bpf\n"
	"__ftrace_invalid_address___64\n"
	"weak_one\n"
	"mod_func [kvm]\n"
	"mod_other [kvm]\n";

static void put(const char *rel, const char *text)
{
	fake_root_put(root, rel, text, strlen(text));
}

static int setup(void **state)
{
	strcpy(root, "/tmp/retsnoop-boot-cache.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(dir, sizeof(dir), "%s/run/retsnoop", root);
	put("/run/.keep", "");
	put("/proc/sys/kernel/random/boot_id", "0c5a1b2e-3f4d-4e5f-8a9b-0c1d2e3f4a5b\n");
	put("/proc/sys/kernel/kptr_restrict", "0\n");
	put("/proc/modules", "kvm 1130496 3 kvm_amd, Live 0xffffffffc0000000\n");
	put("/sys/module/kvm/notes/.note.gnu.build-id", "GNU build-id-one");
	put("/kallsyms", kallsyms_text);
	put("/aff", aff_text);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

/* nf_tables loaded beside kvm: another module set, another key */
static void load_second_module(void)
{
	put("/proc/modules", "kvm 1130496 3 kvm_amd, Live 0xffffffffc0000000\n"
			     "nf_tables 376832 0 - Live 0xffffffffc0400000\n");
}

static struct boot_cache *open_cache(const volatile sig_atomic_t *stop)
{
	struct boot_cache_opts o = { .sz = sizeof(o), .dir = dir, .root = root, .stop = stop };

	return boot_cache__open(&o);
}

static struct ksyms *load_ksyms(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/kallsyms", root);
	return ksyms__load_static_funcs(path);
}

static struct ftrace_funcs *load_aff(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/aff", root);
	return ftrace_funcs__load(path);
}

/* Save what the kernel's files gave: the next open finds both, holding the same lists */
static void save_fresh(void)
{
	struct ksyms *ks = load_ksyms();
	struct ftrace_funcs *ff = load_aff();
	struct boot_cache *c = open_cache(NULL);

	assert_non_null(c);
	assert_null(boot_cache__path(c, BOOT_CACHE_KALLSYMS));
	assert_null(boot_cache__path(c, BOOT_CACHE_FTRACE_FUNCS));
	assert_int_equal(boot_cache__save(c, ks, ff), 0);
	assert_int_equal(boot_cache__wait(c), 0);
	boot_cache__free(c);
	ksyms__free(ks);
	ftrace_funcs__free(ff);
}

/* Save again where only the kallsyms copy is missing */
static void save_fresh_ksyms(void)
{
	struct ksyms *ks = load_ksyms();
	struct boot_cache *c = open_cache(NULL);

	assert_non_null(c);
	assert_null(boot_cache__path(c, BOOT_CACHE_KALLSYMS));
	assert_int_equal(boot_cache__save(c, ks, NULL), 0);
	assert_int_equal(boot_cache__wait(c), 0);
	boot_cache__free(c);
	ksyms__free(ks);
}

static size_t files_in_dir(void)
{
	char cmd[200];
	FILE *p;
	size_t n = 0;

	snprintf(cmd, sizeof(cmd), "ls '%s' | wc -l", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%zu", &n), 1);
	pclose(p);
	return n;
}

static void test_roundtrip(void **state)
{
	struct ksyms *orig = load_ksyms(), *ks;
	struct ftrace_funcs *ff_orig = load_aff(), *ff;
	struct boot_cache *c;
	struct stat st;
	size_t i, j;

	save_fresh();
	c = open_cache(NULL);
	assert_non_null(c);
	assert_non_null(boot_cache__path(c, BOOT_CACHE_KALLSYMS));
	assert_non_null(boot_cache__path(c, BOOT_CACHE_FTRACE_FUNCS));
	assert_int_equal(stat(boot_cache__path(c, BOOT_CACHE_KALLSYMS), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);

	/* every function symbol but those that come and go: BPF programs, trampolines */
	ks = ksyms__load_image(boot_cache__path(c, BOOT_CACHE_KALLSYMS));
	assert_non_null(ks);
	assert_int_equal(ksyms__cnt(orig), 7);
	assert_int_equal(ksyms__cnt(ks), 7);
	for (i = 0, j = 0; i < ksyms__cnt(orig); i++) {
		const struct ksym *a = ksyms__get(orig, i), *b;

		b = ksyms__get(ks, j++);
		assert_non_null(b);
		assert_int_equal(a->addr, b->addr);
		assert_int_equal(a->type, b->type);
		assert_int_equal(a->size, b->size);
		assert_string_equal(a->name, b->name);
		if (a->module)
			assert_string_equal(a->module, b->module);
		else
			assert_null(b->module);
	}
	assert_int_equal(j, 7);

	ff = ftrace_funcs__open(boot_cache__path(c, BOOT_CACHE_FTRACE_FUNCS));
	assert_non_null(ff);
	assert_int_equal(ftrace_funcs__cnt(ff), ftrace_funcs__cnt(ff_orig));
	for (i = 0; i < ftrace_funcs__cnt(ff); i++) {
		const struct ftrace_func *a = ftrace_funcs__get(ff_orig, i);
		const struct ftrace_func *b = ftrace_funcs__get(ff, i);

		assert_string_equal(a->name, b->name);
		if (a->module)
			assert_string_equal(a->module, b->module);
		else
			assert_null(b->module);
	}
	/* nothing is written again when both copies are there */
	assert_int_equal(boot_cache__save(c, ks, ff), 0);
	assert_int_equal(boot_cache__wait(c), 0);
	assert_int_equal(files_in_dir(), 2);
	boot_cache__free(c);
	ksyms__free(ks);
	ksyms__free(orig);
	ftrace_funcs__free(ff);
	ftrace_funcs__free(ff_orig);
}

/* The kallsyms copy a run would read now, "" for none */
static const char *copy_now(char *buf, size_t sz)
{
	struct boot_cache *c = open_cache(NULL);

	assert_non_null(c);
	snprintf(buf, sz, "%s", boot_cache__path(c, BOOT_CACHE_KALLSYMS) ?: "");
	boot_cache__free(c);
	return buf;
}

/* Which changes name another copy: the module's code, not who uses it */
static void test_key(void **state)
{
	char first[256], now[256];

	save_fresh();
	copy_now(first, sizeof(first));
	assert_non_null(strstr(first, "/0c5a1b2e-3f4d-4e5f-8a9b-0c1d2e3f4a5b-"));

	/* a new user of the module: the same copy */
	put("/proc/modules", "kvm 1130496 4 kvm_amd,kvm_intel, Live 0xffffffffc0000000\n");
	assert_string_equal(copy_now(now, sizeof(now)), first);

	/* rebuilt and loaded again at the same place with the same size: another build ID */
	put("/sys/module/kvm/notes/.note.gnu.build-id", "GNU build-id-two");
	assert_string_equal(copy_now(now, sizeof(now)), "");
	put("/sys/module/kvm/notes/.note.gnu.build-id", "GNU build-id-one");
	assert_string_equal(copy_now(now, sizeof(now)), first);

	/* another boot */
	put("/proc/sys/kernel/random/boot_id", "11111111-3f4d-4e5f-8a9b-0c1d2e3f4a5b\n");
	assert_string_equal(copy_now(now, sizeof(now)), "");
}

/* Another build's image (another layout) is not used, and the next save replaces it */
static void test_foreign_image(void **state)
{
	char path[256], now[256];
	struct boot_cache *c;
	FILE *f;

	save_fresh();
	snprintf(path, sizeof(path), "%s", copy_now(now, sizeof(now)));
	assert_string_not_equal(path, "");
	f = fopen(path, "r+");
	assert_non_null(f);
	fputs("RSKSYM-9", f);	/* a magic this build doesn't know */
	fclose(f);
	c = open_cache(NULL);
	assert_null(boot_cache__path(c, BOOT_CACHE_KALLSYMS));
	assert_non_null(boot_cache__path(c, BOOT_CACHE_FTRACE_FUNCS));
	boot_cache__free(c);
	save_fresh_ksyms();
	assert_string_equal(copy_now(now, sizeof(now)), path);
	assert_int_equal(ksyms__check_image(path), 0);
}

/*
 * A cut function-list image (a full tmpfs, say) is not used, or every run would fail
 * reading it: the run reads the kernel's list and the next save replaces it.
 */
static void test_cut_aff_image(void **state)
{
	struct ftrace_funcs *ff;
	char aff[256];
	struct boot_cache *c;
	struct stat st;

	(void)state;
	save_fresh();
	c = open_cache(NULL);
	assert_non_null(boot_cache__path(c, BOOT_CACHE_FTRACE_FUNCS));
	snprintf(aff, sizeof(aff), "%s", boot_cache__path(c, BOOT_CACHE_FTRACE_FUNCS));
	boot_cache__free(c);
	assert_int_equal(stat(aff, &st), 0);
	assert_int_equal(truncate(aff, st.st_size - 1), 0);
	c = open_cache(NULL);
	assert_null(boot_cache__path(c, BOOT_CACHE_FTRACE_FUNCS));
	assert_non_null(boot_cache__path(c, BOOT_CACHE_KALLSYMS));
	/* the save writes what is missing: the list, whole again */
	ff = load_aff();
	assert_int_equal(boot_cache__save(c, NULL, ff), 0);
	assert_int_equal(boot_cache__wait(c), 0);
	boot_cache__free(c);
	ftrace_funcs__free(ff);
	assert_int_equal(ftrace_funcs__check_image(aff), 0);
}

/* Saving a new module set's copies removes the old set's */
static void test_remove_others(void **state)
{
	struct boot_cache *c;

	save_fresh();
	assert_int_equal(files_in_dir(), 2);
	load_second_module();
	c = open_cache(NULL);
	assert_null(boot_cache__path(c, BOOT_CACHE_KALLSYMS));
	boot_cache__free(c);
	save_fresh();
	assert_int_equal(files_in_dir(), 2);
	c = open_cache(NULL);
	assert_non_null(boot_cache__path(c, BOOT_CACHE_KALLSYMS));
	boot_cache__free(c);
}

/* A module that came while the lists were read: they may hold either state, none is kept */
static void test_modules_changed_meanwhile(void **state)
{
	struct ksyms *ks = load_ksyms();
	struct ftrace_funcs *ff = load_aff();
	struct boot_cache *c = open_cache(NULL);

	assert_non_null(c);
	load_second_module();
	assert_int_equal(boot_cache__save(c, ks, ff), 0);
	assert_int_equal(boot_cache__wait(c), -EAGAIN);
	boot_cache__free(c);
	assert_int_equal(files_in_dir(), 0);
	ksyms__free(ks);
	ftrace_funcs__free(ff);
}

static void test_refusals(void **state)
{
	/* a module half loaded */
	put("/proc/modules", "kvm 1130496 3 kvm_amd, Loading 0xffffffffc0000000\n");
	errno = 0;
	assert_null(open_cache(NULL));
	assert_int_equal(errno, EAGAIN);
	put("/proc/modules", "kvm 1130496 3 kvm_amd, Live 0xffffffffc0000000\n");

	/* the kernel hides its addresses even from root: no copy may show them */
	put("/proc/sys/kernel/kptr_restrict", "2\n");
	errno = 0;
	assert_null(open_cache(NULL));
	assert_int_equal(errno, EPERM);
	put("/proc/sys/kernel/kptr_restrict", "1\n");

	/* a directory others can read is not ours to trust */
	boot_cache__free(open_cache(NULL));
	assert_int_equal(chmod(dir, 0755), 0);
	errno = 0;
	assert_null(open_cache(NULL));
	assert_int_equal(errno, EACCES);
	assert_int_equal(chmod(dir, 0700), 0);

	/* no boot id */
	put("/proc/sys/kernel/random/boot_id", "not a uuid!\n");
	errno = 0;
	assert_null(open_cache(NULL));
	assert_int_equal(errno, ENOENT);
}

/* Hidden addresses are not saved; a stop leaves nothing behind */
static void test_no_save(void **state)
{
	static volatile sig_atomic_t stop = 1;
	static const char hidden[] = "0000000000000000 T _stext\n0000000000000000 t f\n";
	struct ksyms *ks = ksyms__parse(hidden, strlen(hidden));
	struct ftrace_funcs *ff = load_aff();
	struct boot_cache *c = open_cache(NULL);

	assert_non_null(ks);
	assert_int_equal(boot_cache__save(c, ks, NULL), 0);
	assert_int_equal(boot_cache__wait(c), 0);
	boot_cache__free(c);
	assert_int_equal(files_in_dir(), 0);

	c = open_cache(&stop);
	assert_int_equal(boot_cache__save(c, NULL, ff), 0);
	assert_int_equal(boot_cache__wait(c), -EINTR);
	boot_cache__free(c);
	assert_int_equal(files_in_dir(), 0);
	ksyms__free(ks);
	ftrace_funcs__free(ff);
}

/*
 * A small copy (feature detection's answers): read back as written, present for the next
 * open of the same key, not for another module set's, and removed with the old set's
 * lists once the new set saves its own.
 */
static void test_small_copy(void **state)
{
	const char text[] = "retsnoop-kernel-features 1\nhas_ringbuf 1\n";
	struct boot_cache *c = open_cache(NULL);
	char buf[128], small[8];

	assert_non_null(c);
	assert_int_equal(boot_cache__read(c, BOOT_CACHE_FEATURES, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(boot_cache__write(c, BOOT_CACHE_FEATURES, text, strlen(text)), 0);
	/* the lists go through the saving thread only */
	assert_int_equal(boot_cache__write(c, BOOT_CACHE_KALLSYMS, text, strlen(text)), -EINVAL);
	assert_int_equal(boot_cache__read(c, BOOT_CACHE_FEATURES, buf, sizeof(buf)),
			 (ssize_t)strlen(text));
	assert_string_equal(buf, text);
	boot_cache__free(c);

	c = open_cache(NULL);
	assert_non_null(boot_cache__path(c, BOOT_CACHE_FEATURES));
	assert_int_equal(boot_cache__read(c, BOOT_CACHE_FEATURES, buf, sizeof(buf)),
			 (ssize_t)strlen(text));
	assert_string_equal(buf, text);
	/* a buffer too small for all of it: never half a copy */
	assert_int_equal(boot_cache__read(c, BOOT_CACHE_FEATURES, small, sizeof(small)), -EFBIG);
	boot_cache__free(c);
	assert_int_equal(files_in_dir(), 1);

	load_second_module();
	c = open_cache(NULL);
	assert_null(boot_cache__path(c, BOOT_CACHE_FEATURES));
	boot_cache__free(c);
	save_fresh();
	/* the new set's two lists; the old set's features went with its key */
	assert_int_equal(files_in_dir(), 2);
}

/*
 * A run of user functions only: its features kept apart from a kernel calibration's, with
 * the kernel's addresses hidden too (nothing it keeps has any), and no kernel build's
 * copies looked for (this fake root has no build ID: a full open says so, this one not).
 */
static void test_features_only(void **state)
{
	const char text[] = "retsnoop-kernel-features 1\nhas_ringbuf 1\n";
	struct boot_cache_opts o = { .sz = sizeof(o), .dir = dir, .root = root,
				     .features_only = true };
	struct boot_cache *c;
	char buf[128];

	put("/proc/sys/kernel/kptr_restrict", "2\n");
	c = boot_cache__open(&o);
	assert_non_null(c);
	assert_int_equal(boot_cache__build_err(c), 0);
	assert_int_equal(boot_cache__write(c, BOOT_CACHE_USER_FEATURES, text, strlen(text)), 0);
	boot_cache__free(c);

	c = boot_cache__open(&o);
	assert_int_equal(boot_cache__read(c, BOOT_CACHE_USER_FEATURES, buf, sizeof(buf)),
			 (ssize_t)strlen(text));
	assert_string_equal(buf, text);
	assert_null(boot_cache__path(c, BOOT_CACHE_FEATURES));
	boot_cache__free(c);

	/* a kernel run's open: refused while addresses are hidden, else no kernel features */
	errno = 0;
	assert_null(open_cache(NULL));
	assert_int_equal(errno, EPERM);
	put("/proc/sys/kernel/kptr_restrict", "0\n");
	c = open_cache(NULL);
	assert_non_null(c);
	assert_int_not_equal(boot_cache__build_err(c), 0);
	assert_int_equal(boot_cache__read(c, BOOT_CACHE_FEATURES, buf, sizeof(buf)), -ENOENT);
	assert_non_null(boot_cache__path(c, BOOT_CACHE_USER_FEATURES));
	boot_cache__free(c);
}

static void test_bad_opts(void **state)
{
	struct { struct boot_cache_opts o; long extra; } big = { { .sz = sizeof(big) }, 1 };

	errno = 0;
	assert_null(boot_cache__open(&big.o));
	assert_int_equal(errno, EINVAL);
	assert_null(boot_cache__path(NULL, BOOT_CACHE_KALLSYMS));
	assert_int_equal(boot_cache__wait(NULL), -EINVAL);
	boot_cache__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_aff_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_others, setup, teardown),
		cmocka_unit_test_setup_teardown(test_modules_changed_meanwhile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_save, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_opts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_small_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_features_only, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
