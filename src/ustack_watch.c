// SPDX-License-Identifier: BSD-2-Clause
/* -U's mapping records of a run (ustack_watch.h). */
#include <stdlib.h>
#include <string.h>
#include "mmap_watch.h"
#include "ustack.h"
#include "ustack_watch.h"

/* -vv: what the records cost, for the benchmark's figures (bench/ustack-mmap.sh) */
void ustack_watch__report(struct mmap_watch *w, struct ustack *u, long ms, log_print_fn print)
{
	struct ustack_stats st;

	if (!w)
		return;
	ustack__stats(u, &st);
	log_msg(print, LOG_DEBUG, "mmap records: %llu in %ld ms (%.0f/s), %llu lost; mappings kept of %zu processes (peak %zu), %llu exited ones let go.\n",
		(unsigned long long)mmap_watch__count(w), ms,
		ms > 0 ? mmap_watch__count(w) * 1000.0 / ms : 0.0,
		(unsigned long long)mmap_watch__lost(w), st.procs, st.procs_peak,
		(unsigned long long)st.exited_let_go);
}

/*
 * -U: the kernel records the traced processes' mappings, for those that exit before
 * their maps are read (a short-lived one): @pid's tree (-- CMD), or, -1, every process's
 * (-p and system-wide: a CPU-wide event, as the kernel can't follow a running process's
 * other threads; -p's are kept for those and their children only, ustack.h).
 * RETSNOOP_MMAP_WATCH=0 turns that off (tests: the difference it makes),
 * RETSNOOP_MMAP_PAGES=N sets the pages per CPU (tests: a buffer that fills up).
 */
struct mmap_watch *ustack_watch__open(int pid, log_print_fn print)
{
	const char *pages = getenv("RETSNOOP_MMAP_PAGES");
	/* every process's records: 256 kB a CPU, drained at each poll (100 ms) */
	struct mmap_watch_opts wo = {
		.sz = sizeof(wo), .pid = pid,
		.pages = pages ? strtoul(pages, NULL, 0) : pid > 0 ? 0 : 64,
		/* the command's tree: its files opened as mapped (ustack.h's open_early) */
		.wake_early = pid > 0,
	};
	struct mmap_watch *w = NULL;
	const char *on = getenv("RETSNOOP_MMAP_WATCH");
	int err;

	if (on && !strcmp(on, "0"))
		return NULL;
	err = mmap_watch__new(&wo, &w);
	if (err)
		log_msg(print, LOG_INFO, "Mappings are read from /proc only (perf mmap records: %s): a process that exits before its samples are read may lose its user stack.\n",
			strerror(-err));
	return w;
}

/*
 * An io_uring request's error goes back in its completion entry (CQE): the system call
 * that submitted it succeeds, and a request run by an io-wq worker thread is in no system
 * call at all, so no session of either fails and nothing is reported. The rings' mapping
 * records say which processes had an instance: says so, and what shows such errors (each
 * io_uring_enter() and worker run as a success sample with its calls, -S -T).
 */
void ustack_watch__notes(struct ustack *u, bool targeted, bool success_stacks,
			 bool whole_kernel, log_print_fn print)
{
	struct ustack_stats st;

	/* system-wide, whichever daemon has a ring would be named */
	if (!u || !targeted || success_stacks)
		return;
	ustack__sync(u);
	ustack__stats(u, &st);
	if (!st.io_uring_procs)
		return;
	/*
	 * Without kprobe.multi, -a '*' would be tens of thousands of single kprobes (the better
	 * part of an hour under TCG): io_uring's own functions, and the user adds the rest
	 */
	log_msg(print, LOG_WARN, "Note: %s %u%s used io_uring: a request's error goes back in its completion (CQE), not as a system call's result, and is not reported; \"retsnoop -S -T -e '*sys_io_uring_enter' -e io_wq_submit_work -a %s -- CMD\" shows each request's calls and results%s.\n",
		st.io_uring_procs > 1 ? "processes" : "process", st.io_uring_tgid,
		st.io_uring_procs > 1 ? " and others" : "", whole_kernel ? "'*'" : "'io_*'",
		whole_kernel ? "" : " (add the -a globs of the subsystem a request reaches: this kernel lacks kprobe.multi, which tracing the whole kernel needs)");
}
