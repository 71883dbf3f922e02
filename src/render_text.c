// SPDX-License-Identifier: BSD-2-Clause
/* The text sink: samples as the seeds show them, and the run's lifecycle lines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "err_carriers.h"
#include "errnos.h"
#include "opts.h"
#include "out_whole.h"
#include "render.h"
#include "sink.h"

/* "HH:MM:SS.uuuuuu" in local time for a BPF (monotonic) timestamp. */
static void fmt_ts(char *buf, size_t n, __u64 mono_ns, __s64 offset_ns)
{
	/* wrapping sum: timestamps of a hostile capture must not overflow a signed add */
	__s64 ns = (__s64)(mono_ns + (__u64)offset_ns);
	time_t sec = ns / 1000000000;
	struct tm tm;
	size_t len;

	localtime_r(&sec, &tm);
	len = strftime(buf, n, "%H:%M:%S", &tm);
	snprintf(buf + len, n - len, ".%06lld", (long long)(ns % 1000000000) / 1000);
}

/* An in-band error: what the stack view's '!' is about, since the syscall succeeded. */
static void render_inband(FILE *out, const struct sample *s)
{
	const char *fn = sample__func(s, s->inband_func)->name;
	const struct err_carrier *c = err_carriers__find(fn);
	/* a replayed capture may hold anything: only an errno is negated */
	const char *name = s->inband_err < 0 && s->inband_err >= -MAX_ERRNO ?
			   errno__name(-s->inband_err) : NULL;

	fprintf(out, "In-band error ");
	if (name)
		fprintf(out, "-%s", name);
	else
		fprintf(out, "%d", s->inband_err);
	fprintf(out, ": the syscall succeeded, the error went back in a %s (%s()).\n",
		c ? c->what : "message", fn);
}

int render_text__sample(FILE *out, const struct sample *s, const struct view_opts *v)
{
	char t1[32], t2[32];
	size_t lost = s->dropped_records + s->trace_lost + s->args_lost;
	int err = 0;

	fmt_ts(t1, sizeof(t1), s->start_ns, s->clock_off_ns);
	fmt_ts(t2, sizeof(t2), s->end_ns, s->clock_off_ns);
	fprintf(out, "%s -> %s TID/PID %u/%u (%s/%s):\n", t1, t2, s->tid, s->pid,
		s->task_comm, s->proc_comm);
	if (s->inband)
		render_inband(out, s);
	if (s->exited)
		fprintf(out, "Cut short: %s inside the session; its running calls never returned.\n",
			s->exit_why);
	if (v->func_trace && s->has_trace) {
		/* -U: the stack view shows the user frames; without it, the trace does */
		if (!v->stack && s->has_ustack) {
			fputc('\n', out);
			err = render_ustack(out, s, v);
		}
		fputc('\n', out);
		if (!err)
			err = render_trace(out, s, v);
	}
	if (v->lbr && s->has_lbr && !err) {
		fputc('\n', out);
		err = render_lbr(out, s, v);
	}
	if (v->stack && !err) {
		fputc('\n', out);
		err = render_stack(out, s, v);
	}
	if (lost)
		fprintf(out, "WARNING! Sample data incomplete! %zu record(s) dropped. "
			"Consider increasing the ring buffer (-C bpf.ringbuf-size).\n", lost);
	/* said as JSON's lost.error_chain and lost.truncated are: the stack is not the whole */
	if (s->chain_lost)
		fprintf(out, "WARNING! Error chain incomplete: more failed calls waited, nested, "
			"for their callers' cleanup than a session keeps aside, this chain's "
			"among them; the origin shown may be a caller of the real one.\n");
	if (s->truncated)
		fprintf(out, "WARNING! Calls nested deeper than %d traced levels were not "
			"recorded.\n", MAX_FSTACK_DEPTH);
	fputs("\n\n", out);
	return err;
}

struct text_sink {
	struct sink sink;
	struct text_sink_opts o;
};

/* A sample's lines in one write (out_whole.h): CMD's output goes before or after them. */
static int text_sample(struct sink *sk, const struct sample *s)
{
	struct text_sink *ts = (struct text_sink *)sk;
	char *text = NULL;
	size_t len = 0;
	int err, werr;
	FILE *m;

	m = open_memstream(&text, &len);
	if (!m) {
		err = render_text__sample(ts->o.out, s, &ts->o.view);
		fflush(ts->o.out);
		return err;
	}
	err = render_text__sample(m, s, &ts->o.view);
	if (fclose(m))
		err = err ?: -ENOMEM;
	werr = text ? out_whole__write(ts->o.out, text, len) : 0;
	free(text);
	return err ?: werr;
}

static void text_ready(struct sink *sk)
{
	struct text_sink *ts = (struct text_sink *)sk;

	fprintf(ts->o.out, "Receiving data...\n");
	fflush(ts->o.out);
}

/* The setting that raises the cap on concurrent sessions, and twice its value. */
static const char *slot_knob(const struct drop_report *d, unsigned long long *more)
{
	*more = d->session_slots ? 2ull * d->session_slots : 8192;
	return d->slots_in_table ? "bpf.session-table" : "bpf.sessions-size";
}

static void text_drops(struct sink *sk, const struct drop_report *d)
{
	struct text_sink *ts = (struct text_sink *)sk;
	unsigned long long more;
	const char *knob = slot_knob(d, &more);

	/* the advice follows the cause: a full ring buffer, or no free session slot */
	if (d->no_slot && d->no_slot == d->dropped_sessions && !d->incomplete_sessions)
		fprintf(ts->o.err, "WARNING! %llu samples were dropped so far, you are missing data! "
			"More threads were inside entry functions at once than the %u session slots; "
			"consider -C %s=%llu.\n",
			(unsigned long long)d->dropped_sessions, d->session_slots, knob, more);
	else
		fprintf(ts->o.err, "WARNING! %llu samples were dropped and %llu are incomplete so far, "
			"you are missing data! Consider increasing the ring buffer (-C bpf.ringbuf-size)%s%s%s.\n",
			(unsigned long long)d->dropped_sessions,
			(unsigned long long)d->incomplete_sessions,
			d->no_slot ? " and the session slots (-C " : "", d->no_slot ? knob : "",
			d->no_slot ? ")" : "");
}

static void text_detaching(struct sink *sk, const struct drop_report *d)
{
	struct text_sink *ts = (struct text_sink *)sk;

	/* after the ^C on its own line; the drop summary keeps "Detaching... DONE" one line */
	fputc('\n', ts->o.out);
	fflush(ts->o.out);
	/*
	 * What the samples lost. The kernel's skipped hits are any process's; those that
	 * cost a traced session a call are in skipped_calls (an exit without its entry, a
	 * frame left without its exit): alone they are only a note.
	 */
	if (d->dropped_sessions || d->incomplete_sessions || d->skipped_calls || d->trace_lost ||
	    d->args_lost || d->mmap_lost || d->lost_ends || d->orphan_records || d->exits_missed) {
		fprintf(ts->o.err, "WARNING! There were dropped or incomplete data. "
			"Output might be incomplete!\n");
		fprintf(ts->o.err, "%-20s%llu\n", "DROPPED SAMPLES:",
			(unsigned long long)d->dropped_sessions);
		fprintf(ts->o.err, "%-20s%llu\n", "INCOMPLETE SAMPLES:",
			(unsigned long long)d->incomplete_sessions);
		/* of the dropped: no free slot, the cap on concurrent sessions */
		if (d->no_slot) {
			unsigned long long more;
			const char *knob = slot_knob(d, &more);

			fprintf(ts->o.err, "%-20s%llu (more threads were inside entry functions at once than the %u session slots; -C %s=%llu gives more)\n",
				"NO SESSION SLOT:", (unsigned long long)d->no_slot,
				d->session_slots, knob, more);
		}
		if (d->skipped_calls)
			fprintf(ts->o.err, "%-20s%llu\n", "SKIPPED CALLS:",
				(unsigned long long)d->skipped_calls);
		/* the kernel ran no exit probe for an entry function: its session ended late */
		if (d->lost_ends)
			fprintf(ts->o.err, "%-20s%llu (the kernel skipped an entry function's return; each session ended at its thread's next traced call or its exit, reported only if it had failed)\n",
				"LOST SESSION ENDS:", (unsigned long long)d->lost_ends);
		/* the kernel runs one BPF program per CPU at a time and skips the rest */
		if (d->kernel_missed)
			fprintf(ts->o.err, "%-20s%llu (any process; while another BPF program ran on the CPU)\n",
				"KERNEL-SKIPPED HITS:", (unsigned long long)d->kernel_missed);
		if (d->exits_missed)
			fprintf(ts->o.err, "%-20s%llu (the kernel skipped retsnoop's program at these threads' exits, while another run of it waited on the CPU: a session such an exit cut short is not reported)\n",
				"SKIPPED EXITS:", (unsigned long long)d->exits_missed);
		if (d->trace_lost)
			fprintf(ts->o.err, "%-20s%llu\n", "LOST TRACE RECORDS:",
				(unsigned long long)d->trace_lost);
		if (d->args_lost)
			fprintf(ts->o.err, "%-20s%llu\n", "LOST ARGS RECORDS:",
				(unsigned long long)d->args_lost);
		if (d->orphan_records)
			fprintf(ts->o.err, "%-20s%llu (records of sessions whose start never arrived: what they carried is lost)\n",
				"ORPHAN RECORDS:", (unsigned long long)d->orphan_records);
		/* the kernel's buffer was full: a process that exited early may lack its stack */
		if (d->mmap_lost)
			fprintf(ts->o.err, "%-20s%llu (user stacks of processes that exited before being read may be incomplete)\n",
				"LOST MMAP RECORDS:", (unsigned long long)d->mmap_lost);
	} else if (d->kernel_missed) {
		fprintf(ts->o.err, "Note: the kernel skipped %llu probe hits (any process; while another BPF program ran on the CPU); no traced session lost track of a call (SKIPPED CALLS: 0).\n",
			(unsigned long long)d->kernel_missed);
	}
	if (d->running_sessions)
		fprintf(ts->o.err, "Note: %llu session(s) were still running when tracing stopped "
			"(a thread inside an entry function%s) and are not reported.\n",
			(unsigned long long)d->running_sessions,
			d->exits_missed ? ", or one whose exit was skipped" : "");
	if (ts->o.whole_lines)
		return;
	fprintf(ts->o.out, "Detaching... ");
	fflush(ts->o.out);
}

static void text_detached(struct sink *sk, long ms, int bg_pid)
{
	struct text_sink *ts = (struct text_sink *)sk;
	const char *lead = ts->o.whole_lines ? "Detaching... " : "";

	if (bg_pid > 0)
		fprintf(ts->o.out, "%sleft to the background after %ld ms: the kernel goes on releasing what was attached (pid %d).\n",
			lead, ms, bg_pid);
	else
		fprintf(ts->o.out, "%sDONE in %ld ms.\n", lead, ms);
	fflush(ts->o.out);
}

static void text_command(struct sink *sk, const struct cmd_report *r)
{
	struct text_sink *ts = (struct text_sink *)sk;

	if (r->exec_errno)
		return;	/* said on stderr, where the run's errors go */
	if (!r->exited)
		fprintf(ts->o.out, "Command '%s' (pid %d) is still running, no longer traced.\n",
			r->argv[0], r->pid);
	else if (r->signal)
		fprintf(ts->o.out, "Command '%s' (pid %d) was killed by signal %d (%s), exit status %d.\n",
			r->argv[0], r->pid, r->signal, strsignal(r->signal), r->exit_code);
	else
		fprintf(ts->o.out, "Command '%s' (pid %d) exited with status %d.\n", r->argv[0],
			r->pid, r->exit_code);
	fflush(ts->o.out);
}

static void text_free(struct sink *sk)
{
	free(sk);
}

static const struct sink_ops text_ops = {
	.sample = text_sample,
	.ready = text_ready,
	.drops = text_drops,
	.detaching = text_detaching,
	.detached = text_detached,
	.command = text_command,
	.free = text_free,
};

struct sink *text_sink__new(const struct text_sink_opts *opts)
{
	struct text_sink *ts;

	ts = calloc(1, sizeof(*ts));
	if (!ts)
		return NULL;
	if (OPTS_COPY(&ts->o, opts)) {
		free(ts);
		return errno = EINVAL, NULL;
	}
	ts->sink.ops = &text_ops;
	ts->o.out = ts->o.out ?: stdout;
	ts->o.err = ts->o.err ?: stderr;
	return &ts->sink;
}
