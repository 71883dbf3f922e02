// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz target: the "unwind" request (unwind_req.c) and the unwinder (unwind.c) on what it
 * parses. The seeds are real captures of tests/userprog (tests/userprog/snap.c), so the
 * mutations are corrupt stacks, registers and mappings over real binaries (the host's
 * libc among them). The reply must be well formed: "frame" lines of 13 fields, then at
 * most one "stop" line of 2.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_sidecar.h"

static void check_lines(const struct reply_buf *out)
{
	const char *p = memchr(out->p, '\n', out->len) + 1, *end = out->p + out->len, *nl;
	bool stopped = false;

	for (; p < end; p = nl + 1) {
		int fields = 1;
		const char *q;

		nl = memchr(p, '\n', end - p);
		for (q = p; q < nl; q++)
			fields += *q == '\t';
		if (stopped)
			abort();	/* nothing after the stop line */
		if (!strncmp(p, "stop\t", 5) && fields == 2)
			stopped = true;
		else if (strncmp(p, "frame\t", 6) || fields != 13)
			abort();
	}
}

int fuzz_unwind(const uint8_t *data, size_t size)
{
	struct reply_buf out = {};
	struct server *srv;
	char *line;

	/* one request line: the input is its argument */
	if (memchr(data, '\n', size))
		return 0;
	line = malloc(size + 7);
	if (!line || !(srv = server__new(NULL, NULL)))
		abort();
	memcpy(line, "unwind ", 7);
	memcpy(line + 7, data, size);
	if (server__handle(srv, line, size + 7, NULL, &out) < 0)
		abort();
	fuzz_check_reply("unwind", &out);
	if (!strncmp(out.p, "ok ", 3))
		check_lines(&out);
	/* the same again: the unwinder's kept state must answer the same way */
	out.len = 0;
	if (server__handle(srv, line, size + 7, NULL, &out) < 0)
		abort();
	fuzz_check_reply("unwind", &out);
	free(out.p);
	free(line);
	server__free(srv);
	return 0;
}

#ifdef SIDECAR_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_unwind(data, size);
}
#endif
