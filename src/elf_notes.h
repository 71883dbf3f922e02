/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Walking an ELF file's note sections with libelf, for retsnoop (the kernel image's build ID)
 * and its sidecar (a separate binary that includes this header too: user images' build IDs).
 */
#ifndef RETSNOOP_ELF_NOTES_H
#define RETSNOOP_ELF_NOTES_H

#include <stddef.h>
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

#endif
