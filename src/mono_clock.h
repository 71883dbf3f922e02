/* SPDX-License-Identifier: BSD-2-Clause */
/* Milliseconds of CLOCK_MONOTONIC: the one clock of start-up timelines, budgets and waits. */
#ifndef RETSNOOP_MONO_CLOCK_H
#define RETSNOOP_MONO_CLOCK_H

#include <time.h>

static inline long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

#endif
