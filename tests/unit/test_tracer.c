// SPDX-License-Identifier: BSD-2-Clause
/*
 * The BPF objects as built into retsnoop, the tracer's and feature detection's: no CO-RE
 * relocations. With none, libbpf loads them without reading and parsing the vmlinux BTF
 * (function discovery's copy gives feature detection the answers, feature detection the
 * tracer its offsets). A struct field read through vmlinux.h's relocatable types would
 * quietly bring that parse back; this test names the cost instead.
 * (What the objects do is proven in the test VM.) And the session table's default size.
 */
#include <string.h>
#include <gelf.h>
#include <libelf.h>
#include "unit.h"
#include "retsnoop.skel.h"
#include "calib_feat.skel.h"
#include "tracer.h"

/* .BTF.ext's header: libbpf's layout, CO-RE records since its first version (hdr_len 32) */
struct btf_ext_hdr {
	__u16 magic;
	__u8 version;
	__u8 flags;
	__u32 hdr_len;
	__u32 func_info_off, func_info_len;
	__u32 line_info_off, line_info_len;
	__u32 core_relo_off, core_relo_len;
};

static Elf_Data *section_data(Elf *elf, const char *want)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			return NULL;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, want))
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

static void check_no_core_relocations(const char *name, const void *bytes, size_t sz)
{
	struct btf_ext_hdr h;
	Elf_Data *ext;
	Elf *elf;

	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	elf = elf_memory((char *)bytes, sz);
	assert_non_null(elf);
	/* the object has .BTF.ext (line info at least): the check below reads a real header */
	ext = section_data(elf, ".BTF.ext");
	assert_non_null(ext);
	assert_true(ext->d_size >= sizeof(h));
	memcpy(&h, ext->d_buf, sizeof(h));
	elf_end(elf);
	assert_int_equal(h.magic, 0xeb9f);
	assert_true(h.hdr_len >= sizeof(h));
	assert_true(h.line_info_len > 0);
	if (h.core_relo_len)
		fprintf(stderr, "%s has %u bytes of CO-RE relocation records: read kernel fields "
			"through offsets from the vmlinux BTF (kernel_features_btf.c) instead\n",
			name, h.core_relo_len);
	assert_int_equal(h.core_relo_len, 0);
}

static void test_tracer_no_core_relocations(void **state)
{
	const void *bytes;
	size_t sz;

	(void)state;
	bytes = retsnoop__elf_bytes(&sz);
	check_no_core_relocations("retsnoop.bpf.c", bytes, sz);
}

static void test_calib_no_core_relocations(void **state)
{
	const void *bytes;
	size_t sz;

	(void)state;
	bytes = calib_feat__elf_bytes(&sz);
	check_no_core_relocations("calib_feat.bpf.c", bytes, sz);
}

/*
 * The session table's default size: four slots a thread alive, a power of 2 between
 * SESSION_TABLE_MIN and SESSION_TABLE_DEFAULT; the largest when the count is not known.
 */
static void test_default_table_slots(void **state)
{
	static const struct { unsigned long threads; __u32 slots; } cases[] = {
		{ 0, 4096 }, { 1, 1024 }, { 93, 1024 }, { 256, 1024 }, { 257, 2048 },
		{ 512, 2048 }, { 513, 4096 }, { 1024, 4096 }, { 1025, 4096 }, { 250000, 4096 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		__u32 n = tracer__default_table_slots(cases[i].threads);

		if (n != cases[i].slots)
			fprintf(stderr, "%lu threads: %u slots, want %u\n", cases[i].threads, n,
				cases[i].slots);
		assert_int_equal(n, cases[i].slots);
		assert_int_equal(n & (n - 1), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_table_slots),
		cmocka_unit_test(test_tracer_no_core_relocations),
		cmocka_unit_test(test_calib_no_core_relocations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
