// SPDX-License-Identifier: BSD-2-Clause
#include <time.h>
#include "render.h"

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

int render_text__sample(FILE *out, const struct sample *s, const struct render_opts *o)
{
	const struct rec_session_start *st = s->start;
	char t1[32], t2[32];
	int err = 0;

	fmt_ts(t1, sizeof(t1), st->start_ts, o->ts_offset_ns);
	fmt_ts(t2, sizeof(t2), s->end->emit_ts, o->ts_offset_ns);
	fprintf(out, "%s -> %s TID/PID %u/%u (%.16s/%.16s):\n", t1, t2, st->pid, st->tgid,
		st->task_comm, st->proc_comm);
	if (o->func_trace) {
		fputc('\n', out);
		err = render_trace(out, s, o);
	}
	if (o->lbr && !err) {
		fputc('\n', out);
		err = render_lbr(out, s, o);
	}
	if (o->stack_view && !err) {
		fputc('\n', out);
		err = render_stack(out, s, o);
	}
	if (s->end->dropped_records)
		fprintf(out, "WARNING! Sample data incomplete! %u record(s) dropped. "
			"Consider increasing the ring buffer (-C bpf.ringbuf-size).\n",
			s->end->dropped_records);
	fputs("\n\n", out);
	return err;
}
