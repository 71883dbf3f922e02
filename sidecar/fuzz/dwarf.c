// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz target: reading DWARF. The input replaces the contents of the .debug_* sections of
 * the test fixture (in file order, as one blob; the seed is the fixture's own), so the ELF
 * around stays valid and every mutation lands in what the DIE scanner, the abbreviation
 * compiler, the line-table decoder and libdw read. Then the sidecar answers info, glob,
 * sym (every code address of the fixture) and stats.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>

#include "fuzz_sidecar.h"

#define MAX_SECTS 16
#define MAX_ADDRS 256

static struct {
	unsigned char *img;
	size_t len;
	size_t off[MAX_SECTS], size[MAX_SECTS];
	int nsect;
	uint64_t addrs[MAX_ADDRS];
	int naddrs;
} tmpl;

/* The fixture: its bytes, where its .debug_* contents are, and addresses in its code. */
static void load_template(void)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *e;
	FILE *f;
	int fd;

	f = fopen(SIDECAR_FUZZ_FIXTURE, "rb");
	if (!f || fseek(f, 0, SEEK_END))
		abort();
	tmpl.len = ftell(f);
	rewind(f);
	tmpl.img = malloc(tmpl.len);
	if (!tmpl.img || fread(tmpl.img, 1, tmpl.len, f) != tmpl.len)
		abort();
	fclose(f);

	elf_version(EV_CURRENT);
	fd = open(SIDECAR_FUZZ_FIXTURE, O_RDONLY);
	e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (!e || elf_getshdrstrndx(e, &shstrndx))
		abort();
	while ((scn = elf_nextscn(e, scn))) {
		const char *name;
		GElf_Shdr sh;
		uint64_t a;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name && strncmp(name, ".debug_", 7) == 0 && sh.sh_type != SHT_NOBITS &&
		    tmpl.nsect < MAX_SECTS) {
			tmpl.off[tmpl.nsect] = sh.sh_offset;
			tmpl.size[tmpl.nsect++] = sh.sh_size;
		}
		if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_type != SHT_NOBITS) {
			for (a = sh.sh_addr; a < sh.sh_addr + sh.sh_size && tmpl.naddrs < MAX_ADDRS;
			     a += 3)
				tmpl.addrs[tmpl.naddrs++] = a;
		}
	}
	elf_end(e);
	close(fd);
	if (!tmpl.nsect || !tmpl.naddrs)
		abort();
}

int fuzz_dwarf(const uint8_t *data, size_t size)
{
	struct server *srv;
	unsigned char *img;
	char path[64];
	size_t pos = 0;
	int fd, i;

	if (!tmpl.img)
		load_template();
	img = malloc(tmpl.len);
	if (!img)
		abort();
	memcpy(img, tmpl.img, tmpl.len);
	/* the input over the sections, in order; a short input leaves the rest as it was */
	for (i = 0; i < tmpl.nsect && pos < size; i++) {
		size_t n = size - pos < tmpl.size[i] ? size - pos : tmpl.size[i];

		memcpy(img + tmpl.off[i], data + pos, n);
		pos += n;
	}
	fd = fuzz_memfile(img, tmpl.len, path, sizeof(path));
	free(img);
	if (server__new(path, NULL, &srv))
		abort();
	fuzz_query(srv, tmpl.addrs, tmpl.naddrs);
	server__free(srv);
	close(fd);
	return 0;
}

#ifdef SIDECAR_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_dwarf(data, size);
}
#endif
