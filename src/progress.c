// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "opts.h"
#include "progress.h"

struct progress {
	FILE *out;
	long delay_ms, interval_ms;
	long (*now_ms)(void);
	long start_ms;		/* when progress__new() was called */
	long drawn_ms;		/* last redraw, -1: never */
	bool shown;		/* the line is on the terminal now */
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
	p->delay_ms = o.delay_ms ?: 1000;
	p->interval_ms = o.interval_ms ?: 100;
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

void progress__update(void *ctx, const char *stage, size_t done, size_t total)
{
	struct progress *p = ctx;
	long now;

	if (!p)
		return;
	now = p->now_ms();
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

bool progress__wanted(int fd, bool json, int verbose)
{
	const char *term = getenv("TERM");

	if (json || verbose || !isatty(fd))
		return false;
	return term && *term && strcmp(term, "dumb") != 0;
}
