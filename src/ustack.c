// SPDX-License-Identifier: BSD-2-Clause
/* -U: maps snapshots and unwinding through the sidecar (ustack.h). */
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "addr2line.h"
#include "opts.h"
#include "proc_maps.h"
#include "ustack.h"
#include "ustack_req.h"

#define DEFAULT_MAX_PROCS	4096
#define MAX_IMAGES		4096	/* the sidecar's own limit */

/* A file handed to the sidecar, by what the maps say of it. */
struct image_ent {
	char *path;
	__u32 dev_major, dev_minor;
	__u64 inode;
	int id;			/* the sidecar's image, or -errno: it could not be opened */
};

struct proc_snap {
	__u32 tgid;
	int err;		/* the snapshot could not be taken: -ESRCH, -EACCES, ... */
	struct proc_maps *maps;
};

struct ustack {
	struct ustack_opts opts;
	struct addr2line *a2l;
	int a2l_err;		/* the sidecar could not start or died: said once */
	void *procs;		/* tsearch() tree of struct proc_snap, by tgid */
	size_t proc_cnt;
	struct image_ent *images;
	size_t image_cnt;
	char note[192];
};

static int snap_cmp(const void *a, const void *b)
{
	__u32 x = ((const struct proc_snap *)a)->tgid, y = ((const struct proc_snap *)b)->tgid;

	return x < y ? -1 : x > y;
}

static void snap_free(void *p)
{
	struct proc_snap *s = p;

	proc_maps__free(s->maps);
	free(s);
}

int ustack__new(const struct ustack_opts *opts, struct ustack **out)
{
	struct addr2line_opts aopts = { .sz = sizeof(aopts) };
	struct ustack *u;

	*out = NULL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	if (opts && OPTS_COPY(&u->opts, opts)) {
		free(u);
		return -EINVAL;
	}
	u->opts.sz = sizeof(u->opts);
	if (!u->opts.max_procs)
		u->opts.max_procs = DEFAULT_MAX_PROCS;
	aopts.sidecar_path = u->opts.sidecar_path;
	aopts.cancel = u->opts.cancel;
	/* started now, before tracing begins, so that it can be kept out of it; no file */
	u->a2l = addr2line__new(NULL, &aopts);
	u->a2l_err = u->a2l ? 0 : -errno;
	if (u->a2l_err)
		log_msg(u->opts.print, LOG_WARN,
			"User stacks can't be unwound: the sidecar did not start (%s).\n",
			strerror(-u->a2l_err));
	*out = u;
	return 0;
}

void ustack__free(struct ustack *u)
{
	if (!u)
		return;
	tdestroy(u->procs, snap_free);
	addr2line__free(u->a2l);
	while (u->image_cnt)
		free(u->images[--u->image_cnt].path);
	free(u->images);
	free(u);
}

int ustack__sidecar_pid(const struct ustack *u)
{
	return u && u->a2l ? addr2line__pid(u->a2l) : 0;
}

static __u64 user_pc(const struct rec_ustack *r)
{
	return r->arch == USTACK_ARCH_X86_64 ? r->regs[16] : r->regs[32];
}

static struct proc_snap *snap_find(struct ustack *u, __u32 tgid)
{
	struct proc_snap key = { .tgid = tgid };
	void *n = tfind(&key, &u->procs, snap_cmp);

	return n ? *(struct proc_snap **)n : NULL;
}

static void snap_take(struct ustack *u, struct proc_snap *s)
{
	struct proc_maps_opts o = { .sz = sizeof(o), .proc_root = u->opts.proc_root };
	struct proc_maps *m = NULL;
	int err = proc_maps__read(s->tgid, &o, &m);

	/* a failed re-read keeps the older snapshot: the process may have exited since */
	if (err && s->maps)
		return;
	proc_maps__free(s->maps);
	s->maps = m;
	s->err = err;
}

static struct proc_snap *snap_get(struct ustack *u, __u32 tgid)
{
	struct proc_snap *s = snap_find(u, tgid);

	if (s)
		return s;
	/* bounded memory: a run over more processes than this starts over */
	if (u->proc_cnt >= u->opts.max_procs) {
		tdestroy(u->procs, snap_free);
		u->procs = NULL;
		u->proc_cnt = 0;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->tgid = tgid;
	if (!tsearch(s, &u->procs, snap_cmp)) {
		free(s);
		return NULL;
	}
	u->proc_cnt++;
	snap_take(u, s);
	return s;
}

void ustack__note_process(struct ustack *u, __u32 tgid)
{
	if (u && tgid)
		snap_get(u, tgid);
}

void ustack__note_capture(struct ustack *u, const struct rec_ustack *r)
{
	struct proc_snap *s;

	if (!u || r->err || (r->flags & USTACK_F_NOT_USER))
		return;
	s = snap_get(u, r->tgid);
	/* mapped since first seen (dlopen, exec): a fresh snapshot, if it still runs */
	if (s && !proc_maps__find(s->maps, user_pc(r)))
		snap_take(u, s);
}


static const char *snap_err_note(struct ustack *u, int err)
{
	if (err == -ESRCH || err == -ENOENT)
		return "the process exited before its mappings could be read";
	snprintf(u->note, sizeof(u->note), "the process's mappings could not be read (%s)",
		 strerror(-err));
	return u->note;
}

/*
 * The sidecar's image of mapping @m of process @tgid: opened here (the sidecar opens
 * nothing), through /proc/PID/map_files/ while the process lives (the very file mapped,
 * even if replaced or deleted since), else by its path; each file once per run.
 */
static int image_of(struct ustack *u, __u32 tgid, const struct proc_map *m)
{
	struct addr2line_image img;
	struct image_ent *e;
	char mf[96];
	size_t i;
	int fd;

	if (!m->path || m->path[0] != '/')
		return 0;
	for (i = 0; i < u->image_cnt; i++) {
		e = &u->images[i];
		if (e->inode == m->inode && e->dev_major == m->dev_major &&
		    e->dev_minor == m->dev_minor && !strcmp(e->path, m->path))
			return e->id > 0 ? e->id : 0;
	}
	if (u->image_cnt == MAX_IMAGES)
		return 0;
	if (!u->images && !(u->images = calloc(MAX_IMAGES, sizeof(*u->images))))
		return 0;
	snprintf(mf, sizeof(mf), "%s/%u/map_files/%llx-%llx", u->opts.proc_root ?: "/proc", tgid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	fd = open(mf, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && !m->deleted)
		fd = open(m->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	e = &u->images[u->image_cnt];
	e->id = fd < 0 ? -errno : addr2line__open_image(u->a2l, fd, m->path, &img) ?: img.id;
	if (fd >= 0)
		close(fd);
	e->path = strdup(m->path);
	if (!e->path)
		return 0;
	e->dev_major = m->dev_major;
	e->dev_minor = m->dev_minor;
	e->inode = m->inode;
	u->image_cnt++;
	return e->id > 0 ? e->id : 0;
}

/* Frames from the sidecar's reply lines; the last line may say why it stopped. */
static int deliver(struct ustack *u, const struct rec_ustack *r, char *lines, int n,
		   ustack_frame_cb cb, void *ctx, const char **note)
{
	struct ustack_req_frame f;
	struct src_frame src;
	const char *stop;
	int i, k, err;

	for (i = 0; i < n; i++) {
		struct code_loc loc = {
			.as = { .kind = ADDR_SPACE_USER, .pid = r->tgid },
		};
		size_t len = strlen(lines);

		k = ustack_req__parse_line(lines, &f, &stop);
		lines += len + 1;
		if (k < 0)
			return 0;	/* a sidecar out of protocol: what came so far stands */
		if (k == 0) {
			/* the window ended early: say why the read of the next page failed */
			if (r->stack_err && strstr(stop, "beyond the"))
				snprintf(u->note, sizeof(u->note), "%s (reading on failed: %s)", stop,
					 strerror(-r->stack_err));
			else
				snprintf(u->note, sizeof(u->note), "%s", stop);
			*note = u->note;
			continue;
		}
		loc.addr = f.pc;
		loc.image.path = *f.module ? f.module : NULL;
		loc.image.build_id = *f.build_id ? f.build_id : NULL;
		loc.image.file_off = f.file_off;
		if (*f.sym) {
			loc.sym = f.sym;
			loc.sym_start = f.pc - f.sym_off;
		}
		if (*f.file) {
			src = (struct src_frame){ .func = *f.sym ? f.sym : "??", .file = f.file,
						  .line = f.line, .col = f.col };
			loc.src = &src;
			loc.src_cnt = 1;
		} else if (*f.no_lines) {
			loc.src_note = f.no_lines;
		}
		err = cb(ctx, &loc);
		if (err)
			return err;
	}
	return 0;
}

int ustack__unwind(struct ustack *u, const struct rec_ustack *r, size_t size, ustack_frame_cb cb,
		   void *ctx, const char **note)
{
	struct proc_snap *s;
	char *req, *lines;
	size_t stack_len, i;
	int n, err, *ids;

	*note = NULL;
	if (size < sizeof(*r))
		return *note = "malformed user stack record", 0;
	if (r->flags & USTACK_F_NOT_USER)
		return *note = "a kernel thread: no user stack", 0;
	if (r->err) {
		snprintf(u->note, sizeof(u->note), "the user registers could not be read (%s)",
			 strerror(-r->err));
		return *note = u->note, 0;
	}
	stack_len = size - sizeof(*r) < r->stack_len ? size - sizeof(*r) : r->stack_len;
	s = snap_get(u, r->tgid);
	if (!s)
		return -ENOMEM;
	/* mapped since first seen (dlopen, exec): a fresh snapshot, if it still runs */
	if (!proc_maps__find(s->maps, user_pc(r)))
		snap_take(u, s);
	if (!s->maps)
		return *note = snap_err_note(u, s->err), 0;
	if (!proc_maps__find(s->maps, user_pc(r)))
		return *note = "the process exited before its mappings were read again: the "
			       "code it ran was mapped after they were first read", 0;
	if (u->a2l_err || !u->a2l)
		return *note = "the unwinding sidecar is not running", 0;
	ids = calloc(proc_maps__cnt(s->maps) ?: 1, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (i = 0; i < proc_maps__cnt(s->maps); i++)
		ids[i] = image_of(u, r->tgid, proc_maps__get(s->maps, i));
	err = ustack_req__format(r, stack_len, s->maps, ids, &req);
	free(ids);
	if (err == -ENOMEM)
		return err;
	if (err)
		return *note = "unknown architecture or registers in the capture", 0;
	n = addr2line__unwind(u->a2l, req, &lines);
	free(req);
	if (n < 0) {
		snprintf(u->note, sizeof(u->note), "the sidecar could not unwind it (%s)",
			 strerror(-n));
		return *note = u->note, 0;
	}
	return deliver(u, r, lines, n, cb, ctx, note);
}

static int resolver_unwind(void *ctx, const struct rec_ustack *r, size_t size, ustack_frame_cb cb,
			   void *cb_ctx, const char **note)
{
	return ustack__unwind(ctx, r, size, cb, cb_ctx, note);
}

struct ustack_resolver ustack__resolver(struct ustack *u)
{
	return (struct ustack_resolver){ .unwind = resolver_unwind, .ctx = u };
}
