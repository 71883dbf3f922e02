/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Capture and replay of a run: the raw ring-buffer records plus every answer the sample
 * builder got about functions and addresses, so a replay decodes and renders exactly what
 * the live run printed, on any machine, without the kernel that produced it.
 *
 * File: "RSNPCAP2" (or "RSNPCAP1", converted on load), then entries
 * {__u32 kind, __u32 len, payload padded to 8 bytes}. Readers skip kinds they don't know,
 * so captures without arguments replay as before.
 */
#ifndef RETSNOOP_CAPTURE_H
#define RETSNOOP_CAPTURE_H

#include "func.h"
#include "probe_spec.h"
#include "sample.h"
#include "session.h"
#include "sink.h"
#include "sym_resolver.h"
#include "view.h"

struct capture_opts {
	size_t sz;			/* sizeof(struct capture_opts) */
	const struct func *funcs;
	size_t func_cnt;
	__s64 clock_off_ns;
	struct view_opts view;		/* how the run decoded and showed its samples */
	/* -A: the capture plans, each written before its function's first arguments */
	const struct arg_plans *args;
	/* -J: the injected probes, by id (their names in -T rows and probe samples) */
	const struct probe_spec *probes;
	size_t probe_cnt;
	/* -J -T -A: the probes' context plans, by id */
	const struct arg_plans *probe_args;
};

struct capture;

/* Start writing @path; functions, clock offset and views go up front. NULL, errno set. */
struct capture *capture__create(const char *path, const struct capture_opts *opts);
int capture__record(struct capture *c, const void *rec, size_t size);
/* A resolver that answers through @inner and writes each first answer to the capture. */
struct sym_resolver capture__resolver(struct capture *c, const struct sym_resolver *inner);
/* Flush and close; returns the first write error seen, if any. */
int capture__close(struct capture *c);

struct replay;

/* Load a whole capture; NULL with errno set on failure (EINVAL: bad format). */
struct replay *replay__open(const char *path);
void replay__free(struct replay *r);

/*
 * The live run's decoding options (functions, probes, clock), answering from the capture;
 * o->view is the live run's view, to decode and to render with.
 */
void replay__build_opts(struct replay *r, struct sample_build_opts *o);
/* Number of ring-buffer records in the capture. */
size_t replay__record_cnt(const struct replay *r);
/* Feed every recorded record, in order; stops at the first error. */
int replay__feed(struct replay *r, struct session_store *st);

#endif
