// SPDX-License-Identifier: BSD-2-Clause
/*
 * The tracer's BPF object as built into retsnoop: no CO-RE relocations. With none, libbpf
 * loads it without parsing the vmlinux BTF a second time (feature detection already read
 * the offsets it needs). A struct field read through vmlinux.h's relocatable types would
 * quietly bring that parse back; this test names the cost instead.
 * (What the object does is proven in the test VM.)
 */
#include <string.h>
#include <gelf.h>
#include <libelf.h>
#include "unit.h"
#include "retsnoop.skel.h"

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

static void test_no_core_relocations(void **state)
{
	struct btf_ext_hdr h;
	const void *bytes;
	Elf_Data *ext;
	size_t sz;
	Elf *elf;

	(void)state;
	bytes = retsnoop__elf_bytes(&sz);
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
		fprintf(stderr, "retsnoop.bpf.c has %u bytes of CO-RE relocation records: read "
			"kernel fields through offsets from feature detection instead\n",
			h.core_relo_len);
	assert_int_equal(h.core_relo_len, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_core_relocations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
