/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Capture and replay of a run: the raw ring-buffer records plus every answer the renderers
 * got about functions and addresses, so a replay renders exactly what the live run printed
 * on any machine, without the kernel that produced it.
 *
 * File: "RSNPCAP1", then entries {__u32 kind, __u32 len, payload padded to 8 bytes}.
 */
#ifndef RETSNOOP_CAPTURE_H
#define RETSNOOP_CAPTURE_H

#include "render.h"
#include "session.h"

struct capture;

/* Start writing @path; functions, clock offset and the views of @o go up front. */
struct capture *capture__create(const char *path, const struct render_opts *o);
int capture__record(struct capture *c, const void *rec, size_t size);
/* A resolver that answers through @inner and writes each first answer to the capture. */
struct sym_resolver capture__resolver(struct capture *c, const struct sym_resolver *inner);
/* Flush and close; returns the first write error seen, if any. */
int capture__close(struct capture *c);

struct replay;

/* Load a whole capture; NULL with errno set on failure (-EINVAL-style bad format). */
struct replay *replay__open(const char *path);
void replay__free(struct replay *r);

/* Render options as the live run had them, answering from the capture. */
void replay__render_opts(struct replay *r, struct render_opts *o);
/* Number of ring-buffer records in the capture. */
size_t replay__record_cnt(const struct replay *r);
/* Feed every recorded record, in order; stops at the first error. */
int replay__feed(struct replay *r, struct session_store *st);

#endif
