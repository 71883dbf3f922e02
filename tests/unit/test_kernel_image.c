// SPDX-License-Identifier: BSD-2-Clause
/* Build IDs and .text addresses, on an ELF linked here with a chosen build ID. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "kernel_image.h"

static char elf_path[] = "/tmp/retsnoop-kimg-XXXXXX";

static int build_elf(void **state)
{
	char cmd[512];
	int fd = mkstemp(elf_path);

	if (fd < 0)
		return -1;
	close(fd);
	/* a fixed build ID makes the expected value independent of the toolchain */
	snprintf(cmd, sizeof(cmd),
		 "echo 'int main(void){return 0;}' | cc -x c - -o %s "
		 "-Wl,--build-id=0x0123456789abcdef0011 -Wl,-Ttext=0x500000 2>/dev/null", elf_path);
	return system(cmd) == 0 ? 0 : -1;
}

static int remove_elf(void **state)
{
	unlink(elf_path);
	return 0;
}

static void test_build_id(void **state)
{
	static const unsigned char want[] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x00, 0x11 };
	unsigned char id[BUILD_ID_MAX];

	assert_int_equal(kernel_image__build_id(elf_path, id, sizeof(id)), sizeof(want));
	assert_memory_equal(id, want, sizeof(want));
	assert_int_equal(kernel_image__build_id(elf_path, id, 4), -E2BIG);
	assert_int_equal(kernel_image__build_id("/nonexistent", id, sizeof(id)), -ENOENT);
	assert_true(kernel_image__build_id("/etc/hostname", id, sizeof(id)) < 0);	/* not ELF */
}

static void test_text_addr(void **state)
{
	__u64 addr = 0;

	assert_int_equal(kernel_image__text_addr(elf_path, &addr), 0);
	assert_int_equal(addr, 0x500000);
}

static void test_notes_parsing(void **state)
{
	/* an empty-named note, then "Linux" version note, then the GNU build ID */
	static const unsigned char notes[] = {
		0, 0, 0, 0, 4, 0, 0, 0, 7, 0, 0, 0, 1, 2, 3, 4,
		6, 0, 0, 0, 4, 0, 0, 0, 1, 1, 0, 0, 'L', 'i', 'n', 'u', 'x', 0, 0, 0, 9, 9, 9, 9,
		4, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 0xaa, 0xbb, 0xcc, 0,
	};
	unsigned char id[BUILD_ID_MAX];

	assert_int_equal(kernel_image__notes_build_id(notes, sizeof(notes), id, sizeof(id)), 3);
	assert_int_equal(id[0], 0xaa);
	assert_int_equal(id[2], 0xcc);
	assert_int_equal(kernel_image__notes_build_id(notes, 40, id, sizeof(id)), -ENOENT);
	/* unpadded last note is fine, a descriptor cut short is not */
	assert_int_equal(kernel_image__notes_build_id(notes, sizeof(notes) - 1, id, sizeof(id)), 3);
	assert_int_equal(kernel_image__notes_build_id(notes, sizeof(notes) - 2, id, sizeof(id)),
			 -EINVAL);
}

static void test_find_missing(void **state)
{
	char path[256];

	assert_int_equal(kernel_image__find("0.0.0-no-such-release", path, sizeof(path), NULL),
			 -ENOENT);
	assert_string_equal(path, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_text_addr),
		cmocka_unit_test(test_notes_parsing),
		cmocka_unit_test(test_find_missing),
	};

	return cmocka_run_group_tests_name("kernel_image", tests, build_elf, remove_elf);
}
