/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sidecar's request handling (PROTOCOL.md): one request line in, one complete reply
 * out, in memory. sidecar.c connects it to stdin/stdout; the fuzz targets call it directly.
 */
#ifndef __SIDECAR_SERVER_H
#define __SIDECAR_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "symbolizer.h"

/* Requests longer than this get an E2BIG error. */
#define MAX_REQ_LEN 4096

struct reply_buf {
	char *p;
	size_t len, cap;
};

struct server;

/*
 * A server for @elf_path. Only ENOMEM fails (NULL, errno set): a file that cannot be
 * opened makes every request but quit answer with the reason. @opts may be NULL.
 */
struct server *server__new(const char *elf_path, const struct symbolizer_opts *opts);
void server__free(struct server *srv);

/*
 * Answer the request @line (@len bytes, line terminators already cut; it may hold NULs)
 * by appending the whole reply to @out. Returns 1 after "quit", 0 otherwise, -ENOMEM if
 * @out could not grow (it then holds an incomplete reply).
 */
int server__handle(struct server *srv, const char *line, size_t len, struct reply_buf *out);

/* Why the file could not be opened (negative errno), 0 if it was. */
int server__open_err(const struct server *srv);
/* NULL if the file could not be opened. */
struct symbolizer *server__symbolizer(const struct server *srv);

#endif /* __SIDECAR_SERVER_H */
