// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz target: the request parser. The input is what a client writes to the sidecar's
 * stdin, split into lines as sidecar.c does; every request is answered by a server on the
 * test fixture, and every reply must be one well-formed reply.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_sidecar.h"

#define MAX_REQS 64

int fuzz_request(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct reply_buf out = {};
	struct server *srv;
	int n, ret = 0;

	srv = server__new(SIDECAR_FUZZ_FIXTURE, NULL);
	if (!srv)
		abort();
	for (n = 0; p < end && n < MAX_REQS && ret != 1; n++) {
		const char *nl = memchr(p, '\n', end - p);
		size_t len = (nl ? nl : end) - p, vlen;
		char verb[16];

		/* as sidecar.c: a line without its terminators (getline keeps NULs) */
		while (len > 0 && (p[len - 1] == '\n' || p[len - 1] == '\r'))
			len--;
		for (vlen = 0; vlen < len && vlen < sizeof(verb) - 1 && p[vlen] != ' '; vlen++)
			verb[vlen] = p[vlen];
		verb[vlen] = '\0';
		out.len = 0;
		ret = server__handle(srv, p, len, NULL, &out);
		if (ret < 0)
			abort();
		fuzz_check_reply(verb, &out);
		p = nl ? nl + 1 : end;
	}
	free(out.p);
	server__free(srv);
	return 0;
}

#ifdef SIDECAR_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_request(data, size);
}
#endif
