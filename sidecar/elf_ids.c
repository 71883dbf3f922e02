// SPDX-License-Identifier: BSD-2-Clause
/*
 * What identifies an opened ELF file and ties it to its separate debug file: the GNU build
 * ID, the .gnu_debuglink name and CRC, the whole file's CRC, and where a file offset is
 * loaded (a user-space address arrives as its mapping's file offset). Every value comes from
 * a file a user may control: sizes are checked against the section data, names must be
 * NUL-terminated inside it.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include <zlib.h>

#include "../src/elf_notes.h"
#include "symbolizer_int.h"

/* longer IDs exist in theory only; this bounds what a reply carries */
#define MAX_BUILD_ID 64

int symbolizer__build_id(struct symbolizer *s, const uint8_t **id, size_t *len)
{
	*id = NULL;
	*len = 0;
	if (!elf_notes__build_id(s->elf, id, len))
		return 0;
	if (!*len || *len > MAX_BUILD_ID) {
		*id = NULL;
		*len = 0;
		return -EBADMSG;
	}
	return 0;
}

int symbolizer__debuglink(struct symbolizer *s, const char **name, uint32_t *crc)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(s->elf, &shstrndx))
		return -ENOEXEC;
	while ((scn = elf_nextscn(s->elf, scn))) {
		const char *sname, *p;
		size_t nlen, crc_off;
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		sname = elf_strptr(s->elf, shstrndx, sh.sh_name);
		if (!sname || strcmp(sname, ".gnu_debuglink") != 0)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return -EBADMSG;
		p = d->d_buf;
		nlen = strnlen(p, d->d_size);
		/* the name, NUL, padding to 4, then the CRC (in the file's byte order) */
		crc_off = (nlen + 4) & ~(size_t)3;
		if (!nlen || nlen == d->d_size || crc_off + 4 > d->d_size || memchr(p, '/', nlen))
			return -EBADMSG;
		memcpy(crc, p + crc_off, 4);
		if (elf_getident(s->elf, NULL)[EI_DATA] == ELFDATA2MSB)
			*crc = __builtin_bswap32(*crc);
		*name = p;
		return 0;
	}
	return -ENOENT;
}

int symbolizer__file_crc(struct symbolizer *s, uint32_t *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0, Z_NULL, 0);
	off_t off = 0;
	ssize_t n;

	while ((n = pread(s->fd, buf, sizeof(buf), off)) > 0) {
		c = crc32(c, buf, n);
		off += n;
	}
	if (n < 0)
		return -errno;
	*crc = c;
	return 0;
}

int symbolizer__file_addr(struct symbolizer *s, uint64_t off, uint64_t *addr)
{
	size_t i, n;

	if (elf_getphdrnum(s->elf, &n))
		return -ENOEXEC;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(s->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= ph.p_offset && off - ph.p_offset < ph.p_filesz) {
			*addr = ph.p_vaddr + (off - ph.p_offset);
			return 0;
		}
	}
	return -ERANGE;
}

bool symbolizer__has_dwarf(const struct symbolizer *s)
{
	return s->dw;
}

const char *symbolizer__sym(struct symbolizer *s, uint64_t addr, uint64_t *start,
			    uint64_t *size)
{
	const char *name;

	if (!elf_in_exec(s, addr))
		return NULL;
	name = elf_sym_find(s, addr, start, size);
	/* past a sized symbol's end lies padding or a stub without a symbol */
	if (name && *size && addr - *start >= *size)
		return NULL;
	return name;
}

bool symbolizer__has_symtab(struct symbolizer *s)
{
	uint64_t start, size;

	elf_sym_find(s, 0, &start, &size);	/* loads the table */
	return s->nsyms && s->syms_full;
}
