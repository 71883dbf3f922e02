/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helper threads that never take the process's signals: Ctrl-C, SIGTERM and the rest stay
 * with the main thread, whose handlers set the stop flag that every helper checks.
 */
#ifndef RETSNOOP_QUIET_THREAD_H
#define RETSNOOP_QUIET_THREAD_H

#include <pthread.h>
#include <signal.h>

/* pthread_create() with every signal blocked in the new thread; its error number, 0 if started */
static inline int quiet_thread__start(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int err;

	/* the new thread inherits the mask in force when it is created */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

#endif
