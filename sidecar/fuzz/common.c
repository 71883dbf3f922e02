// SPDX-License-Identifier: BSD-2-Clause
/* Reply checks and the standard queries of the sidecar's fuzz targets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "fuzz_sidecar.h"

static void broken(const char *why, const struct reply_buf *out)
{
	fprintf(stderr, "fuzz: broken reply (%s): '%.*s'\n", why, (int)(out->len > 512 ? 512 : out->len),
		out->p ? out->p : "");
	abort();
}

void fuzz_check_reply(const char *verb, const struct reply_buf *out)
{
	int want = 0, fields, n, i;
	const char *p, *end, *nl;
	char *e;
	long v;

	if (!out->len || !out->p || out->p[out->len - 1] != '\n')
		broken("not a complete line", out);
	if (memchr(out->p, '\0', out->len))
		broken("NUL byte", out);
	end = out->p + out->len;
	nl = memchr(out->p, '\n', out->len);
	if (strncmp(out->p, "err ", 4) == 0) {
		v = strtol(out->p + 4, &e, 10);
		if (v <= 0 || v >= 4096 || *e != ' ' || nl != end - 1)
			broken("bad err reply", out);
		return;
	}
	if (strncmp(out->p, "ok ", 3) != 0)
		broken("neither ok nor err", out);
	v = strtol(out->p + 3, &e, 10);
	if (e != nl || v < 0 || e == out->p + 3)
		broken("bad ok header", out);
	if (strcmp(verb, "sym") == 0)
		want = 4;
	else if (strcmp(verb, "glob") == 0)
		want = 3;
	else if (strcmp(verb, "info") == 0 || strcmp(verb, "stats") == 0)
		want = 2;
	for (n = 0, p = nl + 1; p < end; n++, p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		for (i = 0, fields = 1; p + i < nl; i++) {
			unsigned char c = p[i];

			if (c == '\t')
				fields++;
			else if (c < 0x20 || c == 0x7f)
				broken("control character in a line", out);
		}
		if (want && fields != want)
			broken("wrong number of fields", out);
	}
	if (n != v)
		broken("line count differs from the header", out);
}

void fuzz_ask(struct server *srv, struct fd_queue *fds, const char *verb, const char *req)
{
	struct reply_buf out = {};

	if (server__handle(srv, req, strlen(req), fds, &out) < 0)
		abort();	/* out of memory: not expected in a fuzz run */
	fuzz_check_reply(verb, &out);
	free(out.p);
}

void fuzz_query(struct server *srv, const uint64_t *addrs, int naddrs)
{
	char req[64];
	int i;

	fuzz_ask(srv, NULL, "info", "info");
	fuzz_ask(srv, NULL, "glob", "glob *");
	for (i = 0; i < naddrs; i++) {
		snprintf(req, sizeof(req), "sym %llx", (unsigned long long)addrs[i]);
		fuzz_ask(srv, NULL, "sym", req);
	}
	fuzz_ask(srv, NULL, "stats", "stats");
}

int fuzz_memfile(const void *data, size_t size, char *path, size_t path_sz)
{
	size_t off = 0;
	int fd = memfd_create("sidecar-fuzz", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	while (off < size) {
		ssize_t n = write(fd, (const char *)data + off, size - off);

		if (n <= 0)
			abort();
		off += n;
	}
	snprintf(path, path_sz, "/proc/self/fd/%d", fd);
	return fd;
}
