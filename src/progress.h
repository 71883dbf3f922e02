/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The one updating status line on a terminal while discovery, attaching or detaching take
 * long: "retsnoop: attaching functions 1200/5827 (20%)". Shown only after a delay (short
 * steps stay silent), redrawn at most every interval, and erased before anything else is
 * printed (progress__clear()).
 */
#ifndef RETSNOOP_PROGRESS_H
#define RETSNOOP_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

struct progress_opts {
	size_t sz;		/* sizeof(struct progress_opts) */
	FILE *out;		/* a terminal; NULL: progress__new() returns NULL */
	long delay_ms;		/* nothing shown before this much time passed (0: 1000) */
	long interval_ms;	/* redraw at most this often (0: 100) */
	long (*now_ms)(void);	/* NULL: CLOCK_MONOTONIC; tests pass their own clock */
};

struct progress;

/* NULL with errno set when @opts are bad or memory is short (no progress then). */
struct progress *progress__new(const struct progress_opts *opts);
/* Erases the line (if shown) and frees. NULL is fine. */
void progress__free(struct progress *p);

/* A progress_fn (log.h) with a struct progress * as @ctx; NULL @ctx does nothing. */
void progress__update(void *ctx, const char *stage, size_t done, size_t total);
/* Erase the line now (before other output); the next update may draw it again. */
void progress__clear(struct progress *p);

/*
 * Whether a run should show progress on @fd: a terminal that understands "\r" and erase
 * (TERM set and not "dumb"), and no machine-read or verbose output asked for.
 */
bool progress__wanted(int fd, bool json, int verbose);

#endif
