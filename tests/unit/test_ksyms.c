// SPDX-License-Identifier: BSD-2-Clause
/* kallsyms parsing and lookups, on a hand-written excerpt. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "ksyms.h"

static struct ksyms *load_fixture(void)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/discovery/kallsyms", fixtures_dir());
	return ksyms__load(path);
}

static void test_parse_fields(void **state)
{
	struct ksyms *ks = load_fixture();
	const struct ksym *s;

	assert_non_null(ks);
	assert_int_equal(ksyms__cnt(ks), 25);

	s = ksyms__get(ks, 2);
	assert_string_equal(s->name, "__x64_sys_bpf");
	assert_int_equal(s->type, 'T');
	assert_true(s->addr == 0xffffffff81001000ULL);
	assert_null(s->module);

	s = ksyms__get(ks, 19);
	assert_string_equal(s->name, "kvm_read_guest");
	assert_string_equal(s->module, "kvm");
	assert_int_equal(s->type, 't');
	assert_true(s->addr == 0xffffffffc0001000ULL);

	assert_null(ksyms__get(ks, 25));
	assert_true(ksyms__find(ks, "_stext")->addr == 0xffffffff81000000ULL);
	assert_null(ksyms__find(ks, "kvm_read_guest"));	/* vmlinux only */
	ksyms__free(ks);
}

static void test_find_funcs(void **state)
{
	struct ksyms *ks = load_fixture();
	const struct ksym *const *syms;

	assert_non_null(ks);
	/* two static functions of the same name, ordered by address */
	assert_int_equal(ksyms__find_funcs(ks, "dup_static", NULL, &syms), 2);
	assert_true(syms[0]->addr == 0xffffffff81001700ULL);
	assert_true(syms[1]->addr == 0xffffffff81001800ULL);

	/* vmlinux and module functions of the same name are told apart */
	assert_int_equal(ksyms__find_funcs(ks, "common_name", NULL, &syms), 1);
	assert_true(syms[0]->addr == 0xffffffff81002100ULL);
	assert_int_equal(ksyms__find_funcs(ks, "common_name", "mymod", &syms), 1);
	assert_true(syms[0]->addr == 0xffffffffc0001180ULL);
	assert_int_equal(ksyms__find_funcs(ks, "common_name", "kvm", &syms), 0);

	/* weak symbols are functions, data symbols are not */
	assert_int_equal(ksyms__find_funcs(ks, "array_map_varargs", NULL, &syms), 1);
	assert_int_equal(ksyms__find_funcs(ks, "array_map_ops", NULL, &syms), 0);
	assert_int_equal(ksyms__find_funcs(ks, "array_map_data", NULL, &syms), 0);
	assert_int_equal(ksyms__find_funcs(ks, "mymod_data", "mymod", &syms), 0);
	/* clones are plain names */
	assert_int_equal(ksyms__find_funcs(ks, "array_map_helper.isra.0", NULL, &syms), 1);
	assert_int_equal(ksyms__find_funcs(ks, "array_map_helper", NULL, &syms), 0);
	assert_int_equal(ksyms__find_funcs(ks, "zzz", NULL, &syms), 0);
	assert_int_equal(ksyms__find_funcs(ks, "", NULL, &syms), 0);

	/* without the name index: no name lookups, address lookups as before */
	ksyms__drop_name_index(ks);
	assert_int_equal(ksyms__find_funcs(ks, "common_name", NULL, &syms), 0);
	assert_non_null(ksyms__map_addr(ks, 0xffffffff81002100ULL));
	assert_string_equal(ksyms__map_addr(ks, 0xffffffff81002100ULL)->name, "common_name");
	ksyms__free(ks);
}

static void test_sizes_and_addr_lookup(void **state)
{
	struct ksyms *ks = load_fixture();
	const struct ksym *const *syms;
	const struct ksym *s;

	assert_non_null(ks);
	ksyms__find_funcs(ks, "__x64_sys_bpf", NULL, &syms);
	assert_int_equal(syms[0]->size, 0x100);
	ksyms__find_funcs(ks, "__sys_bpf", NULL, &syms);
	assert_int_equal(syms[0]->size, 0x300);
	/* aliases share the distance to the next address */
	ksyms__find_funcs(ks, "_text", NULL, &syms);
	assert_int_equal(syms[0]->size, 0x1000);
	/* the last function has no known size */
	ksyms__find_funcs(ks, "array_map_nobtf", "nobtfmod", &syms);
	assert_int_equal(syms[0]->size, 0);

	s = ksyms__map_addr(ks, 0xffffffff81001123ULL);
	assert_string_equal(s->name, "__sys_bpf");
	s = ksyms__map_addr(ks, 0xffffffff81001000ULL);
	assert_string_equal(s->name, "__x64_sys_bpf");
	/* data symbols never answer an address lookup */
	s = ksyms__map_addr(ks, 0xffffffff82000010ULL);
	assert_string_equal(s->name, "common_name");
	/* first alias in file order */
	s = ksyms__map_addr(ks, 0xffffffff81000010ULL);
	assert_string_equal(s->name, "_stext");
	s = ksyms__map_addr(ks, 0xffffffffc0001190ULL);
	assert_string_equal(s->name, "common_name");
	assert_string_equal(s->module, "mymod");
	assert_null(ksyms__map_addr(ks, 0xffffffff80000000ULL));
	ksyms__free(ks);
}

static void test_parse_odd_input(void **state)
{
	static const char text[] =
		"\n"
		"garbage line\n"
		"ffffffff81000000 T\n"				/* no name */
		"ffffffff81000010 t  spaced_name \t[ mod\n"	/* unterminated module */
		"ffffffff81000020 T last_no_newline";
	struct ksyms *ks = ksyms__parse(text, sizeof(text) - 1);
	const struct ksym *const *syms;

	assert_non_null(ks);
	assert_int_equal(ksyms__cnt(ks), 2);
	assert_string_equal(ksyms__get(ks, 0)->name, "spaced_name");
	assert_string_equal(ksyms__get(ks, 0)->module, " mod");
	assert_int_equal(ksyms__find_funcs(ks, "last_no_newline", NULL, &syms), 1);
	ksyms__free(ks);

	errno = 0;
	assert_null(ksyms__load("/nonexistent/kallsyms"));
	assert_int_equal(errno, ENOENT);
}

/* Addresses read as strtoull(ADDR, 16) reads them, with the fast parse and without it. */
static void test_addr_parse_as_strtoull(void **state)
{
	static const char *const addrs[] = {
		"ffffffff81000000", "FFFFffff81000abc", "0", "1", "0000000000000000",
		"fffffffffffffffff", "00000000000000001", "0x10", "0X1f", "0xg", "+ff", "-1",
		" ff", "\tff", "g1", "ffffffff8100000g",
	};
	char line[64];
	size_t i;

	for (i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		unsigned long long want;
		struct ksyms *ks;
		char *end;
		bool valid;

		want = strtoull(addrs[i], &end, 16);
		valid = end != addrs[i] && (*end == '\0');
		snprintf(line, sizeof(line), "%s T f\n", addrs[i]);
		ks = ksyms__parse(line, strlen(line));
		assert_non_null(ks);
		if (ksyms__cnt(ks) != (valid ? 1u : 0u))
			fail_msg("'%s': %zu symbols, strtoull says %d", addrs[i], ksyms__cnt(ks), valid);
		if (valid && ksyms__get(ks, 0)->addr != want)
			fail_msg("'%s': %llx, strtoull says %llx", addrs[i],
				 (unsigned long long)ksyms__get(ks, 0)->addr, want);
		ksyms__free(ks);
	}
}

/* Functions outside a range only, with their names still right after the file is gone. */
static void test_load_funcs_except(void **state)
{
	static const char txt[] =
		"ffffffffa1000000 T _stext\n"
		"ffffffffa1000100 T __sys_bpf\n"
		"ffffffffa1000200 D some_data\n"
		"ffffffffa1001000 T _etext\n"
		"ffffffffc0001000 t bpf_prog_1111_kentry\t[bpf]\n"
		"ffffffffc0002000 d mod_data\t[kvm]\n"
		"ffffffffc0003000 t vmx_exit\t[kvm]\n";
	char path[] = "/tmp/test_ksyms.XXXXXX";
	int fd = mkstemp(path);
	struct ksyms *ks;
	const struct ksym *k;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, txt, sizeof(txt) - 1), sizeof(txt) - 1);
	close(fd);
	ks = ksyms__load_funcs_except(path, 0xffffffffa1000000ULL, 0xffffffffa1001000ULL);
	unlink(path);
	assert_non_null(ks);
	/* _etext (at the end of the range), the BPF program and the module function */
	assert_int_equal(ksyms__cnt(ks), 3);
	assert_string_equal(ksyms__get(ks, 0)->name, "_etext");
	k = ksyms__map_addr(ks, 0xffffffffc0001010ULL);
	assert_non_null(k);
	assert_string_equal(k->name, "bpf_prog_1111_kentry");
	assert_string_equal(k->module, "bpf");
	k = ksyms__map_addr(ks, 0xffffffffc0003004ULL);
	assert_string_equal(k->name, "vmx_exit");
	assert_string_equal(k->module, "kvm");
	assert_null(ksyms__find(ks, "__sys_bpf"));
	ksyms__free(ks);
}

/*
 * arm64 lists _etext as data ('D'): every table, function-only or whole, keeps it as the
 * end of the kernel's text all the same (symbolization's early table needs it), and nothing else of
 * the data symbols.
 */
static void test_etext_kept(void **state)
{
	static const char txt[] =
		"ffff800080000000 T _text\n"
		"ffff800080010000 T _stext\n"
		"ffff800080010100 T __arm64_sys_bpf\n"
		"ffff800080020000 t last_text_func\n"
		"ffff800081100000 D _etext\n"
		"ffff800081100100 D some_rodata\n"
		"ffff800081e00000 T _sinittext\n";
	char path[] = "/tmp/test_ksyms.XXXXXX";
	int fd = mkstemp(path);
	const struct ksym *k;
	struct ksyms *ks;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, txt, sizeof(txt) - 1), sizeof(txt) - 1);
	close(fd);
	ks = ksyms__load_static_funcs(path);
	unlink(path);
	assert_non_null(ks);
	k = ksyms__find(ks, "_etext");
	assert_non_null(k);
	assert_int_equal(k->type, 'T');
	assert_true(k->addr == 0xffff800081100000ULL);
	assert_null(ksyms__find(ks, "some_rodata"));
	assert_int_equal(ksyms__cnt(ks), 6);
	/* the last function of the text ends where the text does */
	k = ksyms__map_addr(ks, 0xffff800080020010ULL);
	assert_non_null(k);
	assert_string_equal(k->name, "last_text_func");
	assert_true(k->size == 0xffff800081100000ULL - 0xffff800080020000ULL);
	ksyms__free(ks);

	/* the whole-file table too: the same boundary, its other data symbols kept as data */
	ks = ksyms__parse(txt, sizeof(txt) - 1);
	assert_non_null(ks);
	k = ksyms__find(ks, "_etext");
	assert_non_null(k);
	assert_int_equal(k->type, 'T');
	assert_int_equal(ksyms__cnt(ks), 7);
	ksyms__free(ks);
}

/* The function-only table answers every function lookup as the whole-file one does. */
static void test_load_funcs_same_answers(void **state)
{
	static const char *const names[] = {
		"_stext", "_text", "__x64_sys_bpf", "__sys_bpf", "dup_static", "mismatch_fn",
		"array_map_varargs", "array_map_helper.isra.0", "common_name", "array_map_ops",
	};
	static const char *const mods[] = { NULL, "mymod", "kvm", "nobtfmod" };
	const struct ksym *const *a, *const *b;
	struct ksyms *all = load_fixture(), *funcs;
	char path[512];
	size_t i, j, k, n;

	snprintf(path, sizeof(path), "%s/discovery/kallsyms", fixtures_dir());
	funcs = ksyms__load_funcs(path);
	assert_non_null(all);
	assert_non_null(funcs);
	/* 25 lines, 3 of them data symbols */
	assert_int_equal(ksyms__cnt(funcs), 22);
	for (i = 0; i < ksyms__cnt(funcs); i++)
		assert_true(ksym__is_func(ksyms__get(funcs, i)->type));
	assert_true(ksyms__find(funcs, "_stext")->addr == 0xffffffff81000000ULL);
	assert_true(ksyms__find(funcs, "_etext") == NULL);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		for (j = 0; j < sizeof(mods) / sizeof(mods[0]); j++) {
			n = ksyms__find_funcs(all, names[i], mods[j], &a);
			assert_int_equal(ksyms__find_funcs(funcs, names[i], mods[j], &b), n);
			for (k = 0; k < n; k++) {
				assert_true(a[k]->addr == b[k]->addr);
				assert_true(a[k]->size == b[k]->size);
			}
		}
	}
	assert_ptr_equal(ksyms__map_addr(funcs, 0xffffffff81001123ULL),
			 ksyms__find_funcs(funcs, "__sys_bpf", NULL, &b) ? b[0] : NULL);
	ksyms__free(all);
	ksyms__free(funcs);
}

/*
 * Thousands of names, as a kernel has: every one found, duplicates in address order even
 * when the file lists them out of order (module symbols), absent names not found.
 */
static void test_many_names(void **state)
{
	const size_t n = 6000;
	const struct ksym *const *syms;
	char *text = malloc(n * 64), name[32];
	struct ksyms *ks;
	size_t i, len = 0;

	assert_non_null(text);
	for (i = 0; i < n; i++) {
		/* every 7th name twice, the second copy at a lower address, later in the file */
		len += sprintf(text + len, "%016zx t fn_%zu\n", 0x10000 + i * 0x100, i);
		if (i % 7 == 0)
			len += sprintf(text + len, "%016zx t fn_%zu\n", 0x1000 + i, i);
	}
	ks = ksyms__parse(text, len);
	free(text);
	assert_non_null(ks);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "fn_%zu", i);
		if (i % 7 == 0) {
			assert_int_equal(ksyms__find_funcs(ks, name, NULL, &syms), 2);
			assert_true(syms[0]->addr == 0x1000 + i);
			assert_true(syms[1]->addr == 0x10000 + i * 0x100);
		} else {
			assert_int_equal(ksyms__find_funcs(ks, name, NULL, &syms), 1);
			assert_true(syms[0]->addr == 0x10000 + i * 0x100);
		}
		assert_int_equal(ksyms__find_funcs(ks, name, "mod", &syms), 0);
	}
	assert_int_equal(ksyms__find_funcs(ks, "fn_6000", NULL, &syms), 0);
	/* the out-of-order copies still map by address */
	assert_string_equal(ksyms__map_addr(ks, 0x1000 + 14)->name, "fn_14");
	assert_string_equal(ksyms__map_addr(ks, 0x10000 + 5 * 0x100 + 4)->name, "fn_5");
	ksyms__free(ks);
}

/*
 * A file read in chunks answers as the same text parsed whole: lines across the reader's
 * 64 kB reads, a line longer than its buffer (junk, skipped), a last line without a
 * newline.
 */
static void test_load_across_reads(void **state)
{
	const size_t n = 9000, junk = 100000;
	char *text = malloc(n * 64 + junk + 64), path[] = "/tmp/test_ksyms.XXXXXX";
	const struct ksym *const *a, *const *b;
	struct ksyms *whole, *read;
	size_t i, len = 0;
	char name[32];
	int fd;

	assert_non_null(text);
	for (i = 0; i < n; i++) {
		if (i == n / 2) {
			memset(text + len, 'x', junk);
			len += junk;
			text[len++] = '\n';
		}
		len += sprintf(text + len, "%016zx %c fn_%zu%s", 0x10000 + i * 0x100,
			       i % 3 ? 't' : 'T', i, i + 1 < n ? "\n" : "");
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), len);
	close(fd);
	read = ksyms__load_funcs(path);
	unlink(path);
	whole = ksyms__parse(text, len);
	free(text);
	assert_non_null(read);
	assert_non_null(whole);
	assert_int_equal(ksyms__cnt(read), n);
	assert_int_equal(ksyms__cnt(whole), n);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "fn_%zu", i);
		assert_int_equal(ksyms__find_funcs(read, name, NULL, &a), 1);
		assert_int_equal(ksyms__find_funcs(whole, name, NULL, &b), 1);
		assert_true(a[0]->addr == b[0]->addr);
		assert_int_equal(a[0]->type, b[0]->type);
	}
	ksyms__free(read);
	ksyms__free(whole);
}

static struct ksyms *load_text(const char *txt)
{
	char path[] = "/tmp/test_ksyms.XXXXXX";
	int fd = mkstemp(path);
	struct ksyms *ks;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, txt, strlen(txt)), strlen(txt));
	close(fd);
	ks = ksyms__load_static_funcs(path);
	unlink(path);
	assert_non_null(ks);
	return ks;
}

/*
 * The kernel text's bounds, found by name: from a parsed table, kept through the name
 * index's drop, from an image; arm64's _etext is a data symbol kept as text; none without
 * _etext, or when it comes first.
 */
static void test_text_bounds(void **state)
{
	static const char arm64[] =
		"ffff800080000000 T _text\n"
		"ffff800080010000 T _stext\n"
		"ffff800080010100 T __arm64_sys_bpf\n"
		"ffff800081100000 D _etext\n"
		"ffff800081e00000 T _sinittext\n";
	static const char x86[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 t dup_static\n"
		"ffffffff81000180 t dup_static\n"
		"ffffffff8220bb08 T _etext\n"
		"ffffffffc0000000 t _etext\t[kvm]\n";
	static const char none[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 T vfs_read\n";
	static const char reversed[] =
		"ffffffff81000000 T _etext\n"
		"ffffffff81000100 T _stext\n";
	__u64 a, b, c, d;
	struct ksyms *ks;

	ks = load_text(arm64);
	assert_true(ksyms__text_bounds(ks, &a, &b));
	assert_true(a == 0xffff800080010000ULL && b == 0xffff800081100000ULL);
	ksyms__free(ks);

	/* by name through the index; kept through the index's drop; from an image the same */
	ks = load_text(x86);
	assert_true(ksyms__text_bounds(ks, &a, &b));
	assert_true(a == 0xffffffff81000000ULL && b == 0xffffffff8220bb08ULL);
	ksyms__free(ks);
	ks = load_text(x86);
	ksyms__drop_name_index(ks);
	assert_true(ksyms__text_bounds(ks, &c, &d));
	assert_true(c == a && d == b);
	{
		char path[] = "/tmp/test_ksyms_img.XXXXXX";
		int fd = mkstemp(path);
		FILE *f = fdopen(fd, "w");
		struct ksyms *img;

		ksyms__free(ks);
		ks = load_text(x86);
		assert_non_null(f);
		assert_int_equal(ksyms__write_image(ks, f), 0);
		fclose(f);
		img = ksyms__load_image(path);
		unlink(path);
		assert_non_null(img);
		c = d = 0;
		assert_true(ksyms__text_bounds(img, &c, &d));
		assert_true(c == a && d == b);
		ksyms__free(img);
	}
	ksyms__free(ks);

	ks = load_text(none);
	assert_false(ksyms__text_bounds(ks, &a, &b));
	assert_true(a == 0 && b == 0);
	ksyms__free(ks);
	ks = load_text(reversed);
	assert_false(ksyms__text_bounds(ks, &a, &b));
	ksyms__free(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_fields),
		cmocka_unit_test(test_find_funcs),
		cmocka_unit_test(test_load_funcs_same_answers),
		cmocka_unit_test(test_load_across_reads),
		cmocka_unit_test(test_many_names),
		cmocka_unit_test(test_sizes_and_addr_lookup),
		cmocka_unit_test(test_parse_odd_input),
		cmocka_unit_test(test_addr_parse_as_strtoull),
		cmocka_unit_test(test_load_funcs_except),
		cmocka_unit_test(test_etext_kept),
		cmocka_unit_test(test_text_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
