// SPDX-License-Identifier: BSD-2-Clause
/* -U: maps snapshots and unwinding through the sidecar (ustack.h). */
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "addr2line.h"
#include "mmap_watch.h"
#include "opts.h"
#include "proc_maps.h"
#include "symbolize.h"
#include "ustack.h"
#include "ustack_req.h"
#include "ustack_uret.h"

#define DEFAULT_MAX_PROCS	4096
#define DEFAULT_MAX_EXITED	1024

struct proc_snap {
	__u32 tgid;
	int err;		/* the snapshot could not be taken: -ESRCH, -EACCES, ... */
	struct proc_maps *maps;
	/*
	 * The mappings as the kernel's records tell them (exec empties them, fork copies
	 * the parent's, mmap adds): NULL if none were recorded. They miss munmap(), so
	 * they stand in only for a process /proc can't show any more.
	 */
	struct proc_maps *rec;
	bool rec_new;		/* changed since s->maps was last taken from it */
	bool read;		/* /proc/PID/maps was tried at least once */
	bool followed;		/* its records are taken (-p: one of the processes, or a child) */
	bool seeded;		/* s->rec started from /proc (it mapped before the watch began) */
	bool exited;		/* its exit was recorded */
	bool gone;		/* @maps are the records': /proc had none any more */
	bool io_uring;		/* it mapped an io_uring instance's rings */
};

struct ustack {
	struct ustack_opts opts;
	void *procs;		/* tsearch() tree of struct proc_snap, by tgid */
	size_t proc_cnt, proc_peak;
	__u32 self;
	/* -p: records of followed processes only */
	bool filtered;
	/* the processes whose exit was recorded, oldest first: a ring of max_exited */
	__u32 *exited;
	size_t ex_head, ex_cnt;
	__u64 let_go;
	/* processes that mapped an io_uring ring (their requests' errors: ustack_watch.c) */
	size_t io_uring_procs;
	__u32 io_uring_tgid;
	char note[320];		/* room for elsewhere()'s words with a long path */
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
	proc_maps__free(s->rec);
	free(s);
}

static struct proc_snap *snap_get(struct ustack *u, __u32 tgid);

int ustack__new(const struct ustack_opts *opts, struct ustack **out)
{
	struct ustack *u;
	size_t i;

	*out = NULL;
	if (!opts || !opts->syms)
		return -EINVAL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	if (OPTS_COPY(&u->opts, opts)) {
		free(u);
		return -EINVAL;
	}
	u->opts.sz = sizeof(u->opts);
	if (!u->opts.max_procs)
		u->opts.max_procs = DEFAULT_MAX_PROCS;
	if (!u->opts.max_exited)
		u->opts.max_exited = DEFAULT_MAX_EXITED;
	u->exited = calloc(u->opts.max_exited, sizeof(*u->exited));
	if (!u->exited) {
		free(u);
		return -ENOMEM;
	}
	u->self = getpid();
	u->filtered = u->opts.watch_tgid_cnt;
	u->opts.watch_tgids = NULL;	/* borrowed: not kept past this call */
	for (i = 0; i < opts->watch_tgid_cnt && u->filtered; i++) {
		struct proc_snap *sn = snap_get(u, opts->watch_tgids[i]);

		if (sn)
			sn->followed = true;
	}
	*out = u;
	return 0;
}

void ustack__free(struct ustack *u)
{
	if (!u)
		return;
	tdestroy(u->procs, snap_free);
	free(u->exited);
	free(u);
}

/* Words of rec_ustack's regs[]: x86-64's struct pt_regs, arm64's struct user_pt_regs */
#define X86_REG_IP	16
#define X86_REG_CS	17
#define X86_USER32_CS	0x23	/* __USER32_CS: a compat (i386) task's code segment */
#define ARM64_REG_PC	32
#define ARM64_REG_PSTATE 33
#define ARM64_PSR_MODE32 0x10	/* pstate's nRW: AArch32 */

static __u64 user_pc(const struct rec_ustack *r)
{
	return r->arch == USTACK_ARCH_X86_64 ? r->regs[X86_REG_IP] : r->regs[ARM64_REG_PC];
}

/*
 * Was the thread running 32-bit code (an i386 program's compat mode: its code segment,
 * pt_regs' cs, is __USER32_CS; an AArch32 one's: pstate's nRW bit)? libdwfl then takes
 * the i386 or ARM register set from the program's ELF header, which 64-bit registers
 * don't fill ("Invalid register").
 */
static bool compat_code(const struct rec_ustack *r)
{
	if (r->arch == USTACK_ARCH_X86_64)
		return r->reg_cnt > X86_REG_CS && (r->regs[X86_REG_CS] & 0xffff) == X86_USER32_CS;
	return r->reg_cnt > ARM64_REG_PSTATE && (r->regs[ARM64_REG_PSTATE] & ARM64_PSR_MODE32);
}

static struct proc_snap *snap_find(struct ustack *u, __u32 tgid)
{
	struct proc_snap key = { .tgid = tgid };
	void *n = tfind(&key, &u->procs, snap_cmp);

	return n ? *(struct proc_snap **)n : NULL;
}

/*
 * The symbols object opens the files behind the file-backed mappings now, while the
 * process lives (through /proc/PID/map_files), and answers for its addresses later.
 */
static void add_to_syms(struct ustack *u, struct proc_snap *s)
{
	size_t i, n = 0, cnt = proc_maps__cnt(s->maps);
	struct user_mapping *um = calloc(cnt ?: 1, sizeof(*um));

	if (!um)
		return;
	for (i = 0; i < cnt; i++) {
		const struct proc_map *m = proc_maps__get(s->maps, i);

		if (m->path && m->path[0] == '/')
			um[n++] = (struct user_mapping){ m->start, m->end, m->pgoff, m->path,
							 m->inode, m->dev_major, m->dev_minor };
	}
	symbolize__add_process(u->opts.syms, s->tgid, um, n);
	free(um);
}

static void snap_take(struct ustack *u, struct proc_snap *s)
{
	struct proc_maps_opts o = { .sz = sizeof(o), .proc_root = u->opts.proc_root };
	struct proc_maps *m = NULL;
	int err = proc_maps__read(s->tgid, &o, &m);

	s->read = true;
	/*
	 * The process is gone: what the kernel recorded up to its end is newer than any
	 * snapshot (the first one may predate its libraries, or its exec). Without records a
	 * failed re-read keeps the older snapshot.
	 */
	if (err && s->rec) {
		if (!s->rec_new && s->maps)
			return;
		if (proc_maps__overlay(s->rec, NULL, &m))
			return;
		s->rec_new = false;
		s->gone = true;
		err = 0;
	} else if (err && s->maps) {
		return;
	} else if (!err) {
		s->gone = false;
	}
	proc_maps__free(s->maps);
	s->maps = m;
	s->err = err;
	if (!err)
		add_to_syms(u, s);
}

/*
 * Bounded memory: a run over more live processes than max_procs starts over. Before
 * making @n entries (no entry found before it is valid after it), so that snap_make()
 * frees none.
 */
static void make_room(struct ustack *u, size_t n)
{
	if (u->proc_cnt + n <= u->opts.max_procs)
		return;
	tdestroy(u->procs, snap_free);
	u->procs = NULL;
	u->proc_cnt = 0;
}

/* The process's entry, made if new (its maps not read yet); make_room() first. */
static struct proc_snap *snap_make(struct ustack *u, __u32 tgid)
{
	struct proc_snap *s = snap_find(u, tgid);

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->tgid = tgid;
	if (!tsearch(s, &u->procs, snap_cmp)) {
		free(s);
		return NULL;
	}
	if (++u->proc_cnt > u->proc_peak)
		u->proc_peak = u->proc_cnt;
	return s;
}

static struct proc_snap *snap_entry(struct ustack *u, __u32 tgid)
{
	if (!snap_find(u, tgid))
		make_room(u, 1);
	return snap_make(u, tgid);
}

static void snap_drop(struct ustack *u, struct proc_snap *s)
{
	tdelete(s, &u->procs, snap_cmp);
	snap_free(s);
	u->proc_cnt--;
}

/* The process's entry, its maps read the first time. */
static struct proc_snap *snap_get(struct ustack *u, __u32 tgid)
{
	struct proc_snap *s = snap_entry(u, tgid);

	if (s && !s->read)
		snap_take(u, s);
	return s;
}

/*
 * A process that mapped before the watch began (-p's, or any process already running
 * in a system-wide run): its recorded mappings start from its maps file, read the first
 * time a record names it, while it is most likely alive.
 */
static void seed(struct ustack *u, struct proc_snap *s)
{
	struct proc_maps_opts o = { .sz = sizeof(o), .proc_root = u->opts.proc_root };

	if (s->rec || s->seeded)
		return;
	s->seeded = true;
	if (proc_maps__read(s->tgid, &o, &s->rec) && s->maps)
		proc_maps__overlay(s->maps, NULL, &s->rec);
}

/*
 * Its exit is recorded: its mappings stay for its samples still in the ring buffer; the
 * oldest exited process beyond max_exited is let go (counted).
 */
static void note_exit(struct ustack *u, struct proc_snap *s)
{
	size_t cap = u->opts.max_exited;

	if (s->exited)
		return;
	s->exited = true;
	if (u->ex_cnt == cap) {
		struct proc_snap *old = snap_find(u, u->exited[u->ex_head]);

		/* (a reused pid's new process has not exited: it stays) */
		if (old && old->exited) {
			snap_drop(u, old);
			u->let_go++;
		}
		u->ex_head = (u->ex_head + 1) % cap;
		u->ex_cnt--;
	}
	u->exited[(u->ex_head + u->ex_cnt++) % cap] = s->tgid;
}

/* The file behind code @tgid just mapped, held open while the process lives (open_early) */
static void open_early(struct ustack *u, __u32 tgid, const struct proc_map *pm)
{
	struct user_mapping um = { pm->start, pm->end, pm->pgoff, pm->path, pm->inode,
				   pm->dev_major, pm->dev_minor };

	if (pm->path[0] == '/')
		symbolize__hold_file(u->opts.syms, tgid, &um);
}

/* One of the kernel's records: the process's recorded mappings follow it. */
static void on_watch(void *ctx, const struct mmap_watch_event *e)
{
	struct ustack *u = ctx;
	struct proc_snap *s, *p;
	struct proc_maps *m = NULL;
	size_t need;

	/* ours: never traced, and each of our allocations would be another record */
	if (e->tgid == u->self)
		return;
	/* anonymous data (heaps, thread stacks) holds no code: no unwinding needs it */
	if (e->kind == MMAP_WATCH_MAP && !e->map.path && !(e->map.prot & PROC_MAP_X))
		return;
	s = snap_find(u, e->tgid);
	p = e->kind == MMAP_WATCH_FORK ? snap_find(u, e->parent) : NULL;
	if (u->filtered && !(e->kind == MMAP_WATCH_FORK ? p && p->followed : s && s->followed))
		return;
	if (e->kind == MMAP_WATCH_EXIT) {
		if (s)
			note_exit(u, s);
		return;
	}
	/* a new process under the pid of one whose exit was recorded */
	if (e->kind == MMAP_WATCH_FORK && s && s->exited) {
		snap_drop(u, s);
		s = NULL;
	}
	need = !s + (e->kind == MMAP_WATCH_FORK && !p);
	if (u->proc_cnt + need > u->opts.max_procs) {
		make_room(u, need);
		s = p = NULL;
	}
	if (!s && !(s = snap_make(u, e->tgid)))
		return;
	s->followed = true;
	/* a kernel object's file (io_uring's rings, perf's buffers): no code to unwind */
	if (e->kind == MMAP_WATCH_MAP && e->map.path &&
	    !strncmp(e->map.path, ANON_INODE_PREFIX, sizeof(ANON_INODE_PREFIX) - 1)) {
		if (!strcmp(e->map.path, ANON_INODE_PREFIX "[io_uring]") && !s->io_uring) {
			s->io_uring = true;
			if (!u->io_uring_procs++)
				u->io_uring_tgid = e->tgid;
		}
		return;
	}
	switch (e->kind) {
	case MMAP_WATCH_MAP:
		seed(u, s);
		if (proc_maps__overlay(s->rec, &e->map, &m))
			return;
		if (u->opts.open_early && e->map.path && (e->map.prot & PROC_MAP_X))
			open_early(u, e->tgid, &e->map);
		break;
	case MMAP_WATCH_EXEC:
		/* nothing of the old image is left: an empty list, not "none recorded" */
		if (proc_maps__overlay(NULL, NULL, &m))
			return;
		break;
	case MMAP_WATCH_FORK:
		if (!p && !(p = snap_make(u, e->parent)))
			return;
		p->followed = true;
		seed(u, p);
		if (!p->rec || proc_maps__overlay(p->rec, NULL, &m))
			return;
		break;
	case MMAP_WATCH_EXIT:
		return;
	}
	proc_maps__free(s->rec);
	s->rec = m;
	s->rec_new = true;
}

/* What the kernel recorded since the last look, before any maps are needed. */
static void sync_watch(struct ustack *u)
{
	if (u->opts.watch)
		mmap_watch__drain(u->opts.watch, on_watch, u);
}

void ustack__sync(struct ustack *u)
{
	if (u)
		sync_watch(u);
}

void ustack__set_watch(struct ustack *u, struct mmap_watch *w)
{
	if (u)
		u->opts.watch = w;
}

void ustack__stats(const struct ustack *u, struct ustack_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!u)
		return;
	st->procs = u->proc_cnt;
	st->procs_peak = u->proc_peak;
	st->exited_let_go = u->let_go;
	st->io_uring_procs = u->io_uring_procs;
	st->io_uring_tgid = u->io_uring_tgid;
}

void ustack__note_process(struct ustack *u, __u32 tgid)
{
	if (!u || !tgid)
		return;
	sync_watch(u);
	snap_get(u, tgid);
}

void ustack__note_capture(struct ustack *u, const struct rec_ustack *r)
{
	struct proc_snap *s;

	if (!u || r->err || (r->flags & USTACK_F_NOT_USER))
		return;
	sync_watch(u);
	s = snap_find(u, r->tgid);
	/*
	 * Read again now, while it most likely still runs: the first snapshot may predate
	 * its libraries (a failure during ld.so's start-up), or have caught ld.so between
	 * reserving a library's span and mapping its segments over it, so that the pc is
	 * "covered" at a wrong file offset. A failed re-read keeps the older snapshot.
	 */
	if (s)
		snap_take(u, s);
	else
		snap_get(u, r->tgid);
}


static const char *snap_err_note(struct ustack *u, int err)
{
	/* a full buffer of the kernel's records may be why: said where it matters */
	if ((err == -ESRCH || err == -ENOENT) && mmap_watch__lost(u->opts.watch))
		return "the process exited before its mappings could be read, and some of the "
		       "kernel's mapping records were lost (a full buffer)";
	if (err == -ESRCH || err == -ENOENT)
		return "the process exited before its mappings could be read";
	snprintf(u->note, sizeof(u->note), "the process's mappings could not be read (%s)",
		 strerror(-err));
	return u->note;
}

/* The sidecar's image of each mapping of the snapshot, matched by start address. */
struct ids_ctx {
	const struct proc_maps *maps;
	int *ids;
	size_t next;
};

static int take_id(void *ctx, const struct user_mapping *m, int image_id)
{
	struct ids_ctx *c = ctx;
	size_t n = proc_maps__cnt(c->maps);

	/* both lists ascend: one pass */
	while (c->next < n && proc_maps__get(c->maps, c->next)->start < m->start)
		c->next++;
	if (c->next < n && proc_maps__get(c->maps, c->next)->start == m->start)
		c->ids[c->next] = image_id;
	return 0;
}

static char *copy_lines(const char *lines, int n)
{
	size_t len = 0;
	char *copy;
	int i;

	for (i = 0; i < n; i++)
		len += strlen(lines + len) + 1;
	copy = malloc(len ?: 1);
	return copy ? memcpy(copy, lines, len) : NULL;
}

/*
 * The process is gone and the file of the code it was in (@pc) was never opened (@ids: the
 * images of s->maps): is the path it mapped no such file here, or another one? Its maps
 * name files as the process saw them: in a chroot or another mount namespace they differ
 * from ours (its files are held while it lives, ustack_opts.open_early, but one that
 * exits within a millisecond or two may be gone first). Said in u->note.
 */
static bool elsewhere(struct ustack *u, const struct proc_snap *s, const int *ids, __u64 pc)
{
	const struct proc_map *m = proc_maps__find(s->maps, pc);
	struct stat st;
	size_t i;

	if (!m || !m->path || m->path[0] != '/' || !m->inode || !s->gone)
		return false;
	for (i = 0; i < proc_maps__cnt(s->maps) && proc_maps__get(s->maps, i) != m; i++)
		;
	if (ids[i])
		return false;
	if (!stat(m->path, &st) && st.st_ino == m->inode &&
	    major(st.st_dev) == m->dev_major && minor(st.st_dev) == m->dev_minor)
		return false;
	snprintf(u->note, sizeof(u->note), "the process exited before its files could be "
		 "opened, and %s, as it named the file of its code, %s here (a chroot or another "
		 "mount namespace names files its own way)", m->path,
		 access(m->path, F_OK) ? "names none" : "is another file");
	return true;
}

/*
 * Frames from the sidecar's reply lines (@n of them) to @cb; the last line may say why it
 * stopped, into *@note. @ids: the images of s->maps as it was when the request was made
 * (@ids_maps).
 */
static int deliver(struct ustack *u, const struct rec_ustack *r, const struct proc_snap *s,
		   const int *ids, const struct proc_maps *ids_maps, char *lines, int n,
		   ustack_frame_cb cb, void *ctx, const char **note)
{
	struct ustack_req_frame f;
	const char *stop;
	__u64 last = 0;		/* the last frame's code address, 0: none yet */
	int i, k, err;

	for (i = 0; i < n; i++) {
		struct ustack_frame fr = { .tgid = r->tgid };
		size_t len = strlen(lines);

		k = ustack_req__parse_line(lines, &f, &stop);
		lines += len + 1;
		if (k < 0)
			return 0;	/* a sidecar out of protocol: what came so far stands */
		if (k == 0) {
			*note = u->note;
			/*
			 * The last frame's file was never opened, and the path the process
			 * named is another file here or none (a chroot'd process gone at once):
			 * no unwind information, because no file (elsewhere() says so)
			 */
			if (last && s->maps == ids_maps && elsewhere(u, s, ids, last))
				continue;
			/* the window ended early: say why the read of the next page failed */
			if (r->stack_err && strstr(stop, "beyond the") && !r->stack_holes)
				snprintf(u->note, sizeof(u->note), "%s (reading on failed: %s)", stop,
					 strerror(-r->stack_err));
			else
				snprintf(u->note, sizeof(u->note), "%s", stop);
			continue;
		}
		last = f.pc - !f.activation;
		fr.pc = f.pc;
		fr.activation = f.activation;
		fr.guessed = f.guessed;
		fr.image.path = *f.module ? f.module : NULL;
		if (!fr.image.path) {
			/* re-read each frame: resolving the one before may have renewed the maps */
			const struct proc_map *m = proc_maps__find(s->maps, f.pc - !f.activation);

			fr.anon_code = m && !m->path && (m->prot & PROC_MAP_X);
		}
		fr.image.build_id = *f.build_id ? f.build_id : NULL;
		fr.image.file_off = f.file_off;
		err = cb(ctx, &fr);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The sidecar's request for @r: traced calls' return addresses put back first where the
 * uprobe trampoline took their place (on a copy), or the unwinding would stop at the
 * first traced frame.
 */
static int format_req(const struct rec_ustack *r, size_t stack_len, const struct proc_maps *maps,
		      const int *ids, char **req)
{
	struct rec_ustack *fixed;
	int err;

	if (!r->uret_cnt || !r->uret_tramp)
		return ustack_req__format(r, stack_len, maps, ids, req);
	fixed = malloc(sizeof(*r) + stack_len);
	if (!fixed)
		return -ENOMEM;
	memcpy(fixed, r, sizeof(*r) + stack_len);
	ustack_uret__restore(fixed, stack_len);
	err = ustack_req__format(fixed, stack_len, maps, ids, req);
	free(fixed);
	return err;
}

int ustack__unwind(struct ustack *u, const struct rec_ustack *r, size_t size, ustack_frame_cb cb,
		   void *ctx, const char **note)
{
	const struct proc_maps *ids_maps;
	struct addr2line *a2l;
	struct ids_ctx ic;
	struct usyms *usyms;
	struct proc_snap *s;
	char *req, *lines, *copy;
	size_t stack_len;
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
	if (compat_code(r))
		return *note = "a 32-bit program: retsnoop unwinds 64-bit programs' stacks only", 0;
	stack_len = size - sizeof(*r) < r->stack_len ? size - sizeof(*r) : r->stack_len;
	sync_watch(u);
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
	usyms = symbolize__usyms(u->opts.syms);
	a2l = usyms ? usyms__sidecar(usyms) : NULL;
	if (!a2l)
		return *note = "the unwinding sidecar is not running", 0;
	ids = calloc(proc_maps__cnt(s->maps) ?: 1, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	ids_maps = s->maps;
	ic = (struct ids_ctx){ .maps = s->maps, .ids = ids };
	usyms__for_each_mapping(usyms, r->tgid, take_id, &ic);
	if (elsewhere(u, s, ids, user_pc(r))) {
		free(ids);
		return *note = u->note, 0;
	}
	err = format_req(r, stack_len, s->maps, ids, &req);
	if (err) {
		free(ids);
		if (err == -ENOMEM)
			return err;
		return *note = "unknown architecture or registers in the capture", 0;
	}
	n = addr2line__unwind(a2l, req, &lines);
	free(req);
	if (n < 0) {
		free(ids);
		snprintf(u->note, sizeof(u->note), "the sidecar could not unwind it (%s)",
			 strerror(-n));
		return *note = u->note, 0;
	}
	/* the reply lives until the sidecar's next call, and resolving the frames makes some */
	copy = copy_lines(lines, n);
	if (!copy) {
		free(ids);
		return -ENOMEM;
	}
	/* resolving a frame may renew s->maps, which @ids no longer describe */
	err = deliver(u, r, s, ids, ids_maps, copy, n, cb, ctx, note);
	free(copy);
	free(ids);
	return err;
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
