// SPDX-License-Identifier: BSD-2-Clause
/*
 * Detaching the mass attacher's links from several threads. Releasing one kprobe or
 * trampoline link is mostly the kernel sleeping in RCU grace periods (synchronize_rcu() per
 * unregistered kprobe; RCU-tasks periods per trampoline); concurrent releases share those
 * periods where the kernel does not hold a lock across them, so N threads can take up to N
 * times less wall time for no more CPU. Where it does hold one, the threads just queue.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "mass_attacher_int.h"

/* The waits are sleeps, not work: more threads than CPUs still help. */
#define DEFAULT_CLOSERS	16
#define MAX_CLOSERS	64

struct close_job {
	struct bpf_link **links;
	size_t link_cnt;
	const int *fds;
	size_t fd_cnt;
	size_t next;		/* the next item to release (atomic) */
	size_t done;		/* items released (atomic) */
};

/* Release one more item (links first, then fds); false when none is left. */
static bool close_next(struct close_job *job)
{
	size_t i = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED);

	if (i < job->link_cnt)
		bpf_link__destroy(job->links[i]);
	else if (i - job->link_cnt < job->fd_cnt)
		close(job->fds[i - job->link_cnt]);
	else
		return false;
	__atomic_fetch_add(&job->done, 1, __ATOMIC_RELAXED);
	return true;
}

static void *closer(void *arg)
{
	while (close_next(arg))
		;
	return NULL;
}

void ma__close_all(struct bpf_link **links, size_t link_cnt, const int *fds, size_t fd_cnt,
		   int threads, progress_fn progress, void *ctx)
{
	struct close_job job = {
		.links = links, .link_cnt = link_cnt, .fds = fds, .fd_cnt = fd_cnt,
	};
	size_t total = link_cnt + fd_cnt;
	pthread_t tids[MAX_CLOSERS];
	int started = 0, i;
	sigset_t all, old;

	if (threads <= 0)
		threads = DEFAULT_CLOSERS;
	if (threads > MAX_CLOSERS)
		threads = MAX_CLOSERS;
	/* a thread is not worth starting for a few cheap releases (kprobe.multi: two) */
	if ((size_t)threads > total / 4 + 1)
		threads = total / 4 + 1;
	/* the helpers inherit this mask: signals stay with the calling thread */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 1; i < threads; i++)
		if (pthread_create(&tids[started], NULL, closer, &job) == 0)
			started++;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* the calling thread releases too, and says how far all of them are */
	while (close_next(&job))
		if (progress)
			progress(ctx, "detaching", __atomic_load_n(&job.done, __ATOMIC_RELAXED),
				 total);
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	if (progress && total)
		progress(ctx, "detaching", total, total);
}
