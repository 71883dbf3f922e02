/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The end of a traced run's attachment: the kernel's release of what was attached, done by
 * a child process retsnoop waits for (detach_child.h), so that a stop can end the wait at
 * any moment, and how long a run waits for it:
 *
 *   - a program's signal (kill -INT, timeout) or the command's end: the whole release, so
 *     that the sender's wait means nothing is left attached; a second signal exits at
 *     once, naming the child, which goes on alone (stop.h);
 *   - a terminal's signal (Ctrl-C, a hang-up: someone waits for the prompt): at most
 *     TRACE_DETACH_BUDGET_MS, none over TRACE_DETACH_MAX_FUNCS functions, then the child
 *     goes on alone; a terminal's Ctrl-C during a whole release ends its wait the same way.
 *
 * Where no child can be forked, this process releases (the same rules, less promptly: what
 * is in flight at the budget's end is waited for).
 */
#ifndef RETSNOOP_TRACE_DETACH_H
#define RETSNOOP_TRACE_DETACH_H

#include <stddef.h>
#include <sys/types.h>
#include "log.h"

struct detach_child;
struct progress;
struct tracer;

/*
 * After a terminal's signal, how long retsnoop waits for the release before leaving the
 * rest to the child: a small kprobe.multi run's release (50-75 ms in the 6.12 guest) ends
 * within it; a few single kprobes (7 functions -K: 0.6 s) don't, and no one should wait
 * for them.
 */
#define TRACE_DETACH_BUDGET_MS 200
/* ... and over how many functions it does not wait at all (seconds to minutes of release) */
#define TRACE_DETACH_MAX_FUNCS 64

/* The tracer's progress_fn: @line here; the shared counters in the releasing child. */
struct trace_progress {
	struct progress *line;
	struct detach_child *child;	/* set in the child only */
};

void trace_progress__update(void *ctx, const char *stage, size_t done, size_t total);

/*
 * Release what @t attached (@func_cnt functions) as above; @tp: @t's progress. Returns the
 * pid of the child left releasing in the background, or 0 when the release is over; *@ms:
 * how long this process waited.
 */
pid_t trace_detach__run(struct tracer *t, size_t func_cnt, struct trace_progress *tp, long *ms);

/*
 * Stopped before tracing: nothing is left to finish but the kernel's release of what was
 * attached, so a background child takes it (stop__hand_off()) and this process's own
 * releases are quick. If none could be forked, the release stays ours (tracer__free()).
 */
void trace_detach__hand_off(log_print_fn print);

#endif
