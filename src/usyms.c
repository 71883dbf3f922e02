// SPDX-License-Identifier: BSD-2-Clause
/* User-space symbols: process snapshots and the images behind them (usyms.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "opts.h"
#include "debug_file.h"
#include "demangle.h"
#include "file_hold.h"
#include "usyms.h"

/* Where an image's DWARF comes from. */
enum dbg_state {
	DBG_OWN,		/* the binary has it */
	DBG_ATTACHED,		/* a separate debug file whose build ID matched */
	DBG_MISMATCH,		/* only debug files of another build were found */
	DBG_NONE,		/* none found */
};

struct uimage {
	dev_t dev;
	ino_t ino;
	uid_t owner;		/* the binary's owner: debug files must be readable by them */
	int id;			/* the sidecar's image id */
	char build_id[129];	/* "" if none */
	enum dbg_state dbg;
};

struct umap {
	__u64 start, end, file_off;
	char *path;
	struct uimage *img;	/* NULL: the file could not be opened */
};

struct uproc {
	__u32 pid;
	struct umap *maps;	/* sorted by start */
	size_t cnt;
};

/* An image opened by the path it was named by (usyms__image_src()). */
struct named {
	char *path;
	struct uimage *img;	/* NULL: it could not be opened */
};

struct usyms {
	struct usyms_opts opts;
	struct named *named;
	size_t named_cnt;
	struct addr2line *own;	/* started here when none was given */
	int sidecar_err;	/* sticky: the sidecar could not be started or died */
	struct uimage **imgs;
	size_t img_cnt;
	struct uproc *procs;
	size_t proc_cnt;
	char *demangled;	/* usyms__sym()'s last answer's name, when it was mangled */
	struct file_hold *held;	/* usyms__hold_file()'s; NULL until the first */
};

struct usyms *usyms__new(const struct usyms_opts *opts)
{
	struct usyms *u;

	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	if (OPTS_COPY(&u->opts, opts)) {
		free(u);
		return errno = EINVAL, NULL;
	}
	if (!u->opts.debug_root)
		u->opts.debug_root = "/usr/lib/debug";
	if (!u->opts.proc_root)
		u->opts.proc_root = "/proc";
	return u;
}

static void free_proc(struct uproc *p)
{
	size_t i;

	for (i = 0; i < p->cnt; i++)
		free(p->maps[i].path);
	free(p->maps);
}

void usyms__free(struct usyms *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->proc_cnt; i++)
		free_proc(&u->procs[i]);
	free(u->procs);
	for (i = 0; i < u->named_cnt; i++)
		free(u->named[i].path);
	free(u->named);
	for (i = 0; i < u->img_cnt; i++)
		free(u->imgs[i]);
	free(u->imgs);
	addr2line__free(u->own);
	free(u->demangled);
	file_hold__free(u->held);
	free(u);
}

/* The sidecar to talk to, started on first use; NULL once it failed. */
static struct addr2line *sidecar(struct usyms *u)
{
	struct addr2line_opts ao = { .sz = sizeof(ao), .sidecar_path = u->opts.sidecar_path };
	int err;

	if (u->sidecar_err)
		return NULL;
	if (u->opts.sidecar)
		return u->opts.sidecar;
	if (u->own)
		return u->own;
	u->own = addr2line__new(NULL, &ao);
	if (!u->own) {
		err = -errno;
		u->sidecar_err = err;
		log_msg(u->opts.print, LOG_WARN, "WARNING: cannot start the symbolization sidecar "
			"for user-space frames: %s\n", strerror(-err));
		return NULL;
	}
	return u->own;
}

/* A sidecar call failed: an interruption costs one answer, anything else all later ones. */
static void sidecar_failed(struct usyms *u, int err)
{
	if (err == -EINTR || u->sidecar_err)
		return;
	u->sidecar_err = err;
	log_msg(u->opts.print, LOG_WARN, "WARNING: user-space symbolization failed (%d); "
		"frames keep their binary and offset only.\n", err);
}

struct debug_try {
	struct usyms *u;
	struct uimage *img;
};

/* One candidate debug file (debug_file.h checked its owner): 1 once it is attached. */
static int try_debug(int fd, const char *path, void *ctx)
{
	struct debug_try *t = ctx;
	struct usyms *u = t->u;
	struct addr2line *a = sidecar(u);
	int err;

	if (!a)
		return -ENOTCONN;
	err = addr2line__attach_debug(a, t->img->id, fd);
	if (!err) {
		t->img->dbg = DBG_ATTACHED;
		log_msg(u->opts.print, LOG_DEBUG, "debug file %s attached\n", path);
		return 1;
	}
	if (err == -ESTALE) {
		t->img->dbg = DBG_MISMATCH;
		log_msg(u->opts.print, LOG_DEBUG, "debug file %s: build ID mismatch, not used\n",
			path);
	} else if (err == -EPIPE || err == -ETIMEDOUT || err == -EPROTO) {
		sidecar_failed(u, err);
		return err;
	}
	return 0;
}

/* The separate debug file of @img (mapped from @path), where gdb and eu-* look for it. */
static void find_debug(struct usyms *u, struct uimage *img, const char *path,
		       const char *debuglink)
{
	struct debug_file_opts o = {
		.sz = sizeof(o),
		.root = u->opts.debug_root,
		.owner = img->owner,
		.owner_set = true,
	};
	struct debug_try t = { .u = u, .img = img };

	img->dbg = DBG_NONE;
	debug_file__for_each(path, img->build_id, debuglink, try_debug, &t, &o);
}

static bool same_file(int fd, const struct user_mapping *m)
{
	struct stat st;

	return !fstat(fd, &st) && st.st_ino == m->inode && major(st.st_dev) == m->dev_major &&
	       minor(st.st_dev) == m->dev_minor;
}

/* The file behind @m of @pid through /proc, while the process lives: -errno if not */
static int open_live(struct usyms *u, __u32 pid, const struct user_mapping *m)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%u/map_files/%llx-%llx", u->opts.proc_root, pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	/* the path as the process sees it (its mount namespace), never the host's twin */
	snprintf(path, sizeof(path), "%s/%u/root%s", u->opts.proc_root, pid, m->path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * The process is gone (its mappings as the kernel recorded them): the path in our
 * namespace, if it still names the very file that was mapped.
 */
static int open_gone(const struct user_mapping *m)
{
	int fd;

	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !same_file(fd, m)) {
		close(fd);
		return -ESTALE;
	}
	return fd < 0 ? -errno : fd;
}

/* Open the file behind mapping @m of @pid: the mapped file itself if /proc allows. */
static int open_mapped(struct usyms *u, __u32 pid, const struct user_mapping *m)
{
	int fd;

	/* held since the process mapped it (usyms__hold_file()) */
	if (m->inode) {
		fd = file_hold__dup(u->held, makedev(m->dev_major, m->dev_minor), m->inode);
		if (fd >= 0)
			return fd;
	}
	fd = open_live(u, pid, m);
	if (fd >= 0 || !m->inode)
		return fd;
	return open_gone(m);
}

/* The image of @fd (named @path), opened in the sidecar the first time; NULL if none. */
static struct uimage *image_of_fd(struct usyms *u, int fd, const char *path)
{
	struct addr2line_image ai;
	struct uimage *img, **v;
	struct addr2line *a;
	struct stat st;
	size_t i;
	int err;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		goto fail;
	for (i = 0; i < u->img_cnt; i++) {
		if (u->imgs[i]->dev == st.st_dev && u->imgs[i]->ino == st.st_ino) {
			close(fd);
			return u->imgs[i];
		}
	}
	a = sidecar(u);
	if (!a)
		goto fail;
	err = addr2line__open_image(a, fd, path, &ai);
	if (err) {
		if (err == -EPIPE || err == -ETIMEDOUT || err == -EPROTO)
			sidecar_failed(u, err);
		log_msg(u->opts.print, LOG_DEBUG, "%s: not symbolized: %s\n", path,
			strerror(-err));
		goto fail;
	}
	close(fd);
	img = calloc(1, sizeof(*img));
	v = realloc(u->imgs, (u->img_cnt + 1) * sizeof(*v));
	if (!img || !v) {
		free(img);
		if (v)
			u->imgs = v;
		return NULL;
	}
	u->imgs = v;
	img->dev = st.st_dev;
	img->ino = st.st_ino;
	img->owner = st.st_uid;
	img->id = ai.id;
	snprintf(img->build_id, sizeof(img->build_id), "%s", ai.build_id);
	u->imgs[u->img_cnt++] = img;
	if (ai.dwarf)
		img->dbg = DBG_OWN;
	else
		find_debug(u, img, path, ai.debuglink);
	return img;
fail:
	close(fd);
	return NULL;
}

/*
 * The image already opened for the file @m maps (its device and inode, as the kernel told
 * them): a process that is gone can't open it again through /proc, and the path it saw
 * may name another file here, or none (a chroot, another mount namespace).
 */
static struct uimage *image_by_ids(struct usyms *u, const struct user_mapping *m)
{
	dev_t dev = makedev(m->dev_major, m->dev_minor);
	size_t i;

	if (!m->inode)
		return NULL;
	for (i = 0; i < u->img_cnt; i++) {
		if (u->imgs[i]->ino == m->inode && u->imgs[i]->dev == dev)
			return u->imgs[i];
	}
	return NULL;
}

/* The image of the file behind @m of @pid; NULL if none. */
static struct uimage *get_image(struct usyms *u, __u32 pid, const struct user_mapping *m)
{
	struct uimage *img;
	int fd;

	if (!m->path || m->path[0] != '/')
		return NULL;	/* [vdso] and the like: no file */
	img = image_by_ids(u, m);
	if (img)
		return img;
	fd = open_mapped(u, pid, m);
	return fd < 0 ? NULL : image_of_fd(u, fd, m->path);
}

static struct uproc *find_proc(struct usyms *u, __u32 pid)
{
	size_t i;

	for (i = 0; i < u->proc_cnt; i++) {
		if (u->procs[i].pid == pid)
			return &u->procs[i];
	}
	return NULL;
}

static int map_cmp(const void *a, const void *b)
{
	const struct umap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int usyms__add_process(struct usyms *u, __u32 pid, const struct user_mapping *maps, size_t cnt)
{
	struct uproc np = { .pid = pid }, *p;
	size_t i;

	np.maps = calloc(cnt ?: 1, sizeof(*np.maps));
	if (!np.maps)
		return -ENOMEM;
	for (i = 0; i < cnt; i++) {
		const struct user_mapping *m = &maps[i];
		struct umap *um = &np.maps[np.cnt];

		if (m->end <= m->start)
			continue;
		*um = (struct umap){ m->start, m->end, m->file_off };
		um->path = m->path ? strdup(m->path) : NULL;
		if (m->path && !um->path) {
			free_proc(&np);
			return -ENOMEM;
		}
		um->img = get_image(u, pid, m);
		np.cnt++;
	}
	qsort(np.maps, np.cnt, sizeof(*np.maps), map_cmp);
	p = find_proc(u, pid);
	if (p) {
		free_proc(p);
		*p = np;
		return 0;
	}
	p = realloc(u->procs, (u->proc_cnt + 1) * sizeof(*p));
	if (!p) {
		free_proc(&np);
		return -ENOMEM;
	}
	u->procs = p;
	u->procs[u->proc_cnt++] = np;
	return 0;
}

static const struct umap *find_map(struct usyms *u, __u32 pid, __u64 addr)
{
	struct uproc *p = find_proc(u, pid);
	size_t lo = 0, hi;

	if (!p)
		return NULL;
	hi = p->cnt;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= p->maps[lo - 1].end)
		return NULL;
	return &p->maps[lo - 1];
}

bool usyms__sym(struct usyms *u, __u32 pid, __u64 addr, struct sym_hit *hit)
{
	const struct umap *m = find_map(u, pid, addr);
	__u64 off, delta, size;
	const char *name;
	int err;

	if (!m || !m->path)
		return false;
	off = addr - m->start + m->file_off;
	hit->image = (struct code_image){
		.path = m->path,
		.build_id = m->img && m->img->build_id[0] ? m->img->build_id : NULL,
		.file_off = off,
	};
	if (!m->img || !sidecar(u))
		return true;
	err = addr2line__image_sym(sidecar(u), m->img->id, off, &name, &delta, &size);
	if (err) {
		sidecar_failed(u, err);
		return true;
	}
	if (name) {
		/* valid until the next call, as the sidecar's own answer is */
		free(u->demangled);
		u->demangled = demangle__is_mangled(name) ? demangle__name(name) : NULL;
		hit->name = u->demangled ?: name;
		hit->start = addr - delta;
		hit->size = size;
	}
	return true;
}

/*
 * A chain in which no frame knows its file and line (code in a CU without line info, such
 * as the CRT's _start) says nothing: no lines, as addr2line's "??:0".
 */
static int known_lines(const struct src_frame *frames, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (frames[i].file && strcmp(frames[i].file, "??") && frames[i].line > 0)
			return n;
	}
	return n > 0 ? 0 : n;
}

int usyms__src(struct usyms *u, __u32 pid, __u64 addr, struct src_frame *frames, int max,
	       const char **note)
{
	const struct umap *m = find_map(u, pid, addr);
	const char *why = NULL;
	int n = 0;

	if (!m || !m->path)
		return 0;
	if (!m->img) {
		why = m->path[0] == '/' ? "binary not readable" : NULL;
	} else if (!sidecar(u)) {
		why = "symbolizer sidecar failed";
	} else {
		n = addr2line__image_lines(sidecar(u), m->img->id, addr - m->start + m->file_off,
					   frames, max);
		n = known_lines(frames, n);
		if (n < 0 && n != -EINTR) {
			sidecar_failed(u, n);
			why = "symbolizer sidecar failed";
		} else if (n == 0 && m->img->dbg == DBG_MISMATCH) {
			why = "debug file build ID mismatch";
		} else if (n == 0 && m->img->dbg == DBG_NONE) {
			why = "no debug info";
		} else if (n == 0) {
			why = "no line info for this address";
		}
	}
	if (n == -EINTR)
		return n;	/* the caller says the lookup was cut short */
	if (n <= 0 && note)
		*note = why;
	return n > 0 ? n : 0;
}

/*
 * Traced user functions' binaries: named by the path the user gave (resolved when the
 * probes were attached), not by a process's mappings; each opened once.
 */
static struct uimage *image_by_path(struct usyms *u, const char *path)
{
	struct named *v;
	size_t i;
	int fd;

	for (i = 0; i < u->named_cnt; i++) {
		if (!strcmp(u->named[i].path, path))
			return u->named[i].img;
	}
	v = realloc(u->named, (u->named_cnt + 1) * sizeof(*v));
	if (!v)
		return NULL;
	u->named = v;
	v = &u->named[u->named_cnt];
	v->path = strdup(path);
	if (!v->path)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	/* a failure is kept too: not tried again for every frame */
	v->img = fd < 0 ? NULL : image_of_fd(u, fd, path);
	u->named_cnt++;
	return v->img;
}

int usyms__image_src(struct usyms *u, const char *path, __u64 file_off,
		     struct src_frame *frames, int max, const char **note)
{
	struct uimage *img = path && path[0] == '/' ? image_by_path(u, path) : NULL;
	const char *why = NULL;
	int n = 0;

	if (!img) {
		why = path ? "binary not readable" : NULL;
	} else if (!sidecar(u)) {
		why = "symbolizer sidecar failed";
	} else {
		n = addr2line__image_lines(sidecar(u), img->id, file_off, frames, max);
		n = known_lines(frames, n);
		if (n == -EINTR)
			return n;
		if (n < 0) {
			sidecar_failed(u, n);
			why = "symbolizer sidecar failed";
		} else if (n == 0 && img->dbg == DBG_MISMATCH) {
			why = "debug file build ID mismatch";
		} else if (n == 0 && img->dbg == DBG_NONE) {
			why = "no debug info";
		} else if (n == 0) {
			why = "no line info for this address";
		}
	}
	if (n <= 0 && note)
		*note = why;
	return n > 0 ? n : 0;
}

int usyms__hold_file(struct usyms *u, __u32 pid, const struct user_mapping *m)
{
	dev_t dev = makedev(m->dev_major, m->dev_minor);
	int fd, err;

	if (!m->path || m->path[0] != '/' || !m->inode)
		return -EINVAL;
	if (image_by_ids(u, m) || file_hold__has(u->held, dev, m->inode))
		return 0;
	if (!u->held && !(u->held = file_hold__new(0)))
		return -ENOMEM;
	fd = open_live(u, pid, m);
	if (fd < 0)
		return fd;
	if (!same_file(fd, m)) {
		close(fd);
		return -ESTALE;
	}
	err = file_hold__add(u->held, fd);
	return err == -EEXIST ? 0 : err;
}

struct addr2line *usyms__sidecar(struct usyms *u)
{
	return sidecar(u);
}

int usyms__for_each_mapping(struct usyms *u, __u32 pid, usyms_map_cb cb, void *ctx)
{
	struct uproc *p = find_proc(u, pid);
	size_t i;
	int err;

	if (!p)
		return -ESRCH;
	for (i = 0; i < p->cnt; i++) {
		const struct umap *um = &p->maps[i];
		struct user_mapping m = { um->start, um->end, um->file_off, um->path };

		err = cb(ctx, &m, um->img ? um->img->id : 0);
		if (err)
			return err;
	}
	return 0;
}
