/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The link-time address of a file offset, which addr2line takes: the oracle's side of the
 * user-frame tests (test_images.c, test_ustack.c).
 */
#ifndef RETSNOOP_TESTS_SIDECAR_ELF_VADDR_H
#define RETSNOOP_TESTS_SIDECAR_ELF_VADDR_H

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>
#include <linux/types.h>

#include "unit.h"

/* The link-time address of file offset @off of @elf (its PT_LOAD headers). */
static inline unsigned long long file_vaddr(const char *elf, __u64 off)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(elf, O_RDONLY), i;

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &eh, sizeof(eh), 0), sizeof(eh));
	for (i = 0; i < eh.e_phnum; i++) {
		assert_int_equal(pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)),
				 sizeof(ph));
		if (ph.p_type == PT_LOAD && off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
			close(fd);
			return ph.p_vaddr + off - ph.p_offset;
		}
	}
	fail_msg("offset 0x%llx not loaded from %s", (unsigned long long)off, elf);
	return 0;
}

#endif
