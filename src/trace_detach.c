// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <time.h>
#include "detach_child.h"
#include "mono_clock.h"
#include "progress.h"
#include "stop.h"
#include "tracer.h"
#include "trace_detach.h"


void trace_progress__update(void *ctx, const char *stage, size_t done, size_t total)
{
	struct trace_progress *tp = ctx;

	if (tp->child)
		detach_child__progress(tp->child, stage, done, total);
	else
		progress__update(tp->line, stage, done, total);
}

void trace_detach__hand_off(log_print_fn print)
{
	pid_t pid = stop__hand_off();

	if (pid > 0)
		log_msg(print, LOG_WARN, "retsnoop: the kernel goes on releasing what was attached in the background (pid %d).\n",
			(int)pid);
}

struct child_release {
	struct tracer *t;
	struct trace_progress *tp;
};

/* In the child: its copy of the tracer holds the last reference to every link. */
static void release_in_child(struct detach_child *dc, void *ctx)
{
	struct child_release *cr = ctx;

	cr->tp->child = dc;
	tracer__detach(cr->t);
}

/*
 * No child: this process releases, against the deadline (0: none), and hands the rest to
 * a holder (stop__hand_off()) at its end.
 */
static pid_t detach_here(struct tracer *t, long deadline_ms)
{
	pid_t pid;

	if (!deadline_ms) {
		tracer__detach(t);
		return 0;
	}
	if (tracer__detach_by(t, deadline_ms) != -ETIMEDOUT)
		return 0;
	pid = stop__hand_off();
	if (pid > 0)
		return pid;
	tracer__detach(t);
	return 0;
}

pid_t trace_detach__run(struct tracer *t, size_t func_cnt, struct trace_progress *tp, long *ms)
{
	struct child_release cr = { .t = t, .tp = tp };
	long start = now_ms(), deadline_ms = 0;
	const volatile sig_atomic_t *cancel = NULL;
	struct detach_child *dc;
	pid_t pid = 0;
	int err;

	if (stop__from_terminal())
		deadline_ms = func_cnt > TRACE_DETACH_MAX_FUNCS ? start :
			      start + TRACE_DETACH_BUDGET_MS;
	else if (!stop__requested())
		cancel = stop__flag();	/* the command's end: a Ctrl-C may still come */
	dc = detach_child__start(release_in_child, &cr);
	if (!dc) {
		pid = detach_here(t, deadline_ms);
		goto out;
	}
	/* from here a signal too many names the child and leaves */
	stop__set_releaser(detach_child__pid(dc));
	/* this process's own references: each close quick, as the child holds them all */
	tracer__detach(t);
	detach_child__go(dc);
	err = detach_child__wait(dc, deadline_ms, cancel, trace_progress__update, tp);
	/* a program's signal during the whole release: the whole release still */
	if (err == -ECANCELED && !stop__from_terminal())
		err = detach_child__wait(dc, 0, NULL, trace_progress__update, tp);
	if (err)
		pid = detach_child__pid(dc);
	else
		stop__set_releaser(0);
	detach_child__free(dc);
out:
	*ms = now_ms() - start;
	return pid;
}
