// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz target: the image path, as retsnoop drives it for user-space frames. The input is a
 * binary and a candidate debug file: a 4-byte little-endian length, that many bytes of the
 * binary, the rest the debug file (none if empty). Both go in through the descriptor queue
 * with "open" and "debug"; then info, fsym and fline at file offsets across the binary,
 * and close. Seeds (tests/fuzz/sidecar-image/): the test program and its library built
 * with DWARF, stripped with their debug files, and with a debug file of another build.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_sidecar.h"

int fuzz_image(const uint8_t *data, size_t size)
{
	struct fd_queue q = {};
	char path[64], req[64];
	struct server *srv;
	uint32_t blen;
	uint64_t off;
	int fd, dfd = -1, left;

	if (size < 4)
		return 0;
	memcpy(&blen, data, 4);
	if (blen > size - 4)
		blen = size - 4;
	srv = server__new(NULL, NULL);
	if (!srv)
		abort();
	/* the server owns what it takes from the queue: hand it dups, close ours */
	fd = fuzz_memfile(data + 4, blen, path, sizeof(path));
	fd_queue__push(&q, dup(fd));
	fuzz_ask(srv, &q, "info", "open fuzz");	/* "key\tvalue" lines, as info's */
	if (size - 4 - blen) {
		dfd = fuzz_memfile(data + 4 + blen, size - 4 - blen, path, sizeof(path));
		fd_queue__push(&q, dup(dfd));
		fuzz_ask(srv, &q, "debug", "debug 1");
	}
	/* offsets across a small binary, the ends of the range and past it */
	for (off = 0; off < blen + 0x100 && off < 0x4000; off += 0x3b) {
		snprintf(req, sizeof(req), "fsym 1 %llx", (unsigned long long)off);
		fuzz_ask(srv, &q, "fsym", req);
		snprintf(req, sizeof(req), "fline 1 %llx", (unsigned long long)off);
		fuzz_ask(srv, &q, "sym", req);
	}
	fuzz_ask(srv, &q, "fsym", "fsym 1 ffffffffffffffff");
	fuzz_ask(srv, &q, "close", "close 1");
	/* requests take their descriptor whatever happens: nothing may be left over */
	left = fd_queue__take(&q);
	if (left >= 0)
		abort();
	server__free(srv);
	close(fd);
	if (dfd >= 0)
		close(dfd);
	return 0;
}

#ifdef SIDECAR_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_image(data, size);
}
#endif
