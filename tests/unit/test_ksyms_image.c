// SPDX-License-Identifier: BSD-2-Clause
/* The symbol table image: what a load restores, and the damaged images it refuses. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "ksyms.h"
#include "ksyms_int.h"

static const char text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 t dup_static\n"
	"ffffffff81000180 t dup_static\n"
	"ffffffff81000200 T __x64_sys_bpf\n"
	"ffffffff81000300 W weak_one\n"
	"ffffffff81001000 T _etext\n"
	"ffffffff82000000 D some_data\n"
	"ffffffffc0000100 T mod_other\t[kvm]\n"
	"ffffffffc0000000 t mod_func\t[kvm]\n"
	"ffffffffc0000200 t dup_static\t[kvm]\n"
	"ffffffffc0010000 t xfs_func\t[xfs]\n"
	"ffffffffc0100000 t bpf_prog_6deef7357e7b4530_sd_fw_ingress\t[bpf]\n";

static char path[64];

static int setup(void **state)
{
	int fd;

	strcpy(path, "/tmp/retsnoop-ksyms-image.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	unlink(path);
	return 0;
}

static void write_image(const struct ksyms *ks)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(ksyms__write_image(ks, f), 0);
	assert_int_equal(fclose(f), 0);
}

static struct ksyms *load_text(void)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return ksyms__load_static_funcs(path);
}

/* Everything a lookup reads is what parsing the kept lines gives */
static void test_roundtrip(void **state)
{
	struct ksyms *want = load_text(), *got;
	const struct ksym *const *a, *const *b;
	size_t i, n, m;

	/* the reference: the text read as discovery reads kallsyms, BPF programs left out */
	assert_non_null(want);
	write_image(want);
	got = ksyms__load_image(path);
	assert_non_null(got);

	assert_int_equal(ksyms__cnt(got), ksyms__cnt(want));
	assert_int_equal(ksyms__cnt(got), 11);
	for (i = 0; i < ksyms__cnt(want); i++) {
		const struct ksym *x = ksyms__get(want, i), *y = ksyms__get(got, i);

		assert_int_equal(x->addr, y->addr);
		assert_int_equal(x->size, y->size);
		assert_int_equal(x->type, y->type);
		assert_string_equal(x->name, y->name);
		if (x->module)
			assert_string_equal(x->module, y->module);
		else
			assert_null(y->module);
	}
	/* lookups by name, several instances and modules */
	n = ksyms__find_funcs(want, "dup_static", NULL, &a);
	m = ksyms__find_funcs(got, "dup_static", NULL, &b);
	assert_int_equal(n, 2);
	assert_int_equal(m, 2);
	for (i = 0; i < n; i++)
		assert_int_equal(a[i]->addr, b[i]->addr);
	assert_int_equal(ksyms__find_funcs(got, "dup_static", "kvm", &b), 1);
	assert_int_equal(b[0]->addr, 0xffffffffc0000200ULL);
	assert_int_equal(ksyms__find_funcs(got, "xfs_func", "xfs", &b), 1);
	assert_int_equal(ksyms__find_funcs(got, "bpf_prog_6deef7357e7b4530_sd_fw_ingress", "bpf", &b), 0);
	assert_int_equal(ksyms__find_funcs(got, "some_data", NULL, &b), 0);
	/* lookups by address */
	assert_string_equal(ksyms__map_addr(got, 0xffffffff81000250ULL)->name, "__x64_sys_bpf");
	assert_string_equal(ksyms__map_addr(got, 0xffffffff81000000ULL)->name, "_stext");
	assert_string_equal(ksyms__map_addr(got, 0xffffffffc0000050ULL)->name, "mod_func");
	assert_string_equal(ksyms__find(got, "_etext")->name, "_etext");
	assert_false(ksyms__addrs_hidden(got));
	ksyms__free(want);
	ksyms__free(got);
}

/* How many of @ks' symbols are filled in (struct ksym made from the image's record) */
static size_t filled(const struct ksyms *ks)
{
	size_t i, n = 0;

	for (i = 0; i < ks->cnt; i++)
		n += ks->syms[i].name != NULL;
	return n;
}

/*
 * A loaded image is searched where it is mapped: a symbol becomes a struct ksym only when
 * a lookup hands it out, and every lookup answers as the parsed table does.
 */
static void test_lazy(void **state)
{
	const struct ksym *const *a, *const *b;
	struct ksyms *want, *got;
	char name[32], *buf;
	size_t i, len = 0, n;
	FILE *f;

	/* 3000 functions, each name twice (two static functions) and once in a module */
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	for (i = 0; i < 3000; i++) {
		fprintf(f, "%016llx t fn_%zu\n", 0xffffffff81000000ULL + i * 0x40, i);
		fprintf(f, "%016llx t fn_%zu\n", 0xffffffff82000000ULL + i * 0x40, i);
		fprintf(f, "%016llx t fn_%zu\t[mod]\n", 0xffffffffc0000000ULL + i * 0x40, i);
	}
	fclose(f);
	want = ksyms__parse(buf, len);
	free(buf);
	assert_non_null(want);
	write_image(want);
	got = ksyms__load_image(path);
	assert_non_null(got);
	assert_int_equal(filled(got), 0);

	/* by name: the two instances, filled, and only they */
	assert_int_equal(ksyms__find_funcs(got, "fn_1234", NULL, &b), 2);
	assert_int_equal(filled(got), 2);
	assert_int_equal(ksyms__find_funcs(want, "fn_1234", NULL, &a), 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(a[i]->addr, b[i]->addr);
		assert_string_equal(b[i]->name, "fn_1234");
		assert_null(b[i]->module);
	}
	assert_int_equal(ksyms__find_funcs(got, "fn_1234", "mod", &b), 1);
	assert_string_equal(b[0]->module, "mod");
	assert_int_equal(filled(got), 3);
	/* the answers agree for every name, and by address for every symbol */
	for (i = 0; i < 3000; i += 7) {
		snprintf(name, sizeof(name), "fn_%zu", i);
		n = ksyms__find_funcs(want, name, NULL, &a);
		assert_int_equal(ksyms__find_funcs(got, name, NULL, &b), n);
		assert_int_equal(b[n - 1]->addr, a[n - 1]->addr);
	}
	for (i = 0; i < ksyms__cnt(want); i++) {
		const struct ksym *x = ksyms__get(want, i);
		const struct ksym *y = ksyms__map_addr(got, x->addr + 0x3f);

		assert_non_null(y);
		assert_int_equal(y->addr, x->addr);
		assert_string_equal(y->name, x->name);
		assert_int_equal(y->size, x->size);
	}
	assert_null(ksyms__map_addr(got, 0xffffffff80000000ULL));
	/* without the name index: nothing by name, still everything by address */
	ksyms__drop_name_index(got);
	assert_int_equal(ksyms__find_funcs(got, "fn_1", NULL, &b), 0);
	assert_string_equal(ksyms__map_addr(got, 0xffffffff81000041ULL)->name, "fn_1");
	ksyms__free(want);
	ksyms__free(got);
}

/* Only a table of functions with its name index can be written */
static void test_refused(void **state)
{
	struct ksyms *all = ksyms__parse(text, sizeof(text) - 1), *funcs = load_text();
	FILE *f = fopen(path, "w");

	assert_non_null(all);
	assert_non_null(funcs);
	assert_int_equal(ksyms__write_image(all, f), -EINVAL);
	ksyms__drop_name_index(funcs);
	assert_int_equal(ksyms__write_image(funcs, f), -EINVAL);
	fclose(f);
	ksyms__free(all);
	ksyms__free(funcs);
}

/* A damaged image is refused, never half read */
static void test_damaged(void **state)
{
	struct ksyms *src = load_text();
	char *img;
	size_t len;
	FILE *f;
	int i;
	/* byte offsets: magic, a count, a record's name offset, an index, the last NUL */
	static const long spots[] = { 0, 8, 24 + 16, -1, -2 };

	assert_non_null(src);
	write_image(src);
	img = unit_read_file(path, &len);

	for (i = 0; i < (int)(sizeof(spots) / sizeof(spots[0])); i++) {
		long at = spots[i] == -1 ? 24 + (long)ksyms__cnt(src) * 32 :
			  spots[i] == -2 ? (long)len - 1 : spots[i];
		char saved = img[at];

		img[at] = spots[i] == -1 ? 0x7f : (char)0xff;
		unit_write_file(path, img, len);
		errno = 0;
		assert_null(ksyms__load_image(path));
		assert_int_equal(errno, EINVAL);
		img[at] = saved;
	}
	/* cut short */
	unit_write_file(path, img, len - 5);
	errno = 0;
	assert_null(ksyms__load_image(path));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ksyms__check_image(path), -EINVAL);
	/* kallsyms text is not an image */
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	assert_null(ksyms__load_image(path));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ksyms__check_image(path), -EINVAL);
	/* the whole image is */
	write_image(src);
	assert_int_equal(ksyms__check_image(path), 0);
	free(img);
	ksyms__free(src);
}

/*
 * An index out of range is found wherever it is: each index of both orders in turn, in
 * an image whose 21 functions put them in full groups of eight and in the rest after.
 */
static void test_damaged_index_each(void **state)
{
	struct ksyms *src;
	size_t cnt, i;
	char *img;
	size_t len;
	long first;
	FILE *f;
	int k;

	f = fopen(path, "w");
	assert_non_null(f);
	for (k = 0; k < 21; k++)
		fprintf(f, "ffffffff81%06x T fn_%02d\n", 0x100 * (21 - k), k);
	fclose(f);
	src = ksyms__load_static_funcs(path);
	assert_non_null(src);
	cnt = ksyms__cnt(src);
	assert_int_equal(cnt, 21);	/* all functions: both orders hold each */
	write_image(src);
	img = unit_read_file(path, &len);
	first = 24 + (long)cnt * 32;	/* the by-address order, then the by-name order */
	assert_true(first + (long)(2 * cnt * 4) <= (long)len);

	for (i = 0; i < 2 * cnt; i++) {
		long at = first + (long)i * 4 + 3;	/* the high byte, little-endian */
		char saved = img[at];
		struct ksyms *got;

		img[at] = 0x01;
		unit_write_file(path, img, len);
		errno = 0;
		got = ksyms__load_image(path);
		if (got)
			fail_msg("index %zu of %zu out of range, the image was taken", i, 2 * cnt);
		assert_int_equal(errno, EINVAL);
		img[at] = saved;
	}
	/* unchanged, it loads */
	unit_write_file(path, img, len);
	ksyms__free(src);
	src = ksyms__load_image(path);
	assert_non_null(src);
	free(img);
	ksyms__free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lazy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_index_each, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
