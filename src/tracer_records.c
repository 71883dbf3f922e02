// SPDX-License-Identifier: BSD-2-Clause
/*
 * The tracer's reading half: the ring buffer's records on their way to samples. Each
 * record goes to the capture file, tells -U of a process first seen or a user stack
 * taken (its mappings read while it likely lives), and into the session store, which
 * hands a finished session to the sample builder and the sink. With -U a sample record
 * is held until the buffer has been read dry, after its process's mappings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "capture.h"
#include "retsnoop.skel.h"
#include "ringbuf_reader.h"
#include "sample.h"
#include "session.h"
#include "tracer.h"
#include "tracer_int.h"

size_t tracer__samples(const struct tracer *t)
{
	return t->sample_cnt;
}

static int on_session(void *ctx, const struct sess_recs *r)
{
	struct tracer *t = ctx;
	struct sample *s;
	int err;

	err = sample__build(r, &t->bopts, &s);
	if (err)
		return err;
	t->sample_cnt++;
	err = sink__sample(t->o.sink, s);
	sample__free(s);
	return err;
}

static bool is_sample_rec(__u32 type)
{
	/* a forgotten session's end too: its held interim samples go before it */
	return type == REC_SESSION_END || type == REC_SESSION_PROBE ||
	       type == REC_SESSION_STITCH || type == REC_SESSION_FORGET;
}

/* Decode the held samples, in arrival order. */
static int flush_pending(struct tracer *t)
{
	size_t i;
	int err = 0, e;

	for (i = 0; i < t->pending_cnt; i++) {
		e = session_store__add(t->store, t->pending[i], t->pending_sz[i]);
		if (e && e != -EINVAL && !err)
			err = e;
		free(t->pending[i]);
	}
	t->pending_cnt = 0;
	return err;
}

/*
 * -U: hold a sample record; 1 if held. A session's next LBR or user stack record replaces
 * its current one in the store, so a held sample of that session goes first.
 */
static int hold_sample(struct tracer *t, const void *data, size_t size, __u32 type)
{
	__u64 id;
	size_t i;
	int err;

	if (size < 16)
		return 0;
	memcpy(&id, (const char *)data + 8, sizeof(id));	/* every record: type, ..., sess_id */
	/* the in-band chain takes the LBR record before it, like a sample */
	if (type == REC_USTACK || type == REC_LBR_STACK || type == REC_SESSION_INBAND) {
		for (i = 0; i < t->pending_cnt; i++) {
			if (!memcmp((const char *)t->pending[i] + 8, &id, sizeof(id)))
				return flush_pending(t);
		}
		return 0;
	}
	if (!is_sample_rec(type))
		return 0;
	if (t->pending_cnt == sizeof(t->pending) / sizeof(t->pending[0]) &&
	    (err = flush_pending(t)))
		return err;
	t->pending[t->pending_cnt] = malloc(size);
	if (!t->pending[t->pending_cnt])
		return -ENOMEM;
	memcpy(t->pending[t->pending_cnt], data, size);
	t->pending_sz[t->pending_cnt++] = size;
	return 1;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct tracer *t = ctx;
	int err;

	if (t->o.capture)
		capture__record(t->o.capture, data, size);
	/* -U: a process's mappings are read when it is first seen, while it likely lives */
	if (t->o.ustack && size >= sizeof(struct rec_session_start) &&
	    *(const __u32 *)data == REC_SESSION_START)
		ustack__note_process(t->o.ustack, ((const struct rec_session_start *)data)->tgid);
	if (t->o.ustack && size >= sizeof(struct rec_ustack) && *(const __u32 *)data == REC_USTACK)
		ustack__note_capture(t->o.ustack, data);
	err = t->o.ustack && size >= 4 ? hold_sample(t, data, size, *(const __u32 *)data) : 0;
	if (err < 0)
		return err;
	err = err ? 0 : session_store__add(t->store, data, size);
	if (err && err != -EINVAL)
		return err;
	/*
	 * A buffer that never drains must not keep ringbuf_reader__poll() from returning once
	 * asked to stop. Only after this record is in: the reader has consumed the record the
	 * callback fails on, so failing before would lose it.
	 */
	if (t->o.stop && *t->o.stop && !t->draining)
		return -EINTR;
	return 0;
}

int tracer__start(struct tracer *t)
{
	struct session_store_opts sopts = {
		.sz = sizeof(sopts), .on_session = on_session, .ctx = t,
	};
	int err;

	t->bopts = (struct sample_build_opts){
		.sz = sizeof(t->bopts), .funcs = t->o.funcs, .func_cnt = t->o.func_cnt,
		.syms = t->o.syms, .clock_off_ns = t->o.clock_off_ns, .view = t->o.view,
		.args = t->o.args, .probes = t->o.probes, .probe_cnt = t->o.probe_cnt,
		.probe_args = t->o.probe_args,
		.ustack = t->o.user_stacks,
	};
	if (t->o.ustack)
		t->bopts.ustacks = ustack__resolver(t->o.ustack);
	if (t->o.capture)
		t->bopts.syms = capture__resolver(t->o.capture, &t->o.syms);
	t->store = session_store__new(&sopts);
	t->rb = ringbuf_reader__new(bpf_map__fd(t->skel->maps.rb), on_record, t, NULL);
	if (!t->store || !t->rb) {
		err = -errno ?: -ENOMEM;
		pr(t, LOG_ERROR, "Failed to set up the ring buffer: %d\n", err);
		return err;
	}
	t->skel->bss->ready = true;
	return 0;
}

int tracer__wake_once_on(struct tracer *t, int fd)
{
	return t->rb ? ringbuf_reader__wake_once_on(t->rb, fd) : -EINVAL;
}

int tracer__wake_on(struct tracer *t, int fd)
{
	return t->rb ? ringbuf_reader__wake_on(t->rb, fd) : -EINVAL;
}

int tracer__poll(struct tracer *t, int timeout_ms)
{
	int err;

	if (t->o.stop && *t->o.stop)
		return -EINTR;
	err = ringbuf_reader__poll(t->rb, timeout_ms);
	/* -U: the kernel's mapping records read before its buffers fill, samples or not */
	ustack__sync(t->o.ustack);
	if (t->pending_cnt) {
		int e = flush_pending(t);

		if (e && err >= 0)
			err = e;
	}
	tracer_drops__check(t);
	if (t->o.stop && *t->o.stop)
		return -EINTR;
	/*
	 * Any other signal only cut the wait short: SIGCONT after a Ctrl-Z and fg, a
	 * debugger's attach. Tracing goes on (without a stop flag, nothing else could end it).
	 */
	if (err == -EINTR)
		return t->o.stop ? 0 : -EINTR;
	if (err < 0) {
		pr(t, LOG_ERROR, "Failed to poll the ring buffer: %d\n", err);
		return err;
	}
	return 0;
}

int tracer__stop(struct tracer *t)
{
	int err;

	if (!t->skel || !t->rb)
		return 0;
	/* stop recording first, then drain what is already in the buffer */
	t->skel->bss->ready = false;
	t->draining = true;
	err = ringbuf_reader__consume(t->rb);
	if (t->pending_cnt) {
		int e = flush_pending(t);

		if (e && err >= 0)
			err = e;
	}
	t->draining = false;
	t->stopped = true;
	return err < 0 ? err : 0;
}
