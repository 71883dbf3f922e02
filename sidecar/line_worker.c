// SPDX-License-Identifier: BSD-2-Clause
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

#include "line_worker.h"

enum job_state {
	JOB_IDLE,
	JOB_PENDING,	/* submitted, nobody decodes it yet */
	JOB_RUNNING,	/* the worker decodes it */
	JOB_DONE,
};

struct line_worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	const struct line_sects *sec;
	struct line_table *lt;
	uint64_t off;
	enum job_state state;
	bool stop;
	int err;
};

static void *worker_main(void *arg)
{
	struct line_worker *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		int err;

		while (!w->stop && w->state != JOB_PENDING)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->stop)
			break;
		w->state = JOB_RUNNING;
		pthread_mutex_unlock(&w->lock);
		err = line_table__load(w->lt, w->sec, w->off);
		pthread_mutex_lock(&w->lock);
		w->err = err;
		w->state = JOB_DONE;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct line_worker *line_worker__new(const struct line_sects *sec)
{
	struct line_worker *w = calloc(1, sizeof(*w));
	sigset_t all, old;
	int err;

	if (!w)
		return NULL;
	w->sec = sec;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	/* signals (SIGPIPE from a gone client) are the main thread's business */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&w->thread, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return NULL;
	}
	return w;
}

void line_worker__free(struct line_worker *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

void line_worker__submit(struct line_worker *w, struct line_table *lt, uint64_t off)
{
	pthread_mutex_lock(&w->lock);
	w->lt = lt;
	w->off = off;
	w->state = JOB_PENDING;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

int line_worker__wait(struct line_worker *w)
{
	int err;

	pthread_mutex_lock(&w->lock);
	if (w->state == JOB_PENDING) {
		/*
		 * The worker has not woken up yet (waking an idle vCPU can take longer than
		 * the decode): take the job back rather than wait for it.
		 */
		w->state = JOB_IDLE;
		pthread_mutex_unlock(&w->lock);
		return line_table__load(w->lt, w->sec, w->off);
	}
	while (w->state != JOB_DONE)
		pthread_cond_wait(&w->cond, &w->lock);
	err = w->err;
	w->state = JOB_IDLE;
	pthread_mutex_unlock(&w->lock);
	return err;
}
