/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel's release of what a run attached, done in a child process that retsnoop waits
 * for. A release is mostly the kernel sleeping in RCU grace periods (per kprobe, per
 * trampoline: seconds to minutes for hundreds), and a process can't exit before every
 * release in flight on its threads has ended; a wait for a child can end at any moment (a
 * second signal, a deadline), the child going on alone:
 *
 *   detach_child__start()  fork: the child holds every fd this process holds
 *   (the caller drops its own references: quick, each close only a count going down)
 *   detach_child__go()     the child releases its copies, the last references, counting
 *                          how far it is in memory this process reads
 *   detach_child__wait()   until the child is done, or a deadline
 *
 * The child waits for go, or this process's exit: a reference dropped here after the
 * child's would make that close the slow one, in this process. It blocks every signal,
 * runs in a session of its own (a terminal's Ctrl-C or hang-up doesn't reach it) and keeps
 * only the probes' fds (probe_fds.h), so nothing waits for it but the kernel's release.
 * Like a library module it prints nothing.
 */
#ifndef RETSNOOP_DETACH_CHILD_H
#define RETSNOOP_DETACH_CHILD_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>
#include "log.h"

struct detach_child;

/*
 * Fork the child, which will run @release(its copy of the returned object, @ctx) on its
 * copy of this process (a plain fork: it may allocate and start threads), reporting
 * progress through detach_child__progress(), then exit. NULL with errno set if nothing
 * was forked.
 */
struct detach_child *detach_child__start(void (*release)(struct detach_child *dc, void *ctx),
					 void *ctx);

/* This process holds no reference the child's release needs: it may begin. */
void detach_child__go(struct detach_child *dc);

/*
 * Wait until the child is done (0), or until @deadline_ms (CLOCK_MONOTONIC, in ms; 0: no
 * deadline) passes first (-ETIMEDOUT), or *@cancel is set first (-ECANCELED; NULL: never):
 * then it goes on alone. Meanwhile @progress(@ctx, ...) is told how far it is (NULL: not).
 */
int detach_child__wait(struct detach_child *dc, long deadline_ms,
		       const volatile sig_atomic_t *cancel, progress_fn progress, void *ctx);

pid_t detach_child__pid(const struct detach_child *dc);

/* In the child: a progress_fn (@ctx: the struct detach_child) for the release's steps. */
void detach_child__progress(void *ctx, const char *stage, size_t done, size_t total);

/* Frees; a child not waited for to its end goes on alone. NULL is fine. */
void detach_child__free(struct detach_child *dc);

#endif
