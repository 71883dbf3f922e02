// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "opts.h"
#include "progress.h"

#define PLAIN_DELAY_MS		10000
#define PLAIN_INTERVAL_MS	10000

struct progress {
	FILE *out;
	long delay_ms, interval_ms;
	long (*now_ms)(void);
	long start_ms;		/* when progress__new() was called (plain: the step began) */
	long drawn_ms;		/* last redraw, -1: never */
	bool shown;		/* the line is on the terminal now */
	bool plain;
	char stage[64];		/* plain: the step being timed */
};

static long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

struct progress *progress__new(const struct progress_opts *opts)
{
	struct progress_opts o;
	struct progress *p;

	if (OPTS_COPY(&o, opts) || !o.out) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->out = o.out;
	p->plain = o.plain;
	p->delay_ms = o.delay_ms ?: o.plain ? PLAIN_DELAY_MS : 1000;
	p->interval_ms = o.interval_ms ?: o.plain ? PLAIN_INTERVAL_MS : 100;
	p->now_ms = o.now_ms ?: mono_ms;
	p->start_ms = p->now_ms();
	p->drawn_ms = -1;
	return p;
}

void progress__free(struct progress *p)
{
	if (!p)
		return;
	progress__clear(p);
	free(p);
}

/*
 * Plain: a line for a step that has run longer than the delay, then one per interval. Not
 * at the step's end: what follows says it ended, and a short step says nothing at all.
 */
static void plain_update(struct progress *p, long now, const char *stage, size_t done,
			 size_t total)
{
	if (strncmp(p->stage, stage, sizeof(p->stage) - 1) != 0) {
		snprintf(p->stage, sizeof(p->stage), "%s", stage);
		p->start_ms = now;
		p->drawn_ms = -1;
	}
	if (now - p->start_ms < p->delay_ms || (total && done >= total))
		return;
	if (p->drawn_ms >= 0 && now - p->drawn_ms < p->interval_ms)
		return;
	p->drawn_ms = now;
	if (total)
		fprintf(p->out, "retsnoop: %s %zu/%zu (%zu%%), %ld s so far\n", stage, done, total,
			done * 100 / total, (now - p->start_ms) / 1000);
	else
		fprintf(p->out, "retsnoop: %s..., %ld s so far\n", stage, (now - p->start_ms) / 1000);
	fflush(p->out);
}

void progress__update(void *ctx, const char *stage, size_t done, size_t total)
{
	struct progress *p = ctx;
	long now;

	if (!p)
		return;
	now = p->now_ms();
	if (p->plain) {
		plain_update(p, now, stage, done, total);
		return;
	}
	if (now - p->start_ms < p->delay_ms)
		return;
	/* the last unit of a step is drawn at once: the line then says where it stopped */
	if (p->drawn_ms >= 0 && now - p->drawn_ms < p->interval_ms && done != total)
		return;
	p->drawn_ms = now;
	/* "\r" + erase to the end of the line: one line, redrawn in place */
	if (total)
		fprintf(p->out, "\r\033[Kretsnoop: %s %zu/%zu (%zu%%)", stage, done, total,
			done * 100 / total);
	else
		fprintf(p->out, "\r\033[Kretsnoop: %s...", stage);
	fflush(p->out);
	p->shown = true;
}

void progress__clear(struct progress *p)
{
	if (!p || !p->shown)
		return;
	fputs("\r\033[K", p->out);
	fflush(p->out);
	p->shown = false;
	/* the next update redraws at once */
	p->drawn_ms = -1;
}

enum progress_style progress__style(int fd, bool json, int verbose)
{
	const char *term = getenv("TERM");

	if (json || verbose || !isatty(fd))
		return PROGRESS_PLAIN;
	return term && *term && strcmp(term, "dumb") != 0 ? PROGRESS_LINE : PROGRESS_PLAIN;
}
