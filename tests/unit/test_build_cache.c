// SPDX-License-Identifier: BSD-2-Clause
/*
 * The kernel build's copies over a /proc and /sys tree of the test's own: kept by a boot's
 * first run, restored by the next boot's, with the kallsyms image moved to where KASLR put
 * the kernel's text this time; refused with modules loaded, without a build ID, with a
 * damaged copy or hidden addresses; the oldest builds' copies pruned.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "unit.h"
#include "fake_root.h"
#include "boot_cache.h"
#include "build_cache.h"
#include "ftrace_funcs.h"
#include "ksyms.h"

static char root[64];
static char run_dir[128], build_dir[128];

static void put(const char *rel, const char *text)
{
	fake_root_put(root, rel, text, strlen(text));
}

/* sys/kernel/notes with a GNU build ID note whose bytes are all @b */
static void put_build_id(unsigned char b)
{
	unsigned char note[12 + 4 + 20] = {};
	__u32 hdr[3] = { 4, 20, 3 };

	memcpy(note, hdr, sizeof(hdr));
	memcpy(note + 12, "GNU", 4);
	memset(note + 16, b, 20);
	fake_root_put(root, "/sys/kernel/notes", note, sizeof(note));
}

/*
 * Modules kvm and nft loaded with their code at @kvm and @nft (0: none loaded): their lines
 * in /proc/modules, their .text in sysfs (0x40 past where their code starts), and what
 * put_kallsyms() adds for them.
 */
static unsigned long long kvm_base, nft_base;
/* where do_one is past _stext: moved on a kernel that shuffles its functions */
static unsigned long long do_one_off = 0x100;

static void put_modules(unsigned long long kvm, unsigned long long nft)
{
	char text[256];

	kvm_base = kvm;
	nft_base = nft;
	if (!kvm) {
		put("/proc/modules", "");
		return;
	}
	/* most recently loaded first, as the kernel lists them */
	snprintf(text, sizeof(text), "nf_tables 376832 0 - Live 0x%llx\n"
		 "kvm 1130496 3 kvm_amd, Live 0x%llx\n", nft, kvm);
	put("/proc/modules", text);
	snprintf(text, sizeof(text), "0x%llx\n", kvm + 0x40);
	put("/sys/module/kvm/sections/.text", text);
	snprintf(text, sizeof(text), "0x%llx\n", nft + 0x40);
	put("/sys/module/nf_tables/sections/.text", text);
	put("/sys/module/kvm/notes/.note.gnu.build-id", "GNU build-id-kvm");
}

/* The kernel's kallsyms with its text at @stext: per-CPU symbols first, as on x86-64 */
static void put_kallsyms(unsigned long long stext)
{
	char text[2048];
	int n;

	n = snprintf(text, sizeof(text),
		 "0000000000000000 A fixed_percpu_data\n"
		 "0000000000001000 A cpu_debug_store\n"
		 "%016llx T _stext\n"
		 "%016llx t do_one\n"
		 "%016llx T __x64_sys_bpf\n"
		 "%016llx W weak_one\n"
		 "%016llx T _etext\n"
		 "%016llx D some_data\n"
		 "ffffffffc0100000 t bpf_prog_6deef7357e7b4530_sd_fw_ingress\t[bpf]\n",
		 stext, stext + do_one_off, stext + 0x200, stext + 0x300, stext + 0x1000,
		 stext + 0x1000000);
	if (nft_base)
		n += snprintf(text + n, sizeof(text) - n,
			      "%016llx t nft_init\t[nf_tables]\n"
			      "%016llx T nft_register_expr\t[nf_tables]\n"
			      "%016llx d nft_data\t[nf_tables]\n",
			      nft_base + 0x40, nft_base + 0x80, nft_base + 0x9000);
	if (kvm_base)
		n += snprintf(text + n, sizeof(text) - n,
			      "%016llx t kvm_vcpu_ioctl\t[kvm]\n"
			      "%016llx t kvm_vm_ioctl\t[kvm]\n"
			      "%016llx t nft_init\t[kvm]\n",
			      kvm_base + 0x40, kvm_base + 0x140, kvm_base + 0x300);
	assert_true(n < (int)sizeof(text));
	put("/proc/kallsyms", text);
}

static void new_boot(const char *boot_id, unsigned long long stext)
{
	char line[64];

	snprintf(line, sizeof(line), "%s\n", boot_id);
	put("/proc/sys/kernel/random/boot_id", line);
	put_kallsyms(stext);
}

static int setup(void **state)
{
	strcpy(root, "/tmp/retsnoop-build-cache.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(run_dir, sizeof(run_dir), "%s/run/retsnoop", root);
	snprintf(build_dir, sizeof(build_dir), "%s/var/cache/retsnoop", root);
	put("/run/.keep", "");
	put("/var/cache/.keep", "");
	put("/proc/sys/kernel/kptr_restrict", "0\n");
	put_modules(0, 0);
	put("/aff", "do_one\n__x64_sys_bpf\nweak_one\n");
	put_build_id(0xab);
	new_boot("0c5a1b2e-3f4d-4e5f-8a9b-0c1d2e3f4a5b", 0xffffffff81000000ULL);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

static struct boot_cache *open_cache(void)
{
	struct boot_cache_opts o = { .sz = sizeof(o), .dir = run_dir, .root = root,
				     .build_dir = build_dir };

	return boot_cache__open(&o);
}

static struct build_cache *open_build(unsigned int max_builds)
{
	struct build_cache_opts o = { .sz = sizeof(o), .dir = build_dir, .root = root,
				      .max_builds = max_builds };

	return build_cache__open(&o);
}

static struct ksyms *kernel_ksyms(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/proc/kallsyms", root);
	return ksyms__load_static_funcs(path);
}

static char *rel_path(char *buf, size_t sz, const char *rel)
{
	snprintf(buf, sz, "%s%s", root, rel);
	return buf;
}

/* A boot's first run: reads the kernel's lists and saves them (and the build's copies) */
static void first_run(void)
{
	struct ksyms *ks = kernel_ksyms();
	struct ftrace_funcs *ff;
	struct boot_cache *c;
	char path[128];

	ff = ftrace_funcs__load(rel_path(path, sizeof(path), "/aff"));
	assert_non_null(ks);
	assert_non_null(ff);
	c = open_cache();
	assert_non_null(c);
	assert_null(boot_cache__path(c, BOOT_CACHE_KALLSYMS));
	assert_int_equal(boot_cache__save(c, ks, ff), 0);
	assert_int_equal(boot_cache__write(c, BOOT_CACHE_BTF_FUNCS, "btf funcs", 9), 0);
	assert_int_equal(boot_cache__wait(c), 0);
	assert_int_equal(boot_cache__build_err(c), 0);
	boot_cache__free(c);
	ksyms__free(ks);
	ftrace_funcs__free(ff);
}

/* Every function of @a in @b, at the same address, in the same order */
static void assert_same_funcs(const struct ksyms *a, const struct ksyms *b)
{
	size_t i;

	assert_int_equal(ksyms__cnt(a), ksyms__cnt(b));
	for (i = 0; i < ksyms__cnt(a); i++) {
		const struct ksym *x = ksyms__get(a, i), *y = ksyms__get(b, i);

		assert_string_equal(x->name, y->name);
		assert_int_equal(x->addr, y->addr);
		assert_int_equal(x->size, y->size);
		assert_int_equal(x->type, y->type);
		assert_ptr_equal(ksyms__map_addr(b, x->addr + 1), y);
	}
}

/* Kept relative to _stext; restored on another boot where KASLR moved the text */
static void test_restore_moved(void **state)
{
	struct ksyms *kept, *now, *restored;
	struct ftrace_funcs *ff;
	struct boot_cache *c;
	char path[256];

	/* nothing kept yet: the first boot of this build */
	c = open_cache();
	assert_non_null(c);
	assert_int_equal(boot_cache__build_err(c), -ENODATA);
	boot_cache__free(c);
	first_run();

	snprintf(path, sizeof(path), "%s/%s.ksyms", build_dir,
		 "abababababababababababababababababababab");
	kept = ksyms__load_image(path);
	assert_non_null(kept);
	assert_int_equal(ksyms__find(kept, "_stext")->addr, 0);
	assert_int_equal(ksyms__find(kept, "do_one")->addr, 0x100);
	ksyms__free(kept);

	/* the same build booted again, its text 0x2e600000 higher */
	new_boot("22222222-3f4d-4e5f-8a9b-0c1d2e3f4a5b", 0xffffffffaf600000ULL);
	c = open_cache();
	assert_non_null(c);
	assert_non_null(boot_cache__path(c, BOOT_CACHE_KALLSYMS));
	assert_non_null(boot_cache__path(c, BOOT_CACHE_FTRACE_FUNCS));
	assert_non_null(boot_cache__path(c, BOOT_CACHE_BTF_FUNCS));
	assert_null(boot_cache__path(c, BOOT_CACHE_FEATURES));	/* detected each boot */
	assert_string_equal(boot_cache__restored(c, BOOT_CACHE_KALLSYMS), path);
	assert_null(boot_cache__restored(c, BOOT_CACHE_FEATURES));
	assert_int_equal(boot_cache__build_err(c), 0);

	now = kernel_ksyms();
	restored = ksyms__load_image(boot_cache__path(c, BOOT_CACHE_KALLSYMS));
	assert_non_null(restored);
	assert_int_equal(ksyms__cnt(restored), 5);
	assert_same_funcs(now, restored);
	ff = ftrace_funcs__open(boot_cache__path(c, BOOT_CACHE_FTRACE_FUNCS));
	assert_int_equal(ftrace_funcs__cnt(ff), 3);
	assert_string_equal(ftrace_funcs__get(ff, 2)->name, "weak_one");
	/* restored copies are this boot's: nothing to save, nothing kept again */
	assert_int_equal(boot_cache__save(c, restored, ff), 0);
	assert_int_equal(boot_cache__wait(c), 0);
	boot_cache__free(c);
	ksyms__free(now);
	ksyms__free(restored);
	ftrace_funcs__free(ff);
}

/* A restored copy (of this boot's) as it lists the functions, against the kernel's file */
static void assert_restored_is_kernel(void)
{
	struct boot_cache *c = open_cache();
	struct ksyms *now, *restored;

	assert_non_null(c);
	assert_non_null(boot_cache__restored(c, BOOT_CACHE_KALLSYMS));
	assert_int_equal(boot_cache__build_err(c), 0);
	now = kernel_ksyms();
	restored = ksyms__load_image(boot_cache__path(c, BOOT_CACHE_KALLSYMS));
	assert_non_null(restored);
	assert_same_funcs(now, restored);
	ksyms__free(now);
	ksyms__free(restored);
	boot_cache__free(c);
}

/*
 * Modules, kept relative to where their code starts: restored where this boot loaded
 * them, in another order (sorted again, the sizes that reach from one to the next redone);
 * a module laid out otherwise (its .text elsewhere) is not trusted.
 */
static void test_modules(void **state)
{
	struct boot_cache *c;
	char text[64];

	put_modules(0xffffffffc0000000ULL, 0xffffffffc0400000ULL);
	new_boot("33333333-3f4d-4e5f-8a9b-0c1d2e3f4a5b", 0xffffffff91000000ULL);
	c = open_cache();
	assert_int_equal(boot_cache__build_err(c), -ENODATA);
	boot_cache__free(c);
	first_run();

	/* another boot: kvm now above nf_tables */
	put_modules(0xffffffffc0a00000ULL, 0xffffffffc0200000ULL);
	new_boot("44444444-3f4d-4e5f-8a9b-0c1d2e3f4a5b", 0xffffffff9e000000ULL);
	assert_restored_is_kernel();

	/* the same modules in another load order: the same copies */
	put("/proc/modules", "kvm 1130496 3 kvm_amd, Live 0xffffffffc0a00000\n"
			     "nf_tables 376832 0 - Live 0xffffffffc0200000\n");
	new_boot("55555555-3f4d-4e5f-8a9b-0c1d2e3f4a5b", 0xffffffff9e000000ULL);
	assert_restored_is_kernel();

	/* nf_tables laid out otherwise: its .text 0x80 past its start, not 0x40 */
	put_modules(0xffffffffc0000000ULL, 0xffffffffc0400000ULL);
	snprintf(text, sizeof(text), "0x%llx\n", 0xffffffffc0400080ULL);
	put("/sys/module/nf_tables/sections/.text", text);
	new_boot("66666666-3f4d-4e5f-8a9b-0c1d2e3f4a5b", 0xffffffff9f000000ULL);
	c = open_cache();
	assert_null(boot_cache__path(c, BOOT_CACHE_KALLSYMS));
	assert_non_null(boot_cache__restored(c, BOOT_CACHE_FTRACE_FUNCS));
	assert_int_equal(boot_cache__build_err(c), -ESTALE);
	boot_cache__free(c);

	/* another module set (kvm alone): another key, nothing kept for it yet */
	put_modules(0, 0);
	put("/proc/modules", "kvm 1130496 3 kvm_amd, Live 0xffffffffc0000000\n");
	new_boot("77777777-3f4d-4e5f-8a9b-0c1d2e3f4a5b", 0xffffffff9f000000ULL);
	c = open_cache();
	assert_int_equal(boot_cache__build_err(c), -ENODATA);
	boot_cache__free(c);
}

/* Refused: a kernel without a build ID, a directory others can read */
static void test_refusals(void **state)
{
	struct boot_cache *c;

	first_run();

	/* and a kernel without a build ID keeps none */
	put("/sys/kernel/notes", "");
	new_boot("44444444-3f4d-4e5f-8a9b-0c1d2e3f4a5b", 0xffffffff92000000ULL);
	c = open_cache();
	assert_non_null(c);
	assert_null(boot_cache__path(c, BOOT_CACHE_KALLSYMS));
	assert_int_equal(boot_cache__build_err(c), -ENOENT);
	boot_cache__free(c);
	put_build_id(0xab);

	/* nor one whose directory others can read */
	assert_int_equal(chmod(build_dir, 0755), 0);
	errno = 0;
	assert_null(open_build(0));
	assert_int_equal(errno, EACCES);
	assert_int_equal(chmod(build_dir, 0700), 0);
}

/* A damaged image is not restored; the boot's first run keeps a good one over it */
static void test_damaged(void **state)
{
	struct boot_cache *c;
	struct build_cache *bc;
	char path[256];
	int fd;

	first_run();
	bc = open_build(0);
	assert_non_null(bc);
	snprintf(path, sizeof(path), "%s", build_cache__path(bc, BOOT_CACHE_KALLSYMS));
	build_cache__free(bc);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 100), 0);
	close(fd);

	new_boot("55555555-3f4d-4e5f-8a9b-0c1d2e3f4a5b", 0xffffffff93000000ULL);
	c = open_cache();
	assert_non_null(c);
	assert_null(boot_cache__path(c, BOOT_CACHE_KALLSYMS));
	assert_non_null(boot_cache__restored(c, BOOT_CACHE_FTRACE_FUNCS));
	assert_int_equal(boot_cache__build_err(c), -EINVAL);
	boot_cache__free(c);
	first_run();
	assert_int_equal(ksyms__check_image(path), 0);

	/* a kernel whose functions moved apart: its first ones say so, nothing is restored */
	do_one_off = 0x180;
	new_boot("5a5a5a5a-3f4d-4e5f-8a9b-0c1d2e3f4a5b", 0xffffffff94000000ULL);
	c = open_cache();
	assert_non_null(c);
	assert_null(boot_cache__path(c, BOOT_CACHE_KALLSYMS));
	assert_int_equal(boot_cache__build_err(c), -ESTALE);
	boot_cache__free(c);
	do_one_off = 0x100;

	/* hidden addresses: no _stext to place the image by */
	new_boot("66666666-3f4d-4e5f-8a9b-0c1d2e3f4a5b", 0);
	c = open_cache();
	assert_non_null(c);
	assert_null(boot_cache__path(c, BOOT_CACHE_KALLSYMS));
	assert_int_equal(boot_cache__build_err(c), -ESRCH);
	boot_cache__free(c);
}

static void set_mtime(const char *path, time_t t)
{
	struct timespec ts[2] = { { .tv_sec = t }, { .tv_sec = t } };

	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/* Beyond max_builds, the least recently kept build's copies go; never the running one's */
static void test_prune(void **state)
{
	const unsigned char ids[] = { 0x11, 0x22, 0x33 };
	char src[256], kept[3][256];
	struct build_cache *bc;
	size_t i;

	put("/src", "text\n");
	rel_path(src, sizeof(src), "/src");
	for (i = 0; i < 3; i++) {
		put_build_id(ids[i]);
		bc = open_build(2);
		assert_non_null(bc);
		assert_int_equal(build_cache__keep(bc, BOOT_CACHE_FTRACE_FUNCS, src), 0);
		snprintf(kept[i], sizeof(kept[i]), "%s", build_cache__path(bc, BOOT_CACHE_FTRACE_FUNCS));
		/* the first kept longest ago, whatever the clock's granularity */
		set_mtime(kept[i], 1000000 + i * 1000);
		build_cache__free(bc);
	}
	assert_int_equal(access(kept[0], F_OK), -1);
	assert_int_equal(access(kept[1], F_OK), 0);
	assert_int_equal(access(kept[2], F_OK), 0);

	/* the running build's copy stays even when it is the oldest */
	set_mtime(kept[2], 1);
	put_build_id(0x44);
	bc = open_build(1);
	assert_int_equal(build_cache__keep(bc, BOOT_CACHE_FTRACE_FUNCS, src), 0);
	assert_int_equal(access(kept[1], F_OK), -1);
	assert_int_equal(access(kept[2], F_OK), -1);
	assert_non_null(build_cache__path(bc, BOOT_CACHE_FTRACE_FUNCS));
	assert_null(build_cache__path(bc, BOOT_CACHE_FEATURES));
	assert_int_equal(build_cache__restore(bc, BOOT_CACHE_FEATURES, src), -EINVAL);
	build_cache__free(bc);
}

/* Opts a newer caller set that this build doesn't know; no object */
static void test_bad_opts(void **state)
{
	struct { struct build_cache_opts o; long extra; } big = { { .sz = sizeof(big) }, 1 };

	errno = 0;
	assert_null(build_cache__open(&big.o));
	assert_int_equal(errno, EINVAL);
	assert_null(build_cache__path(NULL, BOOT_CACHE_KALLSYMS));
	assert_int_equal(build_cache__restore(NULL, BOOT_CACHE_KALLSYMS, "/x"), -EINVAL);
	assert_int_equal(build_cache__keep(NULL, BOOT_CACHE_KALLSYMS, "/x"), -EINVAL);
	build_cache__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_restore_moved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_modules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prune, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_opts, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
