// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kprobe_pmu.h"
#include "mono_clock.h"
#include "opts.h"
#include "prog_clones.h"
#include "records.h"
#include "uprobe_attacher.h"
#include "uprobe_link.h"

/* A single uprobe's libbpf link, or a uprobe.multi link's fd (created without libbpf). */
struct held_link {
	struct bpf_link *link;
	int fd;
};

/* One image's functions: the ids and offsets a multi link takes as arrays. */
struct image_group {
	const char *path;
	size_t *offsets;	/* size_t: what bpf_uprobe_multi_opts takes */
	__u64 *cookies;
	size_t cnt;
};

struct uprobe_attacher {
	struct uprobe_attacher_opts o;
	struct bpf_program *entry, *exit;
	const struct func *funcs;
	struct image_group *groups;
	size_t group_cnt;
	size_t func_cnt;
	struct held_link *links;
	size_t link_cnt, link_cap;
	size_t func_id_cnt;	/* ids are indexes of funcs[0, func_id_cnt) */
	bool *skipped;		/* by function id: its first instruction can't be probed */
	size_t skipped_cnt;
	int multi_pid;		/* the pid a multi link filters on: o.pid where it is right */
	enum uprobe_mode used;
	/* o.id_clones: the function the entry template was loaded for, where its id is */
	int tmpl_func;
	int id_insn;
	int *entry_fds;		/* by function id: its entry clone, -1: none (yet) */
	bool clones_loaded;
	int pmu_type, pmu_ret_bit;	/* the uprobe PMU's, for attach_uprobe_fd() */
};

/*
 * The kernel's ENOTSUPP (524, no libc name): uprobes can't single-step or emulate the
 * function's first instruction (x86: lock-prefixed ones, as glibc's pthread_spin_lock
 * starts with). The kernel looks when it puts the probe into a process that maps the
 * image, so this comes with -p or a running library, never for a binary not yet run.
 * It is the function's, not the kernel's, so skip it. Discovery skips what it knows the
 * kernel refuses (user_unprobeable.h): each refused link costs a grace period.
 */
#define ERR_CANT_PROBE 524

#define pr(att, level, ...) log_msg((att)->o.print, level, __VA_ARGS__)


static struct image_group *group_of(struct uprobe_attacher *att, const char *path)
{
	struct image_group *g;
	size_t i;

	for (i = 0; i < att->group_cnt; i++)
		if (strcmp(att->groups[i].path, path) == 0)
			return &att->groups[i];
	g = realloc(att->groups, (att->group_cnt + 1) * sizeof(*g));
	if (!g)
		return NULL;
	att->groups = g;
	g = &att->groups[att->group_cnt++];
	memset(g, 0, sizeof(*g));
	g->path = path;
	return g;
}

/* Linux 6.10+: uprobe.multi's pid filter takes the whole process, not one thread. */
static bool multi_pid_filter_works(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 10);
}

struct uprobe_attacher *uprobe_attacher__new(struct bpf_program *entry, struct bpf_program *exit,
					     const struct func *funcs, size_t cnt,
					     const struct uprobe_attacher_opts *opts)
{
	struct uprobe_attacher *att;
	size_t i;

	if (opts && !opts__valid(opts, sizeof(*opts)))
		return errno = EINVAL, NULL;
	att = calloc(1, sizeof(*att));
	if (!att)
		return NULL;
	if (opts)
		OPTS_COPY(&att->o, opts);
	if (att->o.mode == UPROBE_SESSION ? !att->o.session : !entry || !exit) {
		free(att);
		return errno = EINVAL, NULL;
	}
	if (att->o.id_clones && att->o.mode != UPROBE_SINGLE && att->o.mode != UPROBE_AUTO) {
		free(att);
		return errno = EOPNOTSUPP, NULL;
	}
	if (att->o.id_clones)
		att->o.mode = UPROBE_SINGLE;
	att->tmpl_func = att->id_insn = -1;
	att->entry = entry;
	att->exit = exit;
	att->funcs = funcs;
	att->multi_pid = att->o.pid > 0 && multi_pid_filter_works() ? att->o.pid : 0;
	att->func_id_cnt = cnt;
	att->skipped = calloc(cnt ?: 1, sizeof(*att->skipped));
	if (!att->skipped) {
		free(att);
		return errno = ENOMEM, NULL;
	}
	for (i = 0; i < cnt; i++) {
		const struct func *f = &funcs[i];
		struct image_group *g;
		size_t *offs;
		__u64 *cks;

		if (!(f->flags & FUNC_USER) || !f->image)
			continue;
		g = group_of(att, f->image);
		offs = g ? realloc(g->offsets, (g->cnt + 1) * sizeof(*offs)) : NULL;
		if (offs)
			g->offsets = offs;
		cks = offs ? realloc(g->cookies, (g->cnt + 1) * sizeof(*cks)) : NULL;
		if (!cks) {
			uprobe_attacher__free(att);
			return errno = ENOMEM, NULL;
		}
		g->cookies = cks;
		g->offsets[g->cnt] = f->image_off;
		g->cookies[g->cnt] = i;
		g->cnt++;
		att->func_cnt++;
		if (att->tmpl_func < 0)
			att->tmpl_func = i;
	}
	if (att->o.id_clones && att->func_cnt) {
		int err;

		att->entry_fds = malloc(cnt * sizeof(*att->entry_fds));
		if (!att->entry_fds) {
			uprobe_attacher__free(att);
			return errno = ENOMEM, NULL;
		}
		for (i = 0; i < cnt; i++)
			att->entry_fds[i] = -1;
		/* the template is the first function's; clones take the others' ids */
		err = ma__mark_tmpl(entry, att->tmpl_func);
		if (err < 0) {
			uprobe_attacher__free(att);
			return errno = -err, NULL;
		}
		att->id_insn = err;
	}
	return att;
}

size_t uprobe_attacher__func_cnt(const struct uprobe_attacher *att)
{
	return att->func_cnt;
}

static void release(struct held_link *l)
{
	if (l->link)
		bpf_link__destroy(l->link);
	else
		close(l->fd);
}

static int keep_link(struct uprobe_attacher *att, struct bpf_link *link, int fd)
{
	if (att->link_cnt == att->link_cap) {
		size_t cap = att->link_cap ? att->link_cap * 2 : 16;
		struct held_link *v = realloc(att->links, cap * sizeof(*v));

		if (!v) {
			release(&(struct held_link){ .link = link, .fd = fd });
			return -ENOMEM;
		}
		att->links = v;
		att->link_cap = cap;
	}
	att->links[att->link_cnt].link = link;
	att->links[att->link_cnt].fd = fd;
	att->link_cnt++;
	return 0;
}

/* Release the links made since there were @held. */
static void release_since(struct uprobe_attacher *att, size_t held)
{
	while (att->link_cnt > held)
		release(&att->links[--att->link_cnt]);
}

/*
 * The link made directly, not through libbpf's attach, whose warning for each refused try
 * would fill the screen while attach_multi_range() looks for the function to skip, and
 * which has no session links (uprobe_link.h).
 */
static int attach_multi(struct uprobe_attacher *att, const struct image_group *g, size_t lo,
			size_t cnt, bool ret)
{
	struct uprobe_link_spec spec = {
		.path = g->path,
		.offsets = (const unsigned long *)g->offsets + lo,
		.cookies = g->cookies + lo,
		.cnt = cnt,
		.flags = ret ? BPF_F_UPROBE_MULTI_RETURN : 0,
		.pid = att->multi_pid,
	};
	int fd;

	if (att->used == UPROBE_SESSION)
		fd = uprobe_link__create(bpf_program__fd(att->o.session),
					 UPROBE_SESSION_ATTACH_TYPE, &spec);
	else
		fd = uprobe_link__create(bpf_program__fd(ret ? att->exit : att->entry),
					 BPF_TRACE_UPROBE_MULTI, &spec);
	if (fd < 0)
		return fd;
	return keep_link(att, NULL, fd);
}

static void skip_func(struct uprobe_attacher *att, const struct image_group *g, size_t i)
{
	const struct func *f = &att->funcs[g->cookies[i]];

	att->skipped[g->cookies[i]] = true;
	att->skipped_cnt++;
	pr(att, LOG_INFO, "Skipping user function '%s' (%s+0x%zx): uprobes can't probe its first instruction.\n",
	   f->name, g->path, g->offsets[i]);
}

/*
 * An entry and a return link (or one session link) over [lo, lo + cnt) of an image;
 * where the kernel refuses a
 * function of it, halves until the functions it refuses stand alone and are skipped: a few
 * such functions among thousands cost a few dozen more links, not the run.
 */
static int attach_multi_range(struct uprobe_attacher *att, const struct image_group *g,
			      size_t lo, size_t cnt)
{
	size_t held = att->link_cnt;
	int err;

	err = attach_multi(att, g, lo, cnt, false);
	if (!err && att->used != UPROBE_SESSION)
		err = attach_multi(att, g, lo, cnt, true);
	if (err != -ERR_CANT_PROBE)
		return err;
	release_since(att, held);
	if (cnt == 1) {
		skip_func(att, g, lo);
		return 0;
	}
	err = attach_multi_range(att, g, lo, cnt / 2);
	return err ?: attach_multi_range(att, g, lo + cnt / 2, cnt - cnt / 2);
}

/*
 * A uprobe perf event running program @prog_fd, made without libbpf, which has no attach
 * for a program it did not load (the entry clones). Its fd, or a negative errno.
 */
static int attach_uprobe_fd(struct uprobe_attacher *att, const struct image_group *g, size_t i,
			    bool ret, int prog_fd)
{
	int pfd, err;

	pfd = probe_pmu__open(att->pmu_type, att->pmu_ret_bit, ret, (__u64)(unsigned long)g->path,
			      g->offsets[i], att->o.pid);
	if (pfd < 0)
		return pfd;
	if (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, prog_fd) || ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = -errno;
		close(pfd);
		return err;
	}
	return keep_link(att, NULL, pfd);
}

static int attach_single(struct uprobe_attacher *att, const struct image_group *g, size_t i,
			 bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = g->cookies[i], .retprobe = ret);
	struct bpf_link *link;

	if (att->o.id_clones) {
		__u64 id = g->cookies[i];
		int fd;

		if (ret)
			fd = bpf_program__fd(att->exit);
		else if (id == (__u64)att->tmpl_func)
			fd = bpf_program__fd(att->entry);
		else
			fd = att->entry_fds[id];
		return attach_uprobe_fd(att, g, i, ret, fd);
	}

	link = bpf_program__attach_uprobe_opts(ret ? att->exit : att->entry,
					       att->o.pid > 0 ? att->o.pid : -1, g->path,
					       g->offsets[i], &uo);
	if (!link)
		return -errno;
	return keep_link(att, link, -1);
}

/* Errors that say "no uprobe.multi here", not "this function can't be probed". */
static bool multi_unsupported(int err)
{
	return err == -EOPNOTSUPP || err == -ENOTSUP || err == -EINVAL || err == -ENOSYS ||
	       err == -EBADF;
}

static int attach_mode(struct uprobe_attacher *att, enum uprobe_mode mode)
{
	size_t gi, i, done = 0;
	int err = 0;

	for (gi = 0; gi < att->group_cnt && !err; gi++) {
		const struct image_group *g = &att->groups[gi];

		if (att->o.stop && *att->o.stop)
			return -EINTR;
		if (mode != UPROBE_SINGLE) {
			err = attach_multi_range(att, g, 0, g->cnt);
			if (err) {
				pr(att, gi == 0 && multi_unsupported(err) ? LOG_DEBUG : LOG_ERROR,
				   "Failed to attach %s to %zu functions of '%s': %s.\n",
				   mode == UPROBE_SESSION ? "uprobe session links" : "uprobe.multi",
				   g->cnt, g->path, strerror(-err));
				/* the first image decides whether the kernel has them at all */
				if (gi == 0 && multi_unsupported(err))
					err = -EAGAIN;
			}
			done += g->cnt;
			if (att->o.progress)
				att->o.progress(att->o.progress_ctx, "attaching user functions",
						done, att->func_cnt);
			continue;
		}
		for (i = 0; i < g->cnt && !err; i++) {
			size_t held = att->link_cnt;

			if (att->o.stop && *att->o.stop)
				return -EINTR;
			err = attach_single(att, g, i, false);
			if (!err)
				err = attach_single(att, g, i, true);
			if (err == -ERR_CANT_PROBE) {
				release_since(att, held);
				skip_func(att, g, i);
				err = 0;
			}
			if (err)
				pr(att, LOG_ERROR, "Failed to attach a uprobe to '%s' at offset 0x%zx (%s): %s.\n",
				   g->path, g->offsets[i],
				   att->funcs[g->cookies[i]].name, strerror(-err));
			if (att->o.progress)
				att->o.progress(att->o.progress_ctx, "attaching user functions",
						++done, att->func_cnt);
		}
	}
	return err;
}

/*
 * o.id_clones: an entry program for every user function but the template's, verified
 * each (the cost: bench/results/uprobe-clones.txt), all before any is attached, as the
 * mass attacher's fentry clones. Once: a later attach reuses them.
 */
static int load_entry_clones(struct uprobe_attacher *att)
{
	struct ma_func_info fi;
	struct ma_clone *clones;
	size_t cnt = 0, i;
	long t0 = now_ms();
	int err;

	err = uprobe_pmu__read(&att->pmu_type, &att->pmu_ret_bit);
	if (err) {
		pr(att, LOG_ERROR, "Uprobes are not available in this kernel (no uprobe PMU): %s.\n",
		   strerror(-err));
		return err;
	}
	if (!ma__tmpl_id_at(att->entry, att->id_insn, att->tmpl_func)) {
		pr(att, LOG_ERROR, "The uprobe entry template's function id moved at load.\n");
		return -EINVAL;
	}
	clones = calloc(att->func_cnt, sizeof(*clones));
	if (!clones)
		return -ENOMEM;
	err = ma__tmpl_func_info(att->entry, &fi);
	if (err) {
		free(clones);
		return err;
	}
	for (i = 0; i < att->func_id_cnt; i++) {
		if (!(att->funcs[i].flags & FUNC_USER) || !att->funcs[i].image ||
		    (int)i == att->tmpl_func)
			continue;
		clones[cnt++] = (struct ma_clone){
			.insns = bpf_program__insns(att->entry),
			.insn_cnt = bpf_program__insn_cnt(att->entry),
			.prog_type = BPF_PROG_TYPE_KPROBE,
			.func_id = i, .id_insn = att->id_insn, .fi = &fi,
		};
	}
	err = ma__load_clones(clones, cnt, att->o.progress, att->o.progress_ctx, att->o.stop);
	for (i = 0; i < cnt; i++)
		if (clones[i].fd >= 0)
			att->entry_fds[clones[i].func_id] = clones[i].fd;
	for (i = 0; err && err != -EINTR && i < cnt; i++) {
		if (clones[i].fd >= 0 || clones[i].fd == -ENOTCONN)
			continue;
		ma__explain_clone(&clones[i], att->o.print, att->funcs[clones[i].func_id].name);
		break;
	}
	if (!err) {
		att->clones_loaded = true;
		pr(att, LOG_DEBUG, "Verified %zu uprobe entry clones in %ld ms (no BPF cookies).\n",
		   cnt, now_ms() - t0);
	}
	ma__func_info_free(&fi);
	free(clones);
	return err;
}

/* Each attach (and its fallback to single uprobes) finds the skipped functions anew. */
static void reset_skipped(struct uprobe_attacher *att)
{
	memset(att->skipped, 0, att->func_id_cnt * sizeof(*att->skipped));
	att->skipped_cnt = 0;
}

int uprobe_attacher__attach(struct uprobe_attacher *att)
{
	int err;

	if (att->link_cnt)
		return -EBUSY;
	if (!att->func_cnt)
		return 0;
	if (att->o.id_clones && !att->clones_loaded) {
		err = load_entry_clones(att);
		if (err)
			return err;
	}
	reset_skipped(att);
	/* the session program was loaded for session links: nothing to fall back to */
	if (att->o.mode == UPROBE_SESSION) {
		att->used = UPROBE_SESSION;
		err = attach_mode(att, UPROBE_SESSION);
		if (err == -EAGAIN)
			pr(att, LOG_ERROR, "This kernel has no uprobe session links (Linux 6.13+).\n");
		goto out;
	}
	if (att->o.mode != UPROBE_SINGLE) {
		att->used = UPROBE_MULTI;
		err = attach_mode(att, UPROBE_MULTI);
		if (err != -EAGAIN || att->o.mode == UPROBE_MULTI) {
			if (err == -EAGAIN)
				pr(att, LOG_ERROR, "This kernel has no uprobe.multi links (Linux 6.6+).\n");
			goto out;
		}
		uprobe_attacher__detach(att);
		reset_skipped(att);
		pr(att, LOG_INFO, "No uprobe.multi here: attaching single uprobes.\n");
	}
	att->used = UPROBE_SINGLE;
	err = attach_mode(att, UPROBE_SINGLE);
out:
	if (err == -EINTR)
		return err;	/* a stop: the caller lets go of what is attached */
	if (!err && att->skipped_cnt == att->func_cnt) {
		pr(att, LOG_ERROR, "None of the %zu user functions can be probed: uprobes can't step their first instructions.\n",
		   att->func_cnt);
		err = -EOPNOTSUPP;
	}
	if (err) {
		uprobe_attacher__detach(att);
		return err == -EAGAIN ? -EOPNOTSUPP : err;
	}
	if (att->skipped_cnt)
		pr(att, LOG_WARN, "WARNING: %zu of %zu user functions skipped: the kernel's uprobes refused their first instructions; -v names them.\n",
		   att->skipped_cnt, att->func_cnt);
	return 0;
}

size_t uprobe_attacher__skipped_cnt(const struct uprobe_attacher *att)
{
	return att->skipped_cnt;
}

bool uprobe_attacher__func_skipped(const struct uprobe_attacher *att, size_t id)
{
	return id < att->func_id_cnt && att->skipped[id];
}

enum uprobe_mode uprobe_attacher__mode(const struct uprobe_attacher *att)
{
	return att->used;
}

const char *uprobe_attacher__mode_name(enum uprobe_mode mode)
{
	switch (mode) {
	case UPROBE_SESSION: return "uprobe session links";
	case UPROBE_MULTI: return "uprobe.multi";
	case UPROBE_SINGLE: return "single uprobes/uretprobes";
	default: return "uprobe.multi if the kernel has it, else single uprobes";
	}
}

size_t uprobe_attacher__link_cnt(const struct uprobe_attacher *att)
{
	return att->link_cnt;
}

/*
 * One by one: releasing a single uprobe waits for the kernel (~115 ms each on the 6.18
 * host, 2,000 links 229 s), and measured no faster on 16 threads (the mass attacher's
 * releaser): the waits don't overlap. uprobe.multi releases 1,000 functions in ~0.1 s.
 */
int uprobe_attacher__detach_by(struct uprobe_attacher *att, long deadline_ms)
{
	size_t i;

	if (!att)
		return 0;
	for (i = att->link_cnt; i > 0; i--) {
		if (deadline_ms && now_ms() >= deadline_ms) {
			att->link_cnt = i;	/* the first i are still attached */
			return -ETIMEDOUT;
		}
		release(&att->links[i - 1]);
		if (att->o.progress && (i % 64) == 0)
			att->o.progress(att->o.progress_ctx, "detaching user functions",
					att->link_cnt - i, att->link_cnt);
	}
	att->link_cnt = 0;
	return 0;
}

long uprobe_attacher__detach(struct uprobe_attacher *att)
{
	long start = now_ms();

	uprobe_attacher__detach_by(att, 0);
	return now_ms() - start;
}

void uprobe_attacher__free(struct uprobe_attacher *att)
{
	size_t i;

	if (!att)
		return;
	uprobe_attacher__detach(att);
	for (i = 0; i < att->group_cnt; i++) {
		free(att->groups[i].offsets);
		free(att->groups[i].cookies);
	}
	free(att->groups);
	for (i = 0; att->entry_fds && i < att->func_id_cnt; i++)
		if (att->entry_fds[i] >= 0)
			close(att->entry_fds[i]);
	free(att->entry_fds);
	free(att->links);
	free(att->skipped);
	free(att);
}
