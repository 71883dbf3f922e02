/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Walking an ELF file's note sections with libelf, for retsnoop (the kernel image's build ID,
 * user images' and their debug files') and its sidecar (a separate binary that includes this
 * header too: user images' build IDs).
 */
#ifndef RETSNOOP_ELF_NOTES_H
#define RETSNOOP_ELF_NOTES_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <gelf.h>

/*
 * The data of the next SHT_NOTE section after *@scn (NULL: the first) that has any, with its
 * header in *@sh; NULL after the last. *@scn moves to that section.
 */
static inline Elf_Data *elf_notes__next(Elf *elf, Elf_Scn **scn, GElf_Shdr *sh)
{
	Elf_Data *d;

	while ((*scn = elf_nextscn(elf, *scn))) {
		if (!gelf_getshdr(*scn, sh) || sh->sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(*scn, NULL);
		if (d && d->d_buf)
			return d;
	}
	return NULL;
}

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

/*
 * The GNU build ID note of @elf: its bytes (inside the section data) in *@id and their
 * count in *@len; true if found. Sizes come from a file a user may control: gelf_getnote()
 * checks them against the section data.
 */
static inline bool elf_notes__build_id(Elf *elf, const unsigned char **id, size_t *len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;

	while ((d = elf_notes__next(elf, &scn, &sh))) {
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;

		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + name_off, "GNU", 4) != 0)
				continue;
			*id = (const unsigned char *)d->d_buf + desc_off;
			*len = nh.n_descsz;
			return true;
		}
	}
	return false;
}

#endif
