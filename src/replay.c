// SPDX-License-Identifier: BSD-2-Clause
/* Capture files: replaying one, answering the sample builder as the live run was answered. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "opts.h"
#include <bpf/btf.h>
#include "arg_plan.h"
#include "capture.h"
#include "capture_format.h"

/* Every answer starts with its key (struct cap_key): one comparison sorts them all. */
struct rksym {
	struct cap_key key;
	__u64 start, size;
	const char *name;	/* NULL: no symbol */
};

struct rsrc {
	struct cap_key key;
	int n;
	struct src_frame *frames;
	const char *note;	/* why there are none; NULL if not said */
};

struct rimage {
	struct cap_key key;
	struct code_image image;
};

/* A traced user function's lines: by image path and file offset (key.addr). */
struct rimage_src {
	const char *path;
	struct rsrc src;
};

struct rrec {
	const void *data;
	size_t size;
	bool owned;		/* converted from an older layout: data is malloc()ed */
};

/* struct call_stack / rec_session_end as capture version 1 stored them. */
struct call_stack_v1 {
	__u32 func_ids[MAX_FSTACK_DEPTH];
	__u32 seq_ids[MAX_FSTACK_DEPTH];
	__s64 func_res[MAX_FSTACK_DEPTH];
	__u64 func_lat[MAX_FSTACK_DEPTH];
	__u32 depth;
	__u32 max_depth;
	__u32 stitch_pos;	/* frames >= stitch_pos were stitched; 0 = none */
	__s32 kstack_sz;
	__u64 kstack[MAX_KSTACK_DEPTH];
};

struct rec_session_end_v1 {
	__u32 type;
	__u32 last_seq_id;
	__u64 sess_id;
	__u64 emit_ts;
	__u32 dropped_records;
	__u8 ignored;
	__u8 is_err;
	__u8 __pad[2];
	struct call_stack_v1 stack;
};

struct rplan {
	__u32 func_id;
	const void *data;
	size_t len;
};

struct replay {
	char *buf;
	size_t len;
	int version;
	__s64 ts_offset;
	struct view_opts view;		/* the live run's, from CAP_VIEWS and CAP_ARGS_VIEW */
	bool probe_ctx;			/* VIEW_PROBE_CTX */
	struct func *funcs;
	size_t func_cnt;
	struct rksym *ksyms;
	size_t ksym_cnt;
	struct rsrc *srcs;
	size_t src_cnt;
	struct rimage *images;
	size_t image_cnt;
	struct rimage_src *image_srcs;
	size_t image_src_cnt;
	struct rrec *recs;
	size_t rec_cnt;
	struct rplan *plans;
	size_t plan_cnt;
	struct arg_plans *args;
	struct probe_spec *probes;	/* by id; ids the capture lacks are left empty */
	size_t probe_cnt;
	struct rplan *probe_plans;	/* -J -A, func_id being the probe id */
	size_t probe_plan_cnt;
	struct arg_plans *probe_args;
};

/* Make room for element @cnt of a doubling array that starts at 16 slots. */
static int grow(void **arr, size_t cnt, size_t elem)
{
	void *tmp;

	if (cnt && (cnt < 16 || (cnt & (cnt - 1))))
		return 0;
	tmp = realloc(*arr, (cnt ? cnt * 2 : 16) * elem);
	if (!tmp)
		return -ENOMEM;
	*arr = tmp;
	return 0;
}

/* A NUL-terminated string inside [p, end), or NULL. */
static const char *take_str(const char **p, const char *end)
{
	const char *s = *p, *z = memchr(s, 0, end - s);

	if (!z)
		return NULL;
	*p = z + 1;
	return s;
}

static int parse_func(struct replay *r, const char *p, size_t len)
{
	__u32 hdr[2];
	__u64 addr;
	const char *name, *end = p + len;
	size_t i;

	if (len < 16)
		return -EINVAL;
	memcpy(hdr, p, sizeof(hdr));
	memcpy(&addr, p + 8, sizeof(addr));
	p += 16;
	name = take_str(&p, end);
	if (!name || hdr[0] > 1000000)
		return -EINVAL;
	if (hdr[0] >= r->func_cnt) {
		void *tmp = realloc(r->funcs, (hdr[0] + 1) * sizeof(*r->funcs));

		if (!tmp)
			return -ENOMEM;
		r->funcs = tmp;
		for (i = r->func_cnt; i <= hdr[0]; i++)
			r->funcs[i] = (struct func){ .name = "<unknown>" };
		r->func_cnt = hdr[0] + 1;
	}
	r->funcs[hdr[0]] = (struct func){ .name = name, .flags = hdr[1], .addr = addr };
	return 0;
}

/* The address space a CAP_*_IN or CAP_IMAGE record starts with; NULL if too short. */
static const char *take_space(const char *p, size_t *len, struct cap_key *key)
{
	struct cap_space sp;

	if (*len < sizeof(sp))
		return NULL;
	memcpy(&sp, p, sizeof(sp));
	if (sp.kind > ADDR_SPACE_USER)
		return NULL;
	key->kind = sp.kind;
	key->pid = sp.pid;
	*len -= sizeof(sp);
	return p + sizeof(sp);
}

static int parse_ksym(struct replay *r, const char *p, size_t len, bool in_space)
{
	struct rksym k = { .key.kind = ADDR_SPACE_KERNEL };
	const char *end, *name;
	__u32 found;

	if (in_space && !(p = take_space(p, &len, &k.key)))
		return -EINVAL;
	end = p + len;
	if (len < 28)
		return -EINVAL;
	memcpy(&k.key.addr, p, 8);
	memcpy(&k.start, p + 8, 8);
	memcpy(&k.size, p + 16, 8);
	memcpy(&found, p + 24, 4);
	p += 28;
	name = take_str(&p, end);
	if (!name)
		return -EINVAL;
	k.name = found ? name : NULL;
	if (grow((void **)&r->ksyms, r->ksym_cnt, sizeof(k)))
		return -ENOMEM;
	r->ksyms[r->ksym_cnt++] = k;
	return 0;
}

/* One source answer (CAP_SRC's or CAP_SRC_IN's payload) into @s. */
static int read_src(const char *p, size_t len, bool in_space, struct rsrc *out)
{
	struct rsrc s = { .key.kind = ADDR_SPACE_KERNEL };
	const char *end;
	__u32 n;
	int i;

	if (in_space && !(p = take_space(p, &len, &s.key)))
		return -EINVAL;
	end = p + len;
	if (len < 12)
		return -EINVAL;
	memcpy(&s.key.addr, p, 8);
	memcpy(&n, p + 8, 4);
	p += 12;
	if (n != CAP_SRC_CUT && n > MAX_SRC_FRAMES)
		return -EINVAL;
	/* a lookup the live run cut short is answered as such (replay_src) */
	s.n = n == CAP_SRC_CUT ? -EINTR : (int)n;
	s.frames = calloc(s.n > 0 ? s.n : 1, sizeof(*s.frames));
	if (!s.frames)
		return -ENOMEM;
	for (i = 0; i < s.n; i++) {
		__s32 lc[2];

		if (end - p < 8)
			goto bad;
		memcpy(lc, p, sizeof(lc));
		p += sizeof(lc);
		s.frames[i].line = lc[0];
		s.frames[i].col = lc[1];
		s.frames[i].func = take_str(&p, end);
		s.frames[i].file = s.frames[i].func ? take_str(&p, end) : NULL;
		if (!s.frames[i].file)
			goto bad;
	}
	if (in_space) {
		s.note = take_str(&p, end);
		if (!s.note)
			goto bad;
		if (!*s.note)
			s.note = NULL;
	}
	*out = s;
	return 0;
bad:
	free(s.frames);
	return -EINVAL;
}

static int parse_src(struct replay *r, const char *p, size_t len, bool in_space)
{
	struct rsrc s;
	int err = read_src(p, len, in_space, &s);

	if (err)
		return err;
	if (grow((void **)&r->srcs, r->src_cnt, sizeof(s))) {
		free(s.frames);
		return -ENOMEM;
	}
	r->srcs[r->src_cnt++] = s;
	return 0;
}

static int parse_image_src(struct replay *r, const char *p, size_t len)
{
	const char *end = p + len;
	struct rimage_src m;
	int err;

	m.path = take_str(&p, end);
	if (!m.path)
		return -EINVAL;
	err = read_src(p, end - p, true, &m.src);
	if (err)
		return err;
	if (grow((void **)&r->image_srcs, r->image_src_cnt, sizeof(m))) {
		free(m.src.frames);
		return -ENOMEM;
	}
	r->image_srcs[r->image_src_cnt++] = m;
	return 0;
}

static int parse_image(struct replay *r, const char *p, size_t len)
{
	struct rimage m = {};
	const char *end;

	if (!(p = take_space(p, &len, &m.key)) || len < 16)
		return -EINVAL;
	end = p + len;
	memcpy(&m.key.addr, p, 8);
	memcpy(&m.image.file_off, p + 8, 8);
	p += 16;
	m.image.path = take_str(&p, end);
	m.image.build_id = m.image.path ? take_str(&p, end) : NULL;
	if (!m.image.build_id)
		return -EINVAL;
	if (!*m.image.build_id)
		m.image.build_id = NULL;
	if (grow((void **)&r->images, r->image_cnt, sizeof(m)))
		return -ENOMEM;
	r->images[r->image_cnt++] = m;
	return 0;
}

static int parse_probe(struct replay *r, const char *p, size_t len)
{
	const char *end = p + len, *spec;
	struct probe_spec ps;
	__u32 id;
	int err;

	if (len < 8)
		return -EINVAL;
	memcpy(&id, p, sizeof(id));
	p += 8;
	spec = take_str(&p, end);
	if (!spec || id > 100000)
		return -EINVAL;
	err = probe_spec__parse(spec, &ps);
	if (err)
		return err;
	if (id >= r->probe_cnt) {
		void *tmp = realloc(r->probes, (id + 1) * sizeof(*r->probes));

		if (!tmp) {
			probe_spec__free(&ps);
			return -ENOMEM;
		}
		r->probes = tmp;
		memset(r->probes + r->probe_cnt, 0, (id + 1 - r->probe_cnt) * sizeof(*r->probes));
		r->probe_cnt = id + 1;
	}
	probe_spec__free(&r->probes[id]);
	r->probes[id] = ps;
	return 0;
}

/* A version 1 SESSION_END record in today's layout; NULL if it is not one. */
static void *convert_v1_end(const void *p, size_t len)
{
	const struct rec_session_end_v1 *o = p;
	struct rec_session_end *n;
	__u32 type, i;

	if (len < sizeof(*o))
		return NULL;
	memcpy(&type, p, sizeof(type));
	if (type != REC_SESSION_END)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->type = o->type;
	n->last_seq_id = o->last_seq_id;
	n->sess_id = o->sess_id;
	n->emit_ts = o->emit_ts;
	n->dropped_records = o->dropped_records;
	n->ignored = o->ignored;
	n->is_err = o->is_err;
	memcpy(n->stack.func_ids, o->stack.func_ids, sizeof(n->stack.func_ids));
	memcpy(n->stack.seq_ids, o->stack.seq_ids, sizeof(n->stack.seq_ids));
	memcpy(n->stack.func_res, o->stack.func_res, sizeof(n->stack.func_res));
	memcpy(n->stack.func_lat, o->stack.func_lat, sizeof(n->stack.func_lat));
	n->stack.depth = o->stack.depth;
	n->stack.max_depth = o->stack.max_depth;
	for (i = o->stack.stitch_pos; o->stack.stitch_pos && i < MAX_FSTACK_DEPTH; i++)
		n->stack.stitched |= 1ULL << i;
	n->stack.kstack_sz = o->stack.kstack_sz;
	memcpy(n->stack.kstack, o->stack.kstack, sizeof(n->stack.kstack));
	return n;
}

static int add_rec(struct replay *r, const char *p, size_t len)
{
	struct rrec rec = { p, len, false };
	void *conv;

	if (grow((void **)&r->recs, r->rec_cnt, sizeof(*r->recs)))
		return -ENOMEM;
	if (r->version == 1 && (conv = convert_v1_end(p, len)))
		rec = (struct rrec){ conv, sizeof(struct rec_session_end), true };
	r->recs[r->rec_cnt++] = rec;
	return 0;
}

/* A serialized plan entry: __u32 id, __u32 0, the plan's bytes (kept in the file buffer). */
static int add_plan(struct rplan **plans, size_t *cnt, const char *p, size_t len)
{
	if (len < 8)
		return -EINVAL;
	if (grow((void **)plans, *cnt, sizeof(**plans)))
		return -ENOMEM;
	memcpy(&(*plans)[*cnt].func_id, p, 4);
	(*plans)[*cnt].data = p + 8;
	(*plans)[(*cnt)++].len = len - 8;
	return 0;
}

static int parse(struct replay *r)
{
	size_t off = 8;
	int err = 0;

	if (r->len < 8)
		return -EINVAL;
	if (memcmp(r->buf, CAP_MAGIC, 8) == 0)
		r->version = 2;
	else if (memcmp(r->buf, CAP_MAGIC_V1, 8) == 0)
		r->version = 1;
	else
		return -EINVAL;
	while (!err && off < r->len) {
		__u32 hdr[2], v[2];
		const char *p;

		if (r->len - off < sizeof(hdr))
			return -EINVAL;
		memcpy(hdr, r->buf + off, sizeof(hdr));
		off += sizeof(hdr);
		if (hdr[1] > r->len - off)
			return -EINVAL;
		p = r->buf + off;
		switch (hdr[0]) {
		case CAP_RECORD:
			err = add_rec(r, p, hdr[1]);
			break;
		case CAP_FUNC:
			err = parse_func(r, p, hdr[1]);
			break;
		case CAP_KSYM:
		case CAP_SYM_IN:
			err = parse_ksym(r, p, hdr[1], hdr[0] == CAP_SYM_IN);
			break;
		case CAP_SRC:
		case CAP_SRC_IN:
			err = parse_src(r, p, hdr[1], hdr[0] == CAP_SRC_IN);
			break;
		case CAP_IMAGE:
			err = parse_image(r, p, hdr[1]);
			break;
		case CAP_IMAGE_SRC:
			err = parse_image_src(r, p, hdr[1]);
			break;
		case CAP_TS_OFFSET:
			if (hdr[1] < 8)
				return -EINVAL;
			memcpy(&r->ts_offset, p, 8);
			break;
		case CAP_VIEWS:
			if (hdr[1] < 8)
				return -EINVAL;
			memcpy(v, p, sizeof(v));
			r->probe_ctx = cap_views_decode(v, &r->view);
			break;
		case CAP_ARGS_VIEW:
			if (hdr[1] < 8)
				return -EINVAL;
			memcpy(v, p, sizeof(v));
			cap_args_view_decode(v, &r->view);
			break;
		case CAP_ARGS_PLAN:
			err = add_plan(&r->plans, &r->plan_cnt, p, hdr[1]);
			break;
		case CAP_PROBE:
			err = parse_probe(r, p, hdr[1]);
			break;
		case CAP_PROBE_PLAN:
			err = add_plan(&r->probe_plans, &r->probe_plan_cnt, p, hdr[1]);
			break;
		default:
			break;	/* newer kinds are skipped */
		}
		off += hdr[1] + (8 - hdr[1] % 8) % 8;
	}
	return err;
}

/* Plans @plans into @ps, each by its id. */
static int set_plans(struct arg_plans *ps, const struct rplan *plans, size_t cnt)
{
	struct func_arg_plan p;
	struct btf *btf;
	size_t i;
	int err;

	for (i = 0; i < cnt; i++) {
		err = arg_plan__deserialize(plans[i].data, plans[i].len, &p, &btf);
		if (!err)
			err = arg_plans__set(ps, plans[i].func_id, &p, btf);
		else
			btf__free(btf);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The capture plans, for the functions whose arguments were recorded, and with -J the
 * probes' context plans: a probe without one had nothing described, an empty plan.
 */
static int load_plans(struct replay *r)
{
	struct func_arg_plan empty = { .fmt_idx = -1 };
	size_t i;
	int err;

	if (!r->view.args)
		return 0;
	r->args = arg_plans__new_empty(r->func_cnt);
	if (!r->args)
		return -ENOMEM;
	err = set_plans(r->args, r->plans, r->plan_cnt);
	if (err || !r->probe_cnt || !r->probe_ctx)
		return err;
	r->probe_args = arg_plans__new_empty(r->probe_cnt);
	if (!r->probe_args)
		return -ENOMEM;
	for (i = 0; i < r->probe_cnt; i++)
		if ((err = arg_plans__set(r->probe_args, i, &empty, NULL)))
			return err;
	return set_plans(r->probe_args, r->probe_plans, r->probe_plan_cnt);
}

struct replay *replay__open(const char *path)
{
	struct replay *r = calloc(1, sizeof(*r));
	FILE *f = NULL;
	long sz;
	int err = -ENOMEM;

	if (!r)
		goto err;
	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		goto err;
	}
	if (fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		err = -EIO;
		goto err;
	}
	r->len = sz;
	r->buf = malloc(sz ? sz : 1);
	if (!r->buf)
		goto err;
	if (sz && fread(r->buf, sz, 1, f) != 1) {
		err = -EIO;
		goto err;
	}
	fclose(f);
	f = NULL;
	err = parse(r);
	if (!err)
		err = load_plans(r);
	if (err)
		goto err;
	/* a capture without symbol answers leaves the arrays NULL, which qsort() must not get */
	if (r->ksym_cnt)
		qsort(r->ksyms, r->ksym_cnt, sizeof(*r->ksyms), cap_key_cmp);
	if (r->src_cnt)
		qsort(r->srcs, r->src_cnt, sizeof(*r->srcs), cap_key_cmp);
	if (r->image_cnt)
		qsort(r->images, r->image_cnt, sizeof(*r->images), cap_key_cmp);
	return r;
err:
	if (f)
		fclose(f);
	replay__free(r);
	errno = -err;
	return NULL;
}

void replay__free(struct replay *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->src_cnt; i++)
		free(r->srcs[i].frames);
	free(r->srcs);
	for (i = 0; i < r->image_src_cnt; i++)
		free(r->image_srcs[i].src.frames);
	free(r->image_srcs);
	free(r->ksyms);
	free(r->images);
	for (i = 0; i < r->rec_cnt; i++)
		if (r->recs[i].owned)
			free((void *)r->recs[i].data);
	free(r->recs);
	arg_plans__free(r->args);
	arg_plans__free(r->probe_args);
	free(r->probe_plans);
	for (i = 0; i < r->probe_cnt; i++)
		probe_spec__free(&r->probes[i]);
	free(r->probes);
	free(r->plans);
	free(r->funcs);
	free(r->buf);
	free(r);
}


/* The answer about @addr of @as in the sorted array @arr, or NULL. */
static void *find_answer(const void *arr, size_t cnt, size_t elem, const struct addr_space *as,
			 __u64 addr)
{
	struct cap_key key = { .addr = addr, .kind = as->kind, .pid = as->pid };

	/* bsearch() must not get the NULL array of a capture without answers */
	return cnt ? bsearch(&key, arr, cnt, elem, cap_key_cmp) : NULL;
}

static bool replay_sym(void *ctx, const struct addr_space *as, __u64 addr, struct sym_hit *hit)
{
	struct replay *r = ctx;
	struct rksym *k = find_answer(r->ksyms, r->ksym_cnt, sizeof(*k), as, addr);
	struct rimage *m = find_answer(r->images, r->image_cnt, sizeof(*m), as, addr);

	if (m)
		hit->image = m->image;
	if (k && k->name) {
		hit->name = k->name;
		hit->start = k->start;
		hit->size = k->size;
	}
	return (k && k->name) || m;
}

static int replay_src(void *ctx, const struct addr_space *as, __u64 addr,
		      struct src_frame *frames, int max, const char **note)
{
	struct replay *r = ctx;
	struct rsrc *s = find_answer(r->srcs, r->src_cnt, sizeof(*s), as, addr);
	int i;

	if (!s)
		return 0;
	if (note && !s->n)
		*note = s->note;
	for (i = 0; i < s->n && i < max; i++)
		frames[i] = s->frames[i];
	return s->n;	/* -EINTR for a lookup the live run cut short */
}

/* A few per run (one per traced user function): looked up in order. */
static int replay_image_src(void *ctx, const char *path, __u64 file_off,
			    struct src_frame *frames, int max, const char **note)
{
	struct replay *r = ctx;
	const struct rsrc *s = NULL;
	size_t i;
	int k;

	for (i = 0; i < r->image_src_cnt && !s; i++)
		if (r->image_srcs[i].src.key.addr == file_off && !strcmp(r->image_srcs[i].path, path))
			s = &r->image_srcs[i].src;
	if (!s)
		return 0;
	if (note && !s->n)
		*note = s->note;
	for (k = 0; k < s->n && k < max; k++)
		frames[k] = s->frames[k];
	return s->n;
}

void replay__build_opts(struct replay *r, struct sample_build_opts *o)
{
	*o = (struct sample_build_opts){
		.sz = sizeof(*o),
		.funcs = r->funcs,
		.func_cnt = r->func_cnt,
		.syms = { .sym = replay_sym, .src = replay_src, .image_src = replay_image_src,
			  .ctx = r },
		.clock_off_ns = r->ts_offset,
		.view = r->view,
		.args = r->args,
		.probes = r->probes,
		.probe_cnt = r->probe_cnt,
		.probe_args = r->probe_args,
	};
}

size_t replay__record_cnt(const struct replay *r)
{
	return r->rec_cnt;
}

int replay__feed(struct replay *r, struct session_store *st)
{
	size_t i;
	int err;

	for (i = 0; i < r->rec_cnt; i++) {
		err = session_store__add(st, r->recs[i].data, r->recs[i].size);
		if (err && err != -EINVAL)
			return err;
	}
	return 0;
}
