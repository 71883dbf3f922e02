// SPDX-License-Identifier: BSD-2-Clause
/* Capture files: writing a live run's records and symbol answers (replay.c reads them). */
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "opts.h"
#include "arg_plan.h"
#include "capture.h"
#include "capture_format.h"

struct capture {
	FILE *f;
	int err;
	struct sym_resolver inner;
	/* the resolver given to the builder, in case a caller asks twice */
	struct sym_resolver outer;
	void *ksyms_seen;	/* tsearch() sets of addresses already written */
	void *srcs_seen;
	const struct arg_plans *args;
	bool *plan_written;	/* per function id */
};

static void cap_write(struct capture *c, __u32 kind, const void *a, size_t alen,
		      const void *b, size_t blen)
{
	static const char zeros[8];
	__u32 hdr[2] = { kind, alen + blen };
	size_t pad = (8 - (alen + blen) % 8) % 8;

	if (c->err)
		return;
	if (fwrite(hdr, sizeof(hdr), 1, c->f) != 1 ||
	    (alen && fwrite(a, alen, 1, c->f) != 1) ||
	    (blen && fwrite(b, blen, 1, c->f) != 1) ||
	    (pad && fwrite(zeros, pad, 1, c->f) != 1))
		c->err = -errno ?: -EIO;
}

/* A probe's context plan (-J -A): all of them up front, they are few. */
static void cap_probe_plan(struct capture *c, __u32 id, const struct func_arg_plan *p)
{
	__u32 hdr[2] = { id, 0 };
	size_t len;
	void *buf;
	int err;

	if (!p || !p->btf)
		return;		/* not described: replayed as an empty plan too */
	err = arg_plan__serialize(p, &buf, &len);
	if (err) {
		c->err = c->err ?: err;
		return;
	}
	cap_write(c, CAP_PROBE_PLAN, hdr, sizeof(hdr), buf, len);
	free(buf);
}

struct capture *capture__create(const char *path, const struct capture_opts *opts)
{
	const struct capture_views *v;
	struct capture_opts o;
	struct capture *c;
	__u32 views[2];
	size_t i;

	if (OPTS_COPY(&o, opts))
		return errno = EINVAL, NULL;
	opts = &o;
	v = &o.views;
	views[0] = (v->stack_view ? VIEW_STACK : 0) | (v->func_trace ? VIEW_TRACE : 0) |
		   (v->lbr ? VIEW_LBR : 0) | (v->full_lbr ? VIEW_FULL_LBR : 0) |
		   (v->unfiltered ? VIEW_UNFILTERED : 0) | (v->emit_addrs ? VIEW_EMIT_ADDRS : 0) |
		   (v->dec_offs ? VIEW_DEC_OFFS : 0) |
		   (v->args && opts->probe_args ? VIEW_PROBE_CTX : 0);
	views[1] = (__u32)v->lbr_max_count;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->f = fopen(path, "we");
	if (!c->f) {
		free(c);
		return NULL;
	}
	fwrite(CAP_MAGIC, 8, 1, c->f);
	cap_write(c, CAP_TS_OFFSET, &opts->clock_off_ns, sizeof(opts->clock_off_ns), NULL, 0);
	cap_write(c, CAP_VIEWS, views, sizeof(views), NULL, 0);
	if (v->args && opts->args) {
		__u32 av[2] = { v->args_fmt, (__u32)v->args_max_width };

		c->args = opts->args;
		c->plan_written = calloc(arg_plans__cnt(opts->args) ?: 1, sizeof(bool));
		if (!c->plan_written) {
			capture__close(c);
			return NULL;
		}
		cap_write(c, CAP_ARGS_VIEW, av, sizeof(av), NULL, 0);
	}
	for (i = 0; i < opts->func_cnt; i++) {
		const struct func *f = &opts->funcs[i];
		struct { __u32 id, flags; __u64 addr; } h = { i, f->flags, f->addr };

		cap_write(c, CAP_FUNC, &h, sizeof(h), f->name, strlen(f->name) + 1);
	}
	/* a probe as given: replay parses it again, display name and all */
	for (i = 0; i < opts->probe_cnt; i++) {
		__u32 h[2] = { i, 0 };
		const char *spec = opts->probes[i].spec;

		cap_write(c, CAP_PROBE, h, sizeof(h), spec, strlen(spec) + 1);
	}
	for (i = 0; v->args && opts->probe_args && i < opts->probe_cnt; i++)
		cap_probe_plan(c, i, arg_plans__get(opts->probe_args, i));
	return c;
}

/* A function's capture plan, the first time its arguments are recorded. */
static void cap_plan(struct capture *c, const void *rec, size_t size)
{
	const struct rec_fnargs *r = rec;
	const struct func_arg_plan *p;
	__u32 hdr[2] = {};
	size_t len;
	void *buf;
	int err;

	if (!c->args || size < sizeof(*r) || r->type != REC_FNARGS)
		return;
	hdr[0] = r->func_id;
	p = arg_plans__get(c->args, hdr[0]);
	if (!p || c->plan_written[hdr[0]])
		return;
	c->plan_written[hdr[0]] = true;
	err = arg_plan__serialize(p, &buf, &len);
	if (err) {
		c->err = c->err ?: err;
		return;
	}
	cap_write(c, CAP_ARGS_PLAN, hdr, sizeof(hdr), buf, len);
	free(buf);
}

int capture__record(struct capture *c, const void *rec, size_t size)
{
	cap_plan(c, rec, size);
	cap_write(c, CAP_RECORD, rec, size, NULL, 0);
	return c->err;
}

/* True the first time @addr is added to @set. */
static bool first_time(void **set, __u64 addr)
{
	__u64 *key = malloc(sizeof(*key));
	void *n;

	if (!key)
		return false;
	*key = addr;
	n = tsearch(key, set, cap_addr_cmp);
	if (n && *(__u64 **)n == key)
		return true;
	free(key);
	return false;
}

static bool cap_sym(void *ctx, const struct addr_space *as, __u64 addr, struct sym_hit *hit)
{
	struct capture *c = ctx;
	bool found = c->inner.sym && c->inner.sym(c->inner.ctx, as, addr, hit);

	/* only kernel addresses exist in captures so far */
	if (as->kind != ADDR_SPACE_KERNEL)
		return found;
	if (first_time(&c->ksyms_seen, addr)) {
		struct { __u64 addr, start, size; __u32 found; } __attribute__((packed)) h = {
			addr, found ? hit->start : 0, found ? hit->size : 0, found
		};
		const char *n = found ? hit->name : "";

		cap_write(c, CAP_KSYM, &h, sizeof(h), n, strlen(n) + 1);
	}
	return found;
}

static int cap_src(void *ctx, const struct addr_space *as, __u64 addr,
		   struct src_frame *frames, int max)
{
	struct capture *c = ctx;
	int n = c->inner.src ? c->inner.src(c->inner.ctx, as, addr, frames, max) : 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int i;

	if (as->kind != ADDR_SPACE_KERNEL || !first_time(&c->srcs_seen, addr))
		return n;
	m = open_memstream(&buf, &len);
	if (!m) {
		c->err = -ENOMEM;
		return n;
	}
	for (i = 0; i < n; i++) {
		__s32 lc[2] = { frames[i].line, frames[i].col };
		const char *fn = frames[i].func ?: "", *file = frames[i].file ?: "";

		fwrite(lc, sizeof(lc), 1, m);
		fwrite(fn, strlen(fn) + 1, 1, m);
		fwrite(file, strlen(file) + 1, 1, m);
	}
	fclose(m);
	{
		/* a lookup cut short is no "no source": a replay shows the same mark */
		struct { __u64 addr; __u32 n; } __attribute__((packed)) h = {
			addr, n == -EINTR ? CAP_SRC_CUT : n > 0 ? n : 0,
		};

		cap_write(c, CAP_SRC, &h, sizeof(h), buf, len);
	}
	free(buf);
	return n;
}

struct sym_resolver capture__resolver(struct capture *c, const struct sym_resolver *inner)
{
	c->inner = *inner;
	c->outer = (struct sym_resolver){ .sym = cap_sym, .src = cap_src, .ctx = c };
	return c->outer;
}

int capture__close(struct capture *c)
{
	int err;

	if (!c)
		return 0;
	if (fclose(c->f) && !c->err)
		c->err = -errno;
	err = c->err;
	tdestroy(c->ksyms_seen, free);
	tdestroy(c->srcs_seen, free);
	free(c->plan_written);
	free(c);
	return err;
}
