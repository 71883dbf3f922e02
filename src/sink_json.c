// SPDX-License-Identifier: BSD-2-Clause
/*
 * The JSON sink: one object per line (JSON lines), every field of the decoded sample plus
 * the run's lifecycle. The schema is docs/json.md; "version" changes when a field changes
 * meaning or goes away (adding fields does not change it).
 *
 * Thread names and source paths are arbitrary bytes; JSON text must be UTF-8, so invalid
 * sequences become U+FFFD rather than breaking the line for the consumer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include "err_carriers.h"
#include "opts.h"
#include "arg_plan.h"
#include "arg_render.h"
#include "errnos.h"
#include "log.h"
#include "out_whole.h"
#include "result_fmt.h"
#include "sink.h"

#define JSON_SCHEMA_VERSION 1

struct json_sink {
	struct sink sink;
	struct json_sink_opts o;
};

/* Length of the valid UTF-8 sequence at @p (at most @n bytes), 0 if invalid. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	size_t len, i;
	unsigned int cp;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0)
		len = 2, cp = p[0] & 0x1f;
	else if ((p[0] & 0xf0) == 0xe0)
		len = 3, cp = p[0] & 0x0f;
	else if ((p[0] & 0xf8) == 0xf0)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, surrogates and beyond Unicode are invalid too */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* A JSON string of arbitrary bytes @s, invalid UTF-8 replaced by U+FFFD. */
static json_t *jstr(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ?: "");
	size_t n = strlen((const char *)p), i = 0, o = 0, k;
	char *buf;
	json_t *j;

	buf = malloc(3 * n + 1);
	if (!buf)
		return NULL;
	while (i < n) {
		k = utf8_seq(p + i, n - i);
		if (k) {
			memcpy(buf + o, p + i, k);
			o += k;
			i += k;
		} else {
			memcpy(buf + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	j = json_stringn(buf, o);
	free(buf);
	return j;
}

static json_t *jhex(__u64 v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return json_string(buf);
}

static json_t *jint(long long v)
{
	return json_integer(v);
}

/* Sets @key unless @v is NULL (a failed allocation: the field is left out). */
static void put(json_t *obj, const char *key, json_t *v)
{
	if (v)
		json_object_set_new(obj, key, v);
}

static json_t *jsrc(const struct src_frame *f)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	put(o, "function", jstr(f->func));
	put(o, "file", jstr(f->file));
	put(o, "line", jint(f->line));
	put(o, "column", jint(f->col));
	return o;
}

/* A user-space location's binary: path, build ID and the address' offset in the file. */
static json_t *jimage(const struct code_image *img)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	put(o, "path", jstr(img->path));
	if (img->build_id)
		put(o, "build_id", jstr(img->build_id));
	put(o, "file_offset", jhex(img->file_off));
	return o;
}

/*
 * A code location: address, symbol+offset, source and inlined callees; for user space
 * also the process and binary (kernel locations stay as they always were).
 */
static void put_loc(json_t *o, const struct code_loc *loc)
{
	json_t *inl;
	int i;

	put(o, "addr", jhex(loc->addr));
	if (loc->as.kind == ADDR_SPACE_USER) {
		put(o, "space", jstr("user"));
		if (loc->image.path)
			put(o, "image", jimage(&loc->image));
	}
	if (loc->sym) {
		put(o, "symbol", jstr(loc->sym));
		put(o, "offset", jint(loc->addr - loc->sym_start));
	}
	if (loc->src_note)
		put(o, "source_missing", jstr(loc->src_note));
	if (loc->src_cnt <= 0)
		return;
	put(o, "source", jsrc(&loc->src[0]));
	inl = json_array();
	for (i = 1; inl && i < loc->src_cnt; i++)
		json_array_append_new(inl, jsrc(&loc->src[i]));
	put(o, "inlined", inl);
}

/* How a function's result is judged (enum func_flags, as one word). */
static const char *result_type(__u32 flags)
{
	/* user-space functions: their rule (see the man page), or the type's */
	if ((flags & FUNC_USER) && (flags & FUNC_CANT_FAIL) && !(flags & FUNC_RET_VOID))
		return "never";
	if (flags & FUNC_ERR_NONZERO)
		return "errno-positive";
	if (flags & FUNC_ERR_LE0)
		return "le0";
	if (flags & FUNC_ERR_ZERO)
		return "false";
	if (flags & FUNC_ERR_GUESS)
		return "unknown";
	if (flags & FUNC_RET_VOID)
		return "void";
	if (flags & FUNC_RET_BOOL)
		return "bool";
	if (flags & FUNC_RET_PTR)
		return "pointer";	/* NULL and ERR_PTR() fail */
	if (flags & FUNC_CANT_FAIL)
		return "unsigned";	/* never fails */
	if (flags & FUNC_ERR_RANGE)
		return "ulong";		/* user size_t: 64 bits in [-4095, -1] fail */
	if (flags & FUNC_NEEDS_SIGN_EXT)
		return "int";		/* low 32 bits in [-4095, -1] fail */
	return "long";			/* 64 bits in [-4095, -1] fail */
}

/* A function's result: the raw number, the text view's rendering, and errno if any. */
static void put_result(json_t *o, __s64 res, __u32 flags, bool failed)
{
	char buf[64];
	size_t len;
	__s64 v = result__normalize(res, flags);

	/* an int -1 of unknown type in a zero-extended register is -1 */
	if ((flags & (FUNC_ERR_GUESS | FUNC_ERR_NONZERO | FUNC_ERR_LE0)) && (__u64)res >> 32 == 0)
		v = (__s32)res;

	put(o, "result_type", json_string(result_type(flags)));
	result__format(buf, sizeof(buf), res, flags);
	len = strlen(buf);
	if (len >= 2 && buf[0] == '[' && buf[len - 1] == ']') {
		buf[len - 1] = '\0';
		put(o, "result_text", jstr(buf + 1));
	}
	if (!(flags & FUNC_RET_VOID))
		put(o, "result", jint(v));
	put(o, "failed", json_boolean(failed));
	if (failed && !(flags & FUNC_USER) && v < 0 && v >= -MAX_ERRNO && errno__name(-v))
		put(o, "errno", jstr(errno__name(-v)));
}

static void put_func(json_t *o, const struct sample *s, int func_id)
{
	const struct func *fn = sample__func(s, func_id);

	put(o, "function", jstr(fn->name));
	if (fn->module)
		put(o, "module", jstr(fn->module));
}

static const char *arg_kind_name(enum arg_kind k)
{
	switch (k) {
	case ARG_VALUE: return "value";
	case ARG_VALUE_BY_REF: return "value";
	case ARG_RAW_PTR: return "pointer";
	case ARG_PTR: return "pointee";
	case ARG_STR: return "string";
	case ARG_VARARG: return "vararg";
	case ARG_RAW_REG: return "register";
	case ARG_UNSUPP: return "unsupported";
	case ARG_SKIP_VARARG: return "vararg_unknown";
	default: return "stack_too_far";
	}
}

static json_t *jbytes(const __u8 *p, int len)
{
	static const char hex[] = "0123456789abcdef";
	char *buf = malloc(2 * len + 1);
	json_t *j;
	int i;

	if (!buf)
		return NULL;
	for (i = 0; i < len; i++) {
		buf[2 * i] = hex[p[i] >> 4];
		buf[2 * i + 1] = hex[p[i] & 0xf];
	}
	buf[2 * len] = '\0';
	j = json_string(buf);
	free(buf);
	return j;
}

/* One argument: its rendering as the text view shows it, and the bytes behind it. */
static json_t *jarg(const struct sample_args *a, int i)
{
	const struct arg_plan *ap = &a->plan->args[i];
	json_t *o = json_object();
	struct arg_piece pc;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!o)
		return NULL;
	put(o, "name", jstr(ap->name));
	put(o, "kind", json_string(arg_kind_name(ap->kind)));
	f = open_memstream(&text, &len);
	if (f) {
		arg_render__value(f, a, i, false, 0);
		if (!fclose(f))
			put(o, "text", jstr(text));
		free(text);
	}
	if (arg_render__piece(a, i, &pc))
		return o;
	if (pc.has_ptr)
		put(o, "pointer", jhex(pc.ptr));
	if (pc.len > 0) {
		put(o, "bytes", jbytes(pc.data, pc.len));
	} else if (pc.len == -ENODATA) {
		put(o, "null", json_true());
	} else if (pc.len == -ENOSPC) {
		put(o, "truncated", json_true());
	} else if (pc.len < 0) {
		put(o, "error", jint(pc.len));
		if (errno__name(-pc.len))
			put(o, "errno", jstr(errno__name(-pc.len)));
	}
	return o;
}

/* -A: "args" (an array), or "args_missing" when the call's record was lost. */
static void put_args(json_t *o, const struct sample_args *a)
{
	json_t *arr;
	int i, n;

	if (!a)
		return;
	if (a->missing || !a->plan) {
		put(o, "args_missing", json_true());
		return;
	}
	arr = json_array();
	n = arg_render__shown(a);
	for (i = 0; arr && i < n; i++)
		json_array_append_new(arr, jarg(a, i));
	put(o, "args", arr);
}

/* A failed traced user call: the errno of the syscall that failed under it, if any. */
static void put_sys_err(json_t *o, int sys_err)
{
	if (sys_err && errno__name(sys_err))
		put(o, "syscall_errno", jstr(errno__name(sys_err)));
}

static json_t *jframe(const struct sample *s, const struct sample_frame *f)
{
	json_t *o = json_object();
	char marker[3] = "  ";

	if (!o)
		return NULL;
	if (f->func_id >= 0 && (sample__func(s, f->func_id)->flags & FUNC_USER))
		put(o, "kind", json_string("traced_user"));
	else
		put(o, "kind", json_string(f->func_id < 0 ? "kernel" : f->has_kframe ? "traced" :
					   "traced_no_kframe"));
	if (f->func_id >= 0) {
		const struct func *fn = sample__func(s, f->func_id);

		put_func(o, s, f->func_id);
		marker[0] = f->origin ? '!' : f->replaced ? '^' : ' ';
		marker[1] = f->stitched ? '*' : ' ';
		put(o, "marker", json_string(marker));
		put(o, "stitched", json_boolean(f->stitched));
		put(o, "origin", json_boolean(f->origin));
		put(o, "replaced", json_boolean(f->replaced));
		put(o, "running", json_boolean(f->running));
		if (f->no_return) {
			put(o, "no_return", json_string(no_return_why(s, fn->flags, f->exit_cut)));
			put(o, "no_return_seen_after_ns", jint(f->dur_ns));
		} else if (!f->running) {
			put(o, "duration_ns", jint(f->dur_ns));
			put_result(o, f->res, fn->flags, f->failed);
			put_sys_err(o, f->sys_err);
		}
		put_args(o, f->args);
	}
	if (f->filtered)
		put(o, "filtered", json_true());
	put_loc(o, &f->loc);
	return o;
}

/* -U: the user frames (outermost first, like "stack"), and what is missing. */
static json_t *justack(const struct sample *s)
{
	json_t *o = json_object(), *arr, *f;
	size_t i;

	if (!o)
		return NULL;
	put(o, "missing", json_boolean(s->ustack_missing));
	put(o, "complete", json_boolean(!s->ustack_missing && !s->ustack_note));
	if (s->ustack_late)
		put(o, "taken_late", json_true());
	if (s->ustack_note)
		put(o, "note", jstr(s->ustack_note));
	arr = json_array();
	for (i = 0; arr && i < s->uframe_cnt; i++) {
		f = json_object();
		if (!f)
			continue;
		put(f, "kind", json_string("user"));
		put_loc(f, &s->uframes[i]);
		if (s->uframes[i].fp_guess)
			put(f, "frame_pointer_guess", json_true());
		json_array_append_new(arr, f);
	}
	put(o, "frames", arr);
	return o;
}

static const char *row_kind(enum trace_row_kind k)
{
	switch (k) {
	case TRACE_ENTRY: return "entry";
	case TRACE_EXIT: return "exit";
	case TRACE_LEAF: return "leaf";
	case TRACE_PROBE: return "probe";
	default: return "gap";
	}
}

/* An injected probe: its trace-table name, kind and target. */
static void put_probe(json_t *o, const struct sample *s, int probe_id)
{
	const struct probe_spec *p;

	put(o, "probe", jstr(sample__probe(s, probe_id)));
	if (probe_id < 0 || (size_t)probe_id >= s->probe_cnt)
		return;
	p = &s->probes[probe_id];
	put(o, "probe_id", jint(probe_id));
	put(o, "probe_kind", json_string(probe_kind__str(p->kind)));
	if (p->category)
		put(o, "category", jstr(p->category));
	put(o, "target", jstr(p->name));
	if (p->kind == PROBE_KPROBE)
		put(o, "offset", jint(p->offset));
}

static const char *sample_kind(enum sample_kind k)
{
	switch (k) {
	case SAMPLE_PROBE: return "probe";
	case SAMPLE_STITCH: return "stitch";
	default: return "final";
	}
}

static json_t *jrow(const struct sample *s, const struct trace_row *r)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	put(o, "kind", json_string(row_kind(r->kind)));
	if (r->kind == TRACE_GAP) {
		put(o, "missing", jint(r->missing));
		return o;
	}
	put(o, "depth", jint(r->depth));
	put(o, "seq", jint(r->seq_id));
	if (r->kind == TRACE_PROBE) {
		put_probe(o, s, r->probe_id);
		put(o, "time_ns", jint(r->ts + s->clock_off_ns));
		put_args(o, r->args);	/* -A: the probe's context */
		return o;
	}
	put_func(o, s, r->func_id);
	put(o, "time_ns", jint(r->ts + s->clock_off_ns));
	put_args(o, r->args);
	if (r->no_return) {
		put(o, "no_return", json_string(no_return_why(s, sample__func(s, r->func_id)->flags,
							      r->exit_cut)));
	} else if (r->kind != TRACE_ENTRY) {
		put(o, "duration_ns", jint(r->dur_ns));
		put_result(o, r->res, sample__func(s, r->func_id)->flags, r->failed);
		put_sys_err(o, r->sys_err);
	}
	return o;
}

static json_t *jlbr(const struct sample *s)
{
	json_t *o = json_object(), *recs = json_array();
	size_t i;

	if (!o || !recs) {
		json_decref(o);
		json_decref(recs);
		return NULL;
	}
	if (s->lbr_missing)
		put(o, "dropped", json_true());
	if (s->lbr_err)
		put(o, "error", jint(s->lbr_err));
	put(o, "relevant_found", json_boolean(s->lbr_relevant));
	for (i = 0; i < s->lbr_cnt; i++) {
		json_t *r = json_object(), *from = json_object(), *to = json_object();

		if (!r || !from || !to) {
			json_decref(r);
			json_decref(from);
			json_decref(to);
			break;
		}
		put(r, "index", jint(i));
		/* records below the first relevant one were taken by retsnoop's own probes */
		put(r, "relevant", json_boolean(!s->lbr_relevant || i >= s->lbr_first));
		put_loc(from, &s->lbrs[i].from);
		put_loc(to, &s->lbrs[i].to);
		put(r, "from", from);
		put(r, "to", to);
		json_array_append_new(recs, r);
	}
	put(o, "records", recs);
	return o;
}

static json_t *event(const char *type)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	put(o, "version", jint(JSON_SCHEMA_VERSION));
	put(o, "type", json_string(type));
	return o;
}

/* One line per object, in one write (out_whole.h); a failed dump is an output error. */
static int emit(struct json_sink *js, json_t *o)
{
	size_t len;
	char *text;
	int err;

	if (!o)
		return -ENOMEM;
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	len = text ? strlen(text) : 0;
	if (!len) {
		free(text);
		return -EIO;
	}
	/* the NUL's place takes the newline: the line goes out whole with it */
	text[len] = '\n';
	err = out_whole__write(js->o.out, text, len + 1);
	free(text);
	return err;
}

/* The syscall succeeded, the error went back in a message: which, through what. */
static json_t *jinband(const struct sample *s)
{
	const char *fn = sample__func(s, s->inband_func)->name;
	const struct err_carrier *c = err_carriers__find(fn);
	/* a replayed capture may hold anything: only an errno is negated */
	const char *name = s->inband_err < 0 && s->inband_err >= -MAX_ERRNO ?
			   errno__name(-s->inband_err) : NULL;
	json_t *o = json_object();

	if (!o)
		return NULL;
	put(o, "errno", jint(s->inband_err));
	put(o, "errno_name", name ? jstr(name) : json_null());
	put(o, "carrier", jstr(fn));
	put(o, "via", jstr(c ? c->what : "message"));
	return o;
}

/* The thread exited inside the session: how (exit_cut.bpf.h). */
static json_t *jthread_exit(const struct sample *s)
{
	int sig = s->exit_code & 0x7f;
	json_t *o = json_object();

	if (!o)
		return NULL;
	put(o, "status", sig ? json_null() : jint(s->exit_code >> 8 & 0xff));
	put(o, "signal", sig ? jint(sig) : json_null());
	put(o, "own_exit_call", json_boolean(s->exit_own));
	put(o, "why", jstr(s->exit_why));
	return o;
}

static int json_sample(struct sink *sk, const struct sample *s)
{
	struct json_sink *js = (struct json_sink *)sk;
	json_t *o = event("sample"), *arr, *lost;
	size_t i;

	if (!o)
		return -ENOMEM;
	put(o, "session_id", jint(s->sess_id));
	put(o, "tid", jint(s->tid));
	put(o, "pid", jint(s->pid));
	put(o, "thread_comm", jstr(s->task_comm));
	put(o, "process_comm", jstr(s->proc_comm));
	put(o, "start_time_ns", jint(s->start_ns + s->clock_off_ns));
	put(o, "end_time_ns", jint(s->end_ns + s->clock_off_ns));
	put(o, "error", json_boolean(s->is_err));
	put(o, "sample_kind", json_string(sample_kind(s->kind)));
	if (s->kind == SAMPLE_PROBE)
		put_probe(o, s, s->probe_id);
	if (s->inband)
		put(o, "inband_error", jinband(s));
	if (s->exited)
		put(o, "thread_exit", jthread_exit(s));
	if (s->passed_on)
		put(o, "error_passed_on", json_true());

	arr = json_array();
	for (i = 0; arr && i < s->frame_cnt; i++)
		json_array_append_new(arr, jframe(s, &s->frames[i]));
	put(o, "stack", arr);
	if (s->kstack_note)
		put(o, "kernel_stack_note", jstr(s->kstack_note));
	if (s->has_ustack)
		put(o, "user_stack", justack(s));
	if (s->has_trace) {
		arr = json_array();
		for (i = 0; arr && i < s->row_cnt; i++)
			json_array_append_new(arr, jrow(s, &s->rows[i]));
		put(o, "trace", arr);
	}
	if (s->has_lbr)
		put(o, "lbr", jlbr(s));

	lost = json_object();
	if (lost) {
		put(lost, "dropped_records", jint(s->dropped_records));
		put(lost, "trace_records", jint(s->trace_lost));
		if (s->has_args)
			put(lost, "args_records", jint(s->args_lost));
		put(lost, "error_chain", json_boolean(s->chain_lost));
		put(lost, "truncated", json_boolean(s->truncated));
		put(o, "lost", lost);
	}
	return emit(js, o);
}

static void json_ready(struct sink *sk)
{
	emit((struct json_sink *)sk, event("ready"));
}

static json_t *jdrops(const char *type, const struct drop_report *d, bool final)
{
	json_t *o = event(type);

	if (!o)
		return NULL;
	put(o, "final", json_boolean(final));
	put(o, "dropped_samples", jint(d->dropped_sessions));
	put(o, "no_session_slot", jint(d->no_slot));
	put(o, "session_slots", jint(d->session_slots));
	put(o, "incomplete_samples", jint(d->incomplete_sessions));
	put(o, "skipped_calls", jint(d->skipped_calls));
	put(o, "lost_session_ends", jint(d->lost_ends));
	put(o, "lost_trace_records", jint(d->trace_lost));
	if (final) {
		put(o, "running_sessions", jint(d->running_sessions));
		put(o, "kernel_missed_hits", jint(d->kernel_missed));
		put(o, "skipped_exits", jint(d->exits_missed));
		put(o, "lost_mmap_records", jint(d->mmap_lost));
	}
	put(o, "lost_args_records", jint(d->args_lost));
	put(o, "orphan_records", jint(d->orphan_records));
	return o;
}

static void json_drops(struct sink *sk, const struct drop_report *d)
{
	emit((struct json_sink *)sk, jdrops("drops", d, false));
}

static void json_detaching(struct sink *sk, const struct drop_report *d)
{
	emit((struct json_sink *)sk, jdrops("drops", d, true));
}

static void json_detached(struct sink *sk, long ms, int bg_pid)
{
	json_t *o = event("detached");

	if (o)
		put(o, "duration_ms", jint(ms));
	if (o && bg_pid > 0)
		put(o, "background_pid", jint(bg_pid));
	emit((struct json_sink *)sk, o);
}

static void json_command(struct sink *sk, const struct cmd_report *r)
{
	json_t *o = event("command"), *argv = json_array();
	size_t i;

	for (i = 0; argv && r->argv[i]; i++)
		json_array_append_new(argv, jstr(r->argv[i]));
	if (o) {
		put(o, "argv", argv);
		put(o, "pid", jint(r->pid));
		put(o, "exited", json_boolean(r->exited));
		if (r->exited) {
			put(o, "exit_status", jint(r->exit_code));
			put(o, "signal", r->signal ? jint(r->signal) : json_null());
		}
		if (r->exec_errno)
			put(o, "exec_error", jstr(strerror(r->exec_errno)));
	} else {
		json_decref(argv);
	}
	emit((struct json_sink *)sk, o);
}

static void json_free(struct sink *sk)
{
	free(sk);
}

static const struct sink_ops json_ops = {
	.sample = json_sample,
	.ready = json_ready,
	.drops = json_drops,
	.detaching = json_detaching,
	.detached = json_detached,
	.command = json_command,
	.free = json_free,
};

int json_sink__log(FILE *out, int level, const char *fmt, va_list args)
{
	struct json_sink js = { .o.out = out ?: stdout };
	char buf[512], *msg = buf;
	va_list copy;
	json_t *o;
	int n, err;
	size_t len;

	va_copy(copy, args);
	n = vsnprintf(buf, sizeof(buf), fmt, copy);
	va_end(copy);
	if (n < 0)
		return -EINVAL;
	/* a verifier log can be long: the whole message, whatever its size */
	if ((size_t)n >= sizeof(buf)) {
		msg = malloc(n + 1);
		if (!msg)
			return -ENOMEM;
		vsnprintf(msg, n + 1, fmt, args);
	}
	len = strlen(msg);
	while (len && msg[len - 1] == '\n')
		msg[--len] = '\0';
	o = event(level < LOG_WARN ? "error" : "warning");
	if (o)
		put(o, "message", jstr(msg));
	err = emit(&js, o);
	if (msg != buf)
		free(msg);
	return err;
}

struct sink *json_sink__new(const struct json_sink_opts *opts)
{
	struct json_sink *js;

	js = calloc(1, sizeof(*js));
	if (!js)
		return NULL;
	if (OPTS_COPY(&js->o, opts)) {
		free(js);
		return errno = EINVAL, NULL;
	}
	js->sink.ops = &json_ops;
	js->o.out = js->o.out ?: stdout;
	return &js->sink;
}
