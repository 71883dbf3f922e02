// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz target: reading an ELF file. The input is the whole file (seeds: the test fixture
 * built with DWARF 5 and 4); the sidecar answers info, glob, sym and stats about it.
 */
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_sidecar.h"

/* Addresses in and around the fixtures' code, with some that are nowhere. */
static int fixture_addrs(uint64_t *addrs, int max)
{
	int n = 0;
	uint64_t a;

	for (a = 0x1000; a < 0x1400 && n < max - 2; a += 0x13)
		addrs[n++] = a;
	addrs[n++] = 0;
	addrs[n++] = ~0ULL;
	return n;
}

int fuzz_elf(const uint8_t *data, size_t size)
{
	uint64_t addrs[64];
	struct server *srv;
	char path[64];
	int fd;

	fd = fuzz_memfile(data, size, path, sizeof(path));
	srv = server__new(path, NULL);
	if (!srv)
		abort();
	fuzz_query(srv, addrs, fixture_addrs(addrs, 64));
	server__free(srv);
	close(fd);
	return 0;
}

#ifdef SIDECAR_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_elf(data, size);
}
#endif
