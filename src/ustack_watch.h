/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A run's -U mapping records (mmap_watch.h) as the tracing command sets them up: which
 * processes, how large a buffer, what a failure to get them means; and at the end, what
 * they cost (-vv).
 */
#ifndef RETSNOOP_USTACK_WATCH_H
#define RETSNOOP_USTACK_WATCH_H

#include <stdbool.h>
#include "log.h"

struct mmap_watch;
struct ustack;

/*
 * The records of @pid's tree (-- CMD), or of every process for -1 (-p, system-wide);
 * NULL (said with -v) where the kernel refuses them or RETSNOOP_MMAP_WATCH=0.
 */
struct mmap_watch *ustack_watch__open(int pid, log_print_fn print);

/* -vv: the records read in @ms of tracing, their rate, those lost, what @u kept. */
void ustack_watch__report(struct mmap_watch *w, struct ustack *u, long ms, log_print_fn print);

/*
 * At the run's end: a traced process that used io_uring (its rings' mappings recorded)
 * may have had requests fail unseen; says so and how to see them (over the whole kernel
 * if @whole_kernel: kprobe.multi), for a @targeted run (a command, -p), unless
 * @success_stacks already shows every session.
 */
void ustack_watch__notes(struct ustack *u, bool targeted, bool success_stacks,
			 bool whole_kernel, log_print_fn print);

#endif
