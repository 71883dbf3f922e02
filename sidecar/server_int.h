/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared by the sidecar's request handlers (server.c, server_images.c). */
#ifndef __SIDECAR_SERVER_INT_H
#define __SIDECAR_SERVER_INT_H

#include "images.h"
#include "server.h"

struct cache_ent {
	uint64_t addr;
	char *reply;
	size_t len;
};

struct server {
	struct symbolizer *symb;	/* the file named on the command line, NULL if none */
	int open_err;
	char *elf_path;
	struct images *images;		/* files handed over as descriptors */
	struct cache_ent *cache;
	size_t cache_cnt, cache_cap;
	uint64_t requests, cache_hits;
	struct unwinder *unwinder;	/* the first "unwind" request creates it */
};

/*
 * A request verb's handler: @arg is the text after the verb (never NULL), @fd the
 * descriptor sent with it (VERB_FD; the handler owns it) or -1. Appends the whole reply to
 * @out; returns 0, 1 to end the session, or -ENOMEM.
 */
typedef int (*verb_fn)(struct server *srv, const char *arg, int fd, struct reply_buf *out);

enum verb_flags {
	VERB_FILE = 0x1,	/* about the command line's file: fails while it can't be opened */
	VERB_NO_ARG = 0x2,	/* takes no argument */
	VERB_FD = 0x4,		/* takes a descriptor sent with it (SCM_RIGHTS) */
};

struct verb {
	const char *name;
	verb_fn handle;
	unsigned int flags;	/* enum verb_flags */
};

/* Reply building (server.c). */
int buf_printf(struct reply_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A name or path from a file, control characters replaced so the framing holds. */
int buf_field(struct reply_buf *b, const char *s);
/* "err E MESSAGE". */
int reply_err(struct reply_buf *b, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "ok N" and one FUNC\tFILE\tLINE\tCOL line per frame. */
int reply_frames(struct reply_buf *b, const struct src_frame *frames, int n);
/* Hexadecimal, with or without 0x, at most 64 bits: -EINVAL, -ERANGE. */
int parse_addr(const char *s, uint64_t *addr);

/* server_images.c: files handed over as descriptors (PROTOCOL.md, "Images"). */
int do_open(struct server *srv, const char *arg, int fd, struct reply_buf *out);
int do_debug(struct server *srv, const char *arg, int fd, struct reply_buf *out);
int do_fsym(struct server *srv, const char *arg, int fd, struct reply_buf *out);
int do_fline(struct server *srv, const char *arg, int fd, struct reply_buf *out);
int do_close(struct server *srv, const char *arg, int fd, struct reply_buf *out);
/* "unwind": @len bytes of @arg, longer than other requests may be (server_unwind.c) */
int do_unwind(struct server *srv, const char *arg, size_t len, struct reply_buf *out);
void server_unwind__free(struct server *srv);

#endif /* __SIDECAR_SERVER_INT_H */
