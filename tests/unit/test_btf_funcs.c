// SPDX-License-Identifier: BSD-2-Clause
/*
 * The vmlinux BTF functions' digest (btf_funcs.c) of the host kernel's own BTF: every FUNC
 * in id order with the facts func_types gives; another build's copy, a damaged or cut
 * one, refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "unit.h"
#include "btf_funcs.h"
#include "func_types.h"

/* btf_funcs.c's header: magic, the build's device, inode, size and mtime, two counts */
#define DIGEST_HDR_SZ (8 + 4 * 8 + 2 * 4)

static char dir[] = "/tmp/retsnoop-btffuncs-XXXXXX";
static char path[256];
static void *data;
static size_t len;
static struct btf *kbtf;

static int setup(void **state)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/btf-funcs", dir);
	/* NULL: this host has no BTF; the tests say skipped, never passed */
	kbtf = btf__load_vmlinux_btf();
	if (!kbtf)
		return 0;
	return btf_funcs__build(kbtf, NULL, &data, &len);
}

static int teardown(void **state)
{
	unlink(path);
	rmdir(dir);
	free(data);
	btf__free(kbtf);
	return 0;
}

static void write_file(const void *p, size_t n)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	fclose(f);
}

static void test_every_func(void **state)
{
	__u32 id, n, i = 0;
	struct btf_func_facts facts;
	struct btf_funcs *bf;

	if (!kbtf)
		skip();
	write_file(data, len);
	bf = btf_funcs__open(path, NULL);
	assert_non_null(bf);
	n = btf__type_cnt(kbtf);
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(kbtf, id);
		const char *name;
		int args;

		if (!btf_is_func(t))
			continue;
		name = btf__name_by_offset(kbtf, t->name_off);
		assert_true(i < btf_funcs__cnt(bf));
		btf_funcs__get(bf, i++, &facts);
		assert_string_equal(facts.name, name);
		assert_int_equal(facts.btf_id, id);
		assert_int_equal(facts.flags, func_types__flags(kbtf, id, name));
		args = func_types__arg_cnt(kbtf, id);
		assert_int_equal(facts.arg_cnt, args < 0 ? 0 : args);
	}
	assert_int_equal(btf_funcs__cnt(bf), i);
	/* the host's kernel has thousands of functions */
	assert_true(i > 1000);
	btf_funcs__free(bf);
}

static void test_refused(void **state)
{
	struct btf_funcs_opts o = { .sz = sizeof(o), .exe = "/bin/sh" };
	char *bad;

	if (!kbtf)
		skip();
	/* another build: its flags may follow other rules */
	write_file(data, len);
	errno = 0;
	assert_null(btf_funcs__open(path, &o));
	assert_int_equal(errno, ESTALE);
	/* cut short */
	write_file(data, len - 1);
	errno = 0;
	assert_null(btf_funcs__open(path, NULL));
	assert_int_equal(errno, EINVAL);
	write_file(data, 16);
	errno = 0;
	assert_null(btf_funcs__open(path, NULL));
	assert_int_equal(errno, EINVAL);
	/* the names' last byte not a NUL: a name would run off the end */
	bad = malloc(len);
	assert_non_null(bad);
	memcpy(bad, data, len);
	bad[len - 1] = 'x';
	write_file(bad, len);
	errno = 0;
	assert_null(btf_funcs__open(path, NULL));
	assert_int_equal(errno, EINVAL);
	/* an entry's name beyond the names: the first entry's name offset, after the header */
	memcpy(bad, data, len);
	memset(bad + DIGEST_HDR_SZ, 0xff, 4);
	write_file(bad, len);
	errno = 0;
	assert_null(btf_funcs__open(path, NULL));
	assert_int_equal(errno, EINVAL);
	/* not a digest */
	memcpy(bad, data, len);
	bad[0] ^= 1;
	write_file(bad, len);
	errno = 0;
	assert_null(btf_funcs__open(path, NULL));
	assert_int_equal(errno, EINVAL);
	free(bad);
	/* none */
	unlink(path);
	errno = 0;
	assert_null(btf_funcs__open(path, NULL));
	assert_int_equal(errno, ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_func),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests_name("btf_funcs", tests, setup, teardown);
}
