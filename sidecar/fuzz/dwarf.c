// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz target: reading DWARF. The first input byte picks the test fixture built with DWARF
 * 5 (even) or 4 (odd); the rest replaces the contents of its .debug_* sections (in file
 * order, as one blob; the seeds are the fixtures' own), so the ELF around stays valid and
 * every mutation lands in what the DIE scanner, the abbreviation compiler, the line-table
 * decoder and libdw read. Then the sidecar answers info, glob, sym (every third code
 * address of the fixture) and stats.
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

struct tmpl {
	unsigned char *img;
	size_t len;
	size_t off[MAX_SECTS], size[MAX_SECTS];
	int nsect;
	uint64_t addrs[MAX_ADDRS];
	int naddrs;
};

static const char *const tmpl_paths[2] = { SIDECAR_FUZZ_FIXTURE, SIDECAR_FUZZ_FIXTURE4 };
static struct tmpl tmpls[2];

/* A fixture: its bytes, where its .debug_* contents are, and addresses in its code. */
static void load_template(struct tmpl *t, const char *path)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *e;
	FILE *f;
	int fd;

	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END))
		abort();
	t->len = ftell(f);
	rewind(f);
	t->img = malloc(t->len);
	if (!t->img || fread(t->img, 1, t->len, f) != t->len)
		abort();
	fclose(f);

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
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
		    t->nsect < MAX_SECTS) {
			t->off[t->nsect] = sh.sh_offset;
			t->size[t->nsect++] = sh.sh_size;
		}
		if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_type != SHT_NOBITS) {
			for (a = sh.sh_addr; a < sh.sh_addr + sh.sh_size && t->naddrs < MAX_ADDRS;
			     a += 3)
				t->addrs[t->naddrs++] = a;
		}
	}
	elf_end(e);
	close(fd);
	if (!t->nsect || !t->naddrs)
		abort();
}

int fuzz_dwarf(const uint8_t *data, size_t size)
{
	struct server *srv;
	unsigned char *img;
	struct tmpl *t;
	char path[64];
	size_t pos = 1;
	int fd, i;

	if (!size)
		return 0;
	t = &tmpls[data[0] & 1];
	if (!t->img)
		load_template(t, tmpl_paths[data[0] & 1]);
	img = malloc(t->len);
	if (!img)
		abort();
	memcpy(img, t->img, t->len);
	/* the input over the sections, in order; a short input leaves the rest as it was */
	for (i = 0; i < t->nsect && pos < size; i++) {
		size_t n = size - pos < t->size[i] ? size - pos : t->size[i];

		memcpy(img + t->off[i], data + pos, n);
		pos += n;
	}
	fd = fuzz_memfile(img, t->len, path, sizeof(path));
	free(img);
	srv = server__new(path, NULL);
	if (!srv)
		abort();
	fuzz_query(srv, t->addrs, t->naddrs);
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
