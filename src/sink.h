/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Output sinks: where decoded samples and the run's lifecycle go. The text sink prints
 * what the seeds show; the JSON sink prints one object per line for log pipelines. A run
 * drives exactly one sink; sinks never see BPF records.
 */
#ifndef RETSNOOP_SINK_H
#define RETSNOOP_SINK_H

#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <linux/types.h>
#include "arg_fmt.h"
#include "sample.h"
#include "view.h"

/* Data the run lost, as BPF counted it (sums over CPUs). */
struct drop_report {
	__u64 dropped_sessions;		/* samples lost entirely */
	/*
	 * Of those, sessions that found every slot taken: more threads were inside entry
	 * functions at once than the session table's slots (or the sessions map's size).
	 */
	__u64 no_slot;
	__u32 session_slots;		/* that cap (0: none, task storage) */
	bool slots_in_table;		/* the cap is the table's: bpf.session-table */
	__u64 incomplete_sessions;	/* samples that lost some of their records */
	__u64 skipped_calls;		/* calls re-entering a handler on one CPU, not recorded */
	__u64 trace_lost;		/* -T records over the consumer's memory budget */
	__u64 running_sessions;		/* at the end: sessions still open, never reported */
	__u64 args_lost;		/* -A records over the consumer's memory budget */
	__u64 unfollowed_forks;		/* -- CMD: children not followed (the set was full) */
	/* at the end, -- CMD: forks (of any process) the kernel ran our fork program for none of */
	__u64 forks_missed;
	/* sessions ended at their thread's next call: the kernel skipped their outermost return */
	__u64 lost_ends;
	/* at the end, -U: perf mapping records lost (user stacks of exited processes) */
	__u64 mmap_lost;
	/* at the end: probe hits the kernel skipped (kprobe programs' recursion misses, any process) */
	__u64 kernel_missed;
	/*
	 * at the end: thread exits the kernel ran no exit program of ours for (its recursion
	 * misses: 7.x skips a raw tracepoint's program on a CPU where a preempted run of it
	 * waits); a session such an exit cut short stays open, in running_sessions
	 */
	__u64 exits_missed;
	/*
	 * records of a session whose start retsnoop never saw: what they carried (a sample, or
	 * part of one) is lost, though BPF counted no drop
	 */
	__u64 orphan_records;
};

/* `-- CMD`: the command retsnoop ran, once it ended (or retsnoop stopped first). */
struct cmd_report {
	char *const *argv;		/* as given after "--" */
	int pid;
	bool exited;			/* false: still running when retsnoop stopped */
	int exit_code;			/* exited: its status, 128+N for signal N */
	int signal;			/* exited: the signal that ended it, 0 if none */
	int exec_errno;			/* exec failed with this errno (exit_code 127) */
};

struct sink;

struct sink_ops {
	int (*sample)(struct sink *sk, const struct sample *s);
	/* everything is attached, samples may come */
	void (*ready)(struct sink *sk);
	/* @d grew while running (called at most once every few seconds) */
	void (*drops)(struct sink *sk, const struct drop_report *d);
	/* recording stopped and the buffer is drained; @d: totals of the run */
	void (*detaching)(struct sink *sk, const struct drop_report *d);
	/*
	 * after @ms of releasing; @bg_pid > 0: stopped by a signal, the rest of the release
	 * was left to that background process (stop__hand_off())
	 */
	void (*detached)(struct sink *sk, long ms, int bg_pid);
	/* the traced command ended (before detaching) */
	void (*command)(struct sink *sk, const struct cmd_report *r);
	void (*free)(struct sink *sk);
};

struct sink {
	const struct sink_ops *ops;
};

static inline int sink__sample(struct sink *sk, const struct sample *s)
{
	return sk->ops->sample(sk, s);
}

static inline void sink__ready(struct sink *sk)
{
	if (sk->ops->ready)
		sk->ops->ready(sk);
}

static inline void sink__drops(struct sink *sk, const struct drop_report *d)
{
	if (sk->ops->drops)
		sk->ops->drops(sk, d);
}

static inline void sink__detaching(struct sink *sk, const struct drop_report *d)
{
	if (sk->ops->detaching)
		sk->ops->detaching(sk, d);
}

static inline void sink__detached(struct sink *sk, long ms, int bg_pid)
{
	if (sk->ops->detached)
		sk->ops->detached(sk, ms, bg_pid);
}

static inline void sink__command(struct sink *sk, const struct cmd_report *r)
{
	if (sk->ops->command)
		sk->ops->command(sk, r);
}

static inline void sink__free(struct sink *sk)
{
	if (sk)
		sk->ops->free(sk);
}

/* What the text sink shows and how. */
struct text_sink_opts {
	size_t sz;			/* sizeof(struct text_sink_opts) */
	FILE *out;			/* samples and lifecycle lines; NULL: stdout */
	FILE *err;			/* warnings; NULL: stderr */
	struct view_opts view;		/* what each sample shows */
	/*
	 * @out is no terminal: "Detaching... DONE in N ms." is written at once when done, so
	 * progress lines on a shared log (stderr 2>&1) never split it
	 */
	bool whole_lines;
};

struct sink *text_sink__new(const struct text_sink_opts *opts);

struct json_sink_opts {
	size_t sz;			/* sizeof(struct json_sink_opts) */
	FILE *out;			/* NULL: stdout */
};

struct sink *json_sink__new(const struct json_sink_opts *opts);

/*
 * --json: an error (@level LOG_ERROR) or warning (LOG_WARN) as a JSON line of its own on
 * @out (NULL: stdout): {"version":1,"type":"error"|"warning","message":"..."}, the
 * message formatted from @fmt without its final newline. Any time in a run, with or
 * without a sink. 0 or a negative errno.
 */
int json_sink__log(FILE *out, int level, const char *fmt, va_list args);

#endif
