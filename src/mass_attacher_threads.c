// SPDX-License-Identifier: BSD-2-Clause
/*
 * The mass attacher's work on several threads: verifying -F clones (mass_attacher_clones.c)
 * and releasing links. Releasing one kprobe or trampoline link is mostly the kernel
 * sleeping in RCU grace periods (synchronize_rcu() per unregistered kprobe; RCU-tasks
 * periods per trampoline); concurrent releases share those periods where the kernel does
 * not hold a lock across them, so N threads can take up to N times less wall time for no
 * more CPU. Where it does hold one, the threads just queue: kprobes gain (about 1.5x in
 * the 6.12 guest, part of their release is under the kernel's event_mutex), trampolines
 * don't.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "quiet_thread.h"
#include "mass_attacher_int.h"

/* The waits are sleeps, not work: more threads than CPUs still help. */
#define DEFAULT_CLOSERS	16
/*
 * With a deadline: what is in flight when it passes is still waited for, and 16 kprobe
 * releases queue on the kernel's event_mutex (0.9 s past a 0.5 s budget in the guest).
 */
#define DEADLINE_CLOSERS 4
#define MAX_THREADS	64

static void *run_steps(void *arg)
{
	const struct ma_steps *st = arg;

	while (st->step(st->arg))
		;
	return NULL;
}

void ma__run_steps(int n, const struct ma_steps *st)
{
	pthread_t tids[MAX_THREADS];
	int started = 0, i;

	if (n > MAX_THREADS)
		n = MAX_THREADS;
	/* signals stay with the calling thread */
	for (i = 1; i < n; i++)
		if (quiet_thread__start(&tids[started], run_steps, (void *)st) == 0)
			started++;
	/* the calling thread works too, and says how far all of them are */
	while (st->step(st->arg))
		if (st->progress)
			st->progress(st->ctx, st->stage, __atomic_load_n(st->done, __ATOMIC_RELAXED),
				     st->total);
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
}

struct close_job {
	struct bpf_link **links;
	size_t link_cnt;
	const int *fds;
	size_t fd_cnt;
	size_t next;		/* the next item to release (atomic) */
	size_t end;		/* where this round of releases stops */
	size_t done;		/* items released (atomic) */
	long deadline_ms;	/* CLOCK_MONOTONIC; no item is started after it; 0: none */
};

static bool past(long deadline_ms)
{
	struct timespec ts;

	if (!deadline_ms)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000 >= deadline_ms;
}

/* Release one more item (links first, then fds); false when the round is over. */
static bool close_step(void *arg)
{
	struct close_job *job = arg;
	size_t i;

	/* checked before taking an item: every item taken is released */
	if (past(job->deadline_ms))
		return false;
	i = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED);
	if (i >= job->end)
		return false;
	if (i < job->link_cnt)
		bpf_link__destroy(job->links[i]);
	else
		close(job->fds[i - job->link_cnt]);
	__atomic_fetch_add(&job->done, 1, __ATOMIC_RELAXED);
	return true;
}

/* Threads worth starting for @cnt releases: none for a few cheap ones (kprobe.multi: 2). */
static int closers(int threads, size_t cnt)
{
	if (threads <= 0)
		threads = DEFAULT_CLOSERS;
	if ((size_t)threads > cnt / 4 + 1)
		threads = cnt / 4 + 1;
	return threads;
}

size_t ma__close_all(struct bpf_link **links, size_t link_cnt, const int *fds, size_t fd_cnt,
		     int threads, long deadline_ms, progress_fn progress, void *ctx)
{
	struct close_job job = {
		.links = links, .link_cnt = link_cnt, .fds = fds, .fd_cnt = fd_cnt,
		.deadline_ms = deadline_ms,
	};
	size_t total = link_cnt + fd_cnt;
	struct ma_steps st = {
		.step = close_step, .arg = &job, .progress = progress, .ctx = ctx,
		.stage = "detaching", .done = &job.done, .total = total,
	};

	/* kprobe and kprobe.multi links (and the few fentry templates'): at once */
	job.end = link_cnt;
	threads = closers(threads, link_cnt);
	if (deadline_ms && threads > DEADLINE_CLOSERS)
		threads = DEADLINE_CLOSERS;
	ma__run_steps(threads, &st);
	if (job.next < job.end)
		return job.next;	/* out of time: links from job.next on are still held */
	/*
	 * fentry/fexit clones' links and programs: one by one. Each trampoline's last link
	 * waits for RCU-tasks grace periods with the kernel's ftrace locks held, so threads
	 * only queue, and measured slower than one (bench/results/detach-*.txt).
	 */
	job.next = job.end;
	job.end = total;
	ma__run_steps(1, &st);
	if (job.next < job.end)
		return job.next;
	if (progress && total)
		progress(ctx, "detaching", total, total);
	return total;
}
