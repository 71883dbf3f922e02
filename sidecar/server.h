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

/* Descriptors received (SCM_RIGHTS) and not yet taken by a request, oldest first. */
#define MAX_QUEUED_FDS 16

struct fd_queue {
	int fds[MAX_QUEUED_FDS];
	int head, cnt;
};

/* -EMFILE if full (the caller closes @fd). */
int fd_queue__push(struct fd_queue *q, int fd);
/* The oldest descriptor, -1 if none (or @q is NULL). */
int fd_queue__take(struct fd_queue *q);

struct server;
struct images;

/*
 * A server for @elf_path (NULL: none; then only the image requests and info work). Only
 * ENOMEM (and EINVAL for invalid @opts) fail, NULL with errno set: a file that cannot be
 * opened makes every request about it answer with the reason. @opts may be NULL.
 */
struct server *server__new(const char *elf_path, const struct symbolizer_opts *opts);
void server__free(struct server *srv);

/*
 * Answer the request @line (@len bytes, line terminators already cut; it may hold NULs)
 * by appending the whole reply to @out. A request that takes a descriptor ("open",
 * "debug") takes the oldest from @fds (NULL: none was sent). Returns 1 after "quit", 0
 * otherwise, -ENOMEM if @out could not grow (it then holds an incomplete reply).
 */
int server__handle(struct server *srv, const char *line, size_t len, struct fd_queue *fds,
		   struct reply_buf *out);

/* Why the file could not be opened (negative errno), 0 if it was. */
int server__open_err(const struct server *srv);
/* NULL if the file could not be opened. */
struct symbolizer *server__symbolizer(const struct server *srv);
/* The images handed over as descriptors ("open"). */
struct images *server__images(const struct server *srv);

#endif /* __SIDECAR_SERVER_H */
