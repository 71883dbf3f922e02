/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The one updating status line on a terminal while discovery, attaching or detaching take
 * long: "retsnoop: attaching functions 1200/5827 (20%)". Shown only after a delay (short
 * steps stay silent), redrawn at most every interval, and erased before anything else is
 * printed (progress__clear()).
 *
 * Where no terminal redraws a line (a log, a CI runner), plain mode says the same as whole
 * lines at a low rate instead, for a step that runs longer than the delay:
 * "retsnoop: detaching 240/778 (30%), 20 s so far".
 */
#ifndef RETSNOOP_PROGRESS_H
#define RETSNOOP_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

struct progress_opts {
	size_t sz;		/* sizeof(struct progress_opts) */
	FILE *out;		/* a terminal (or any stream, plain); NULL: progress__new() fails */
	/* nothing shown before this much time passed (0: 1000; plain: in the step, 10000) */
	long delay_ms;
	long interval_ms;	/* redraw at most this often (0: 100; plain: 10000) */
	long (*now_ms)(void);	/* NULL: CLOCK_MONOTONIC; tests pass their own clock */
	bool plain;		/* whole lines, no redrawing, nothing to erase */
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

enum progress_style {
	PROGRESS_LINE,		/* the redrawn status line */
	PROGRESS_PLAIN,		/* plain mode's occasional whole lines */
};

/*
 * How a run should show progress on @fd: the status line on a terminal that understands
 * "\r" and erase (TERM set and not "dumb") when no machine-read or verbose output was
 * asked for; plain lines anywhere else, where they don't mix with a redrawn line.
 */
enum progress_style progress__style(int fd, bool json, int verbose);

#endif
