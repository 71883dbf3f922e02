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

/* Start writing @path; functions and the clock offset are written up front. */
struct capture *capture__create(const char *path, const struct func_desc *funcs,
				size_t func_cnt, __s64 ts_offset_ns);
int capture__record(struct capture *c, const void *rec, size_t size);
/* A resolver that answers through @inner and writes each first answer to the capture. */
struct sym_resolver capture__resolver(struct capture *c, const struct sym_resolver *inner);
/* Flush and close; returns the first write error seen, if any. */
int capture__close(struct capture *c);

struct replay;

/* Load a whole capture; NULL with errno set on failure (-EINVAL-style bad format). */
struct replay *replay__open(const char *path);
void replay__free(struct replay *r);

const struct func_desc *replay__funcs(const struct replay *r, size_t *cnt);
struct sym_resolver replay__resolver(struct replay *r);
__s64 replay__ts_offset(const struct replay *r);
/* Feed every recorded record, in order; stops at the first error. */
int replay__feed(struct replay *r, struct session_store *st);

#endif
