// SPDX-License-Identifier: BSD-2-Clause
/*
 * The -V -v feature report layout (detection itself is proven in the test VM), and which
 * calibrations hold uprobes (the host runs uprobes: a real one).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>
#include <bpf/bpf.h>
#include "unit.h"
#include "kernel_features.h"

static char *report(const struct kernel_features *f)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&buf, &sz);

	assert_non_null(out);
	kernel_features__print(f, out);
	fclose(out);
	return buf;
}

static void test_all_yes(void **state)
{
	struct kernel_features f = {
		.has_ringbuf = true, .has_func_ip = true, .has_branch_snapshot = true,
		.has_cookie = true, .has_rawtp_cookie = true, .has_kprobe_multi = true,
		.kret_ip_off = 8, .has_fexit_sleep_fix = true, .has_fentry_protection = true,
	};
	char *s = report(&f);

	assert_string_equal(s,
		"Feature detection:\n"
		"\tBPF ringbuf map supported: yes\n"
		"\tbpf_get_func_ip() supported: yes\n"
		"\tbpf_get_branch_snapshot() supported: yes\n"
		"\tBPF cookie supported: yes\n"
		"\tBPF cookie supported (raw tracepoint): yes\n"
		"\tmulti-attach kprobe supported: yes\n"
		"Feature calibration:\n"
		"\tkretprobe IP offset: 8\n"
		"\tfexit sleep fix: yes\n"
		"\tfentry re-entry protection: yes\n");
	free(s);
}

/* What 5.10 reports: an old kernel answers "no" and a measured offset. */
static void test_old_kernel(void **state)
{
	struct kernel_features f = {
		.has_ringbuf = true, .kret_ip_off = 5, .has_fexit_sleep_fix = true,
	};
	char *s = report(&f);

	assert_string_equal(s,
		"Feature detection:\n"
		"\tBPF ringbuf map supported: yes\n"
		"\tbpf_get_func_ip() supported: no\n"
		"\tbpf_get_branch_snapshot() supported: no\n"
		"\tBPF cookie supported: no\n"
		"\tBPF cookie supported (raw tracepoint): no\n"
		"\tmulti-attach kprobe supported: no\n"
		"Feature calibration:\n"
		"\tkretprobe IP offset: 5\n"
		"\tfexit sleep fix: yes\n"
		"\tfentry re-entry protection: no\n");
	free(s);
}

static void write_bytes(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	if (len)
		assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

/* Checks made before feature detection, so their failures are said plainly. */
static void test_btf_and_kprobes_checks(void **state)
{
	static const unsigned char btf[] = { 0x9f, 0xeb, 1, 0 }, elf[] = { 0x7f, 'E', 'L', 'F' };
	char path[64];

	snprintf(path, sizeof(path), "/tmp/rs-btf-%d", getpid());
	write_bytes(path, btf, sizeof(btf));
	assert_int_equal(kernel_features__check_btf(path), 0);
	write_bytes(path, "", 0);
	assert_int_equal(kernel_features__check_btf(path), -ENODATA);	/* empty */
	write_bytes(path, elf, sizeof(elf));
	assert_int_equal(kernel_features__check_btf(path), -ENODATA);	/* not BTF */
	assert_int_equal(kernel_features__check_btf("/nonexistent/btf"), -ENOENT);
	write_bytes(path, "0\n", 2);
	assert_true(kernel_features__kprobes_disarmed(path));
	write_bytes(path, "1\n", 2);
	assert_false(kernel_features__kprobes_disarmed(path));
	assert_false(kernel_features__kprobes_disarmed("/nonexistent/enabled"));
	unlink(path);
}

/*
 * The kernel stack's size from where the user registers sit at its top: the offsets
 * measured in the guests (tests/vm/scenarios/irq-calls.sh prints them), a KASAN
 * kernel's 32 KiB, and none measured.
 */
static void test_kstack_size(void **state)
{
	struct kernel_features f = {};

	assert_int_equal(kernel_features__kstack_size(&f), 0);
	f.user_regs_off = 16216;	/* 6.12 x86-64: a 168-byte struct pt_regs */
	assert_int_equal(kernel_features__kstack_size(&f), 16384);
	f.user_regs_off = 16200;	/* 7.2 x86-64: and 16 bytes of padding */
	assert_int_equal(kernel_features__kstack_size(&f), 16384);
	f.user_regs_off = 16064;	/* 7.2 arm64 */
	assert_int_equal(kernel_features__kstack_size(&f), 16384);
	f.user_regs_off = 32768 - 184;	/* a KASAN kernel's doubled stack */
	assert_int_equal(kernel_features__kstack_size(&f), 32768);
	/* not a stack's: no size rather than a wrong one */
	f.user_regs_off = 3 << 20;
	assert_int_equal(kernel_features__kstack_size(&f), 0);
}

/*
 * A user-only run's calibration holds a uprobe on our own code (and the link probes' links):
 * retsnoop.c releases it only after the sidecar's exec(), which that release would hold up.
 * A kernel calibration without the uprobe link probes holds none. Needs root and uprobes:
 * skipped (never passed) without them.
 */
static void test_holds_uprobes(void **state)
{
	struct kernel_features f = {};
	struct kernel_calib *c = NULL;
	int err;

	assert_false(kernel_features__holds_uprobes(NULL));
	/* its kprobes may or may not attach here: no uprobe either way */
	c = kernel_features__begin(NULL);
	assert_non_null(c);
	assert_false(kernel_features__holds_uprobes(c));
	kernel_features__release(c);

	c = NULL;
	err = kernel_features__detect_user(&f, NULL, &c);
	if (err) {
		kernel_features__release(c);
		skip();	/* not root, or no uprobes here */
	}
	assert_true(kernel_features__holds_uprobes(c));
	kernel_features__release(c);
}

/* The ids of the BPF links this process holds an fd of, up to @max; how many. */
static int held_links(unsigned int *ids, int max)
{
	DIR *d = opendir("/proc/self/fdinfo");
	struct dirent *e;
	char path[300], line[128];
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) && n < max) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%s", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "link_id: %u", &ids[n]) == 1) {
				n++;
				break;
			}
		fclose(f);
	}
	closedir(d);
	return n;
}

/*
 * A user-only calibration's uprobes are let go by a child (a uprobe's release waits for an
 * RCU tasks trace grace period, which this process's exit would wait for): once release
 * returns this process holds none of their links (a later fork, the detach's child, must
 * inherit none), and the child's release ends (each link gone within 5 s). Root and uprobes
 * needed: skipped (never passed) without them.
 */
static void test_release_uprobes_in_child(void **state)
{
	struct kernel_features f = {};
	struct kernel_calib *c = NULL;
	unsigned int before[64], after[64];
	struct timespec step = { .tv_nsec = 20000000 };
	int nb, na, i, j, tries, fd;

	if (kernel_features__detect_user(&f, NULL, &c)) {
		kernel_features__release(c);
		skip();
	}
	nb = held_links(before, 64);
	assert_true(nb > 0);
	kernel_features__release(c);
	na = held_links(after, 64);
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			assert_int_not_equal(after[i], before[j]);
	for (j = 0; j < nb; j++) {
		for (tries = 0; tries < 250; tries++) {
			fd = bpf_link_get_fd_by_id(before[j]);
			if (fd < 0)
				break;
			close(fd);
			nanosleep(&step, NULL);
		}
		assert_true(fd < 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_btf_and_kprobes_checks),
		cmocka_unit_test(test_all_yes),
		cmocka_unit_test(test_old_kernel),
		cmocka_unit_test(test_kstack_size),
		cmocka_unit_test(test_holds_uprobes),
		cmocka_unit_test(test_release_uprobes_in_child),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
