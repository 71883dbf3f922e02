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
	void *image_srcs_seen;	/* "offset:path" strings */
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
	const struct view_opts *v;
	struct capture_opts o;
	struct capture *c;
	__u32 views[2], av[2];
	size_t i;

	if (OPTS_COPY(&o, opts))
		return errno = EINVAL, NULL;
	opts = &o;
	v = &o.view;
	cap_views_encode(v, opts->probe_args, views, av);
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

/* True the first time @addr of @as is added to @set. */
static bool first_time(void **set, const struct addr_space *as, __u64 addr)
{
	struct cap_key *key = malloc(sizeof(*key));
	void *n;

	if (!key)
		return false;
	*key = (struct cap_key){ .addr = addr, .kind = as->kind, .pid = as->pid };
	n = tsearch(key, set, cap_key_cmp);
	if (n && *(struct cap_key **)n == key)
		return true;
	free(key);
	return false;
}

/* A record about an address: kernel ones keep their version 2 kind, others get @in_kind. */
static void cap_write_at(struct capture *c, const struct addr_space *as, __u32 kind,
			 __u32 in_kind, const void *a, size_t alen, const void *b, size_t blen)
{
	struct cap_space sp = { as->kind, as->pid };
	char *buf;

	if (kind && as->kind == ADDR_SPACE_KERNEL) {
		cap_write(c, kind, a, alen, b, blen);
		return;
	}
	buf = malloc(sizeof(sp) + alen);
	if (!buf) {
		c->err = c->err ?: -ENOMEM;
		return;
	}
	memcpy(buf, &sp, sizeof(sp));
	memcpy(buf + sizeof(sp), a, alen);
	cap_write(c, in_kind, buf, sizeof(sp) + alen, b, blen);
	free(buf);
}

static void cap_image(struct capture *c, const struct addr_space *as, __u64 addr,
		      const struct code_image *img)
{
	const char *bid = img->build_id ?: "";
	size_t plen = strlen(img->path) + 1, blen = strlen(bid) + 1;
	__u64 h[2] = { addr, img->file_off };
	char *strs = malloc(plen + blen);

	if (!strs) {
		c->err = c->err ?: -ENOMEM;
		return;
	}
	memcpy(strs, img->path, plen);
	memcpy(strs + plen, bid, blen);
	cap_write_at(c, as, 0, CAP_IMAGE, h, sizeof(h), strs, plen + blen);
	free(strs);
}

static bool cap_sym(void *ctx, const struct addr_space *as, __u64 addr, struct sym_hit *hit)
{
	struct capture *c = ctx;
	bool found = c->inner.sym && c->inner.sym(c->inner.ctx, as, addr, hit);

	if (first_time(&c->ksyms_seen, as, addr)) {
		bool named = found && hit->name;
		struct { __u64 addr, start, size; __u32 found; } __attribute__((packed)) h = {
			addr, named ? hit->start : 0, named ? hit->size : 0, named
		};
		const char *n = named ? hit->name : "";

		cap_write_at(c, as, CAP_KSYM, CAP_SYM_IN, &h, sizeof(h), n, strlen(n) + 1);
		if (found && hit->image.path)
			cap_image(c, as, addr, &hit->image);
	}
	return found;
}

/*
 * A source answer's frames (and its note, if @with_note) as CAP_SRC(_IN) carries them
 * after the header; NULL on no memory.
 */
static char *src_payload(const struct src_frame *frames, int n, const char *why,
			 bool with_note, size_t *len)
{
	char *buf = NULL;
	FILE *m;
	int i;

	*len = 0;
	m = open_memstream(&buf, len);
	if (!m)
		return NULL;
	for (i = 0; i < n; i++) {
		__s32 lc[2] = { frames[i].line, frames[i].col };
		const char *fn = frames[i].func ?: "", *file = frames[i].file ?: "";

		fwrite(lc, sizeof(lc), 1, m);
		fwrite(fn, strlen(fn) + 1, 1, m);
		fwrite(file, strlen(file) + 1, 1, m);
	}
	if (with_note) {
		const char *t = why && n <= 0 ? why : "";

		fwrite(t, strlen(t) + 1, 1, m);
	}
	if (fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int cap_src(void *ctx, const struct addr_space *as, __u64 addr,
		   struct src_frame *frames, int max, const char **note)
{
	struct capture *c = ctx;
	struct { __u64 addr; __u32 n; } __attribute__((packed)) h = { addr };
	const char *why = NULL;
	int n = c->inner.src ? c->inner.src(c->inner.ctx, as, addr, frames, max, &why) : 0;
	/* a kernel answer without a note keeps its version 2 record; others carry the note */
	bool with_note = as->kind != ADDR_SPACE_KERNEL || (why && n <= 0);
	char *buf;
	size_t len;

	if (note && n <= 0)
		*note = why;
	if (!first_time(&c->srcs_seen, as, addr))
		return n;
	buf = src_payload(frames, n, why, with_note, &len);
	if (!buf) {
		c->err = -ENOMEM;
		return n;
	}
	/* a lookup cut short is no "no source": a replay shows the same mark */
	h.n = n == -EINTR ? CAP_SRC_CUT : n > 0 ? n : 0;
	cap_write_at(c, as, with_note ? 0 : CAP_SRC, CAP_SRC_IN, &h, sizeof(h), buf, len);
	free(buf);
	return n;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Traced user functions' lines, by image path and file offset: CAP_IMAGE_SRC, once each. */
static int cap_image_src(void *ctx, const char *path, __u64 file_off, struct src_frame *frames,
			 int max, const char **note)
{
	struct capture *c = ctx;
	struct { struct cap_space sp; __u64 off; __u32 n; } __attribute__((packed)) h = {
		.off = file_off,
	};
	const char *why = NULL;
	int n = c->inner.image_src ? c->inner.image_src(c->inner.ctx, path, file_off, frames, max,
							&why) : 0;
	char *key, *buf, *rec;
	size_t len, plen = strlen(path) + 1;
	void *t;

	if (note && n <= 0)
		*note = why;
	if (asprintf(&key, "%llx:%s", (unsigned long long)file_off, path) < 0) {
		c->err = c->err ?: -ENOMEM;
		return n;
	}
	t = tsearch(key, &c->image_srcs_seen, str_cmp);
	if (!t || *(char **)t != key) {
		free(key);
		return n;
	}
	buf = src_payload(frames, n, why, true, &len);
	rec = buf ? malloc(plen + sizeof(h)) : NULL;
	if (!rec) {
		free(buf);
		c->err = c->err ?: -ENOMEM;
		return n;
	}
	h.n = n == -EINTR ? CAP_SRC_CUT : n > 0 ? n : 0;
	memcpy(rec, path, plen);
	memcpy(rec + plen, &h, sizeof(h));
	cap_write(c, CAP_IMAGE_SRC, rec, plen + sizeof(h), buf, len);
	free(rec);
	free(buf);
	return n;
}

struct sym_resolver capture__resolver(struct capture *c, const struct sym_resolver *inner)
{
	c->inner = *inner;
	c->outer = (struct sym_resolver){
		.sym = cap_sym, .src = cap_src, .image_src = cap_image_src, .ctx = c,
	};
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
	tdestroy(c->image_srcs_seen, free);
	free(c->plan_written);
	free(c);
	return err;
}
