// SPDX-License-Identifier: BSD-2-Clause
/*
 * proc_maps: the kernel's own /proc/self/maps, and hand-written texts for each rule of the
 * parser (deleted files, anonymous and pseudo mappings, malformed and unordered lines,
 * limits), then lookups at the edges of mappings.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "proc_maps.h"

static int parse(const char *text, struct proc_maps **m)
{
	return proc_maps__parse(text, strlen(text), NULL, m);
}

/* Our own code is in a mapping of our own executable, executable and private. */
static void test_self(void **state)
{
	struct proc_maps *m = NULL;
	const struct proc_map *pm;
	char exe[4096];
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_int_equal(proc_maps__read(getpid(), NULL, &m), 0);
	assert_true(proc_maps__cnt(m) > 5);
	pm = proc_maps__find(m, (__u64)(unsigned long)test_self);
	assert_non_null(pm);
	assert_string_equal(pm->path, exe);
	assert_int_equal(pm->prot & (PROC_MAP_R | PROC_MAP_X | PROC_MAP_SHARED),
			 PROC_MAP_R | PROC_MAP_X);
	assert_false(pm->deleted);
	/* a stack variable is in [stack] */
	pm = proc_maps__find(m, (__u64)(unsigned long)&n);
	assert_non_null(pm);
	assert_string_equal(pm->path, "[stack]");
	proc_maps__free(m);
}

static const char sample[] =
	"55d0c0a00000-55d0c0a01000 r--p 00000000 fe:01 1234                       /usr/bin/prog with space\n"
	"55d0c0a01000-55d0c0a02000 r-xp 00001000 fe:01 1234                       /usr/bin/prog with space\n"
	"55d0c1000000-55d0c1021000 rw-p 00000000 00:00 0                          [heap]\n"
	"7f0000000000-7f0000001000 rw-s 00000000 00:05 77                         /memfd:x (deleted)\n"
	"7f0000001000-7f0000002000 rw-p 00000000 00:00 0 \n"
	"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";

static void test_fields(void **state)
{
	struct proc_maps *m = NULL;
	const struct proc_map *pm;

	assert_int_equal(parse(sample, &m), 0);
	assert_int_equal(proc_maps__cnt(m), 7);
	pm = proc_maps__get(m, 1);
	assert_int_equal(pm->start, 0x55d0c0a01000ULL);
	assert_int_equal(pm->end, 0x55d0c0a02000ULL);
	assert_int_equal(pm->pgoff, 0x1000);
	assert_int_equal(pm->dev_major, 0xfe);
	assert_int_equal(pm->dev_minor, 1);
	assert_int_equal(pm->inode, 1234);
	assert_int_equal(pm->prot, PROC_MAP_R | PROC_MAP_X);
	assert_string_equal(pm->path, "/usr/bin/prog with space");
	pm = proc_maps__get(m, 3);
	assert_true(pm->deleted);
	assert_string_equal(pm->path, "/memfd:x");
	assert_int_equal(pm->prot, PROC_MAP_R | PROC_MAP_W | PROC_MAP_SHARED);
	/* anonymous: no path, even with the trailing space the kernel prints */
	assert_null(proc_maps__get(m, 4)->path);
	assert_string_equal(proc_maps__get(m, 6)->path, "[vsyscall]");
	assert_null(proc_maps__get(m, 7));
	proc_maps__free(m);
}

static void test_find_edges(void **state)
{
	struct proc_maps *m = NULL;

	assert_int_equal(parse(sample, &m), 0);
	assert_null(proc_maps__find(m, 0x55d0c09fffffULL));
	assert_ptr_equal(proc_maps__find(m, 0x55d0c0a00000ULL), proc_maps__get(m, 0));
	assert_ptr_equal(proc_maps__find(m, 0x55d0c0a00fffULL), proc_maps__get(m, 0));
	assert_ptr_equal(proc_maps__find(m, 0x55d0c0a01000ULL), proc_maps__get(m, 1));
	assert_null(proc_maps__find(m, 0x55d0c0a02000ULL));	/* end is exclusive */
	assert_ptr_equal(proc_maps__find(m, 0xffffffffff600800ULL), proc_maps__get(m, 6));
	assert_null(proc_maps__find(NULL, 0x1000));
	proc_maps__free(m);
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"zz-1000 r-xp 00000000 00:00 0 /x\n",		/* not hex */
		"1000-2000 r-xq 00000000 00:00 0 /x\n",		/* neither p nor s */
		"1000-2000 rwz- 00000000 00:00 0 /x\n",		/* bad permission */
		"2000-1000 r-xp 00000000 00:00 0 /x\n",		/* end before start */
		"1000-1000 r-xp 00000000 00:00 0 /x\n",		/* empty */
		"1000-2000 r-xp 00000000 00:00\n",		/* no inode */
		"1000-2000 r-xp 00000000 0000 0 /x\n",		/* device without ':' */
		"10000000000000000-10000000000000001 r-xp 0 0:0 0 /x\n",	/* 17 digits */
		"1000-2000 r-xp 0 0:0 99999999999999999999999 /x\n",	/* inode overflows */
		"3000-4000 r-xp 0 0:0 0 /a\n1000-2000 r-xp 0 0:0 0 /b\n",	/* unordered */
		"1000-3000 r-xp 0 0:0 0 /a\n2000-4000 r-xp 0 0:0 0 /b\n",	/* overlapping */
		"1000-2000 r-xp 0 0:0 0 /a\n\n3000-4000 r-xp 0 0:0 0 /b\n",	/* empty line inside */
		"1000-2000 r-xp",					/* cut short */
	};
	struct proc_maps *m = NULL;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = NULL;
		if (parse(bad[i], &m) != -EINVAL)
			fail_msg("accepted: %s", bad[i]);
		assert_null(m);
	}
	/* a NUL inside a path */
	static const char nul[] = "1000-2000 r-xp 0 0:0 0 /a\0b\n";

	assert_int_equal(proc_maps__parse(nul, sizeof(nul) - 1, NULL, &m), -EINVAL);
}

static void test_limits_and_opts(void **state)
{
	struct proc_maps_opts o = { .sz = sizeof(o), .max_entries = 2 };
	struct { struct proc_maps_opts o; long future; } big = { { .sz = sizeof(big) } };
	struct proc_maps *m = NULL;

	assert_int_equal(proc_maps__parse(sample, strlen(sample), &o, &m), -E2BIG);
	o.max_entries = 7;
	assert_int_equal(proc_maps__parse(sample, strlen(sample), &o, &m), 0);
	proc_maps__free(m);
	/* a newer caller's unknown non-zero field is refused, zero is fine */
	big.future = 1;
	assert_int_equal(proc_maps__parse(sample, strlen(sample), &big.o, &m), -EINVAL);
	big.future = 0;
	assert_int_equal(proc_maps__parse(sample, strlen(sample), &big.o, &m), 0);
	proc_maps__free(m);
	/* empty text: no mappings; the last line may lack its newline */
	assert_int_equal(proc_maps__parse("", 0, NULL, &m), 0);
	assert_int_equal(proc_maps__cnt(m), 0);
	proc_maps__free(m);
	assert_int_equal(parse("1000-2000 r-xp 0 0:0 0 /a", &m), 0);
	assert_string_equal(proc_maps__get(m, 0)->path, "/a");
	proc_maps__free(m);
	/* no such process, a bad pid */
	assert_int_equal(proc_maps__read(0, NULL, &m), -EINVAL);
	o.proc_root = "/nonexistent-proc";
	assert_int_equal(proc_maps__read(1, &o, &m), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_find_edges),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_limits_and_opts),
	};

	return cmocka_run_group_tests_name("proc_maps", tests, NULL, NULL);
}
