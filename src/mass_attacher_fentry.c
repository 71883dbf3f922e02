// SPDX-License-Identifier: BSD-2-Clause
/*
 * The mass attacher's fentry/fexit side (-F): which template each traced function's
 * programs are cloned from (one fentry template, fexit ones by argument count; or one
 * fsession template a function where the kernel has them, 7.0+), the templates made
 * ready before the object's load, then the clones loaded and attached one link each.
 * Where the kernel has tracing multi-links (7.x x86-64), there are no templates and no
 * clone a function: one fsession program, loaded with the object, one multi-link for all
 * of vmlinux's functions, and a clone of that program and a link for each module's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "mono_clock.h"
#include "session_prog.h"
#include "mass_attacher_int.h"
#include "records.h"
#include "tracing_multi.h"

int mass_attacher__fexit_slot(const struct mass_attacher *att, __u32 id)
{
	const struct func *f = &att->funcs[id];

	return f->flags & FUNC_RET_VOID ? MA_FEXIT_TMPLS : f->arg_cnt;
}

/*
 * Point template @t at function @fi, the first it was planned for, with @fi's id in it;
 * *@id_insn: where the id is (-1: the template has no FENTRY_ID_MARK).
 */
static int prepare_tmpl(struct mass_attacher *att, struct bpf_program *t, int fi, int *id_insn)
{
	int err;

	ma__set_autoload(t, fi >= 0);
	if (fi < 0)
		return 0;
	err = bpf_program__set_attach_target(t, 0, att->funcs[fi].name);
	if (err)
		return err;
	*id_insn = ma__mark_tmpl(t, fi);
	if (*id_insn == -ENOENT)
		*id_insn = -1;
	return *id_insn < -1 ? *id_insn : 0;
}

/* Is function @id on an fsession multi-link (use_fmulti: every fentry function is)? */
static bool on_fmulti(const struct mass_attacher *att, __u32 id)
{
	return att->use_fmulti && att->how[id] == FUNC_ATTACH_FENTRY;
}

/* The fentry/fexit pair's templates, or the fsession ones, left unloaded */
static void pair_tmpls_off(struct mass_attacher_progs *p)
{
	int slot;

	ma__set_autoload(p->fentry, false);
	ma__set_autoload(p->fexit_void, false);
	for (slot = 0; slot < MA_FEXIT_TMPLS; slot++)
		ma__set_autoload(p->fexit[slot], false);
}

static void fsession_tmpls_off(struct mass_attacher_progs *p)
{
	ma__set_autoload(p->fsession, false);
	ma__set_autoload(p->fsession_void, false);
}

/*
 * The multi-link's program: libbpf knows no section for it, so it has no type yet, and
 * gets none of the section rules that would look an attach target up by name.
 */
static int prepare_fmulti(struct mass_attacher *att)
{
	struct bpf_program *t = att->progs.fsession_multi;
	int err;

	ma__set_autoload(t, att->fmulti_cnt);
	if (!att->fmulti_cnt)
		return 0;
	err = bpf_program__set_type(t, BPF_PROG_TYPE_TRACING);
	if (!err)
		err = session_prog__prepare(t, att->opts.fsession_kfunc_id, 0,
					    FSESSION_MULTI_ATTACH_TYPE);
	return err;
}

/* fsession: the template's return-run test made the kfunc call, then as the pair's. */
static int prepare_fsession(struct mass_attacher *att)
{
	struct mass_attacher_progs *p = &att->progs;
	struct bpf_program *t;
	int err, k;

	pair_tmpls_off(p);
	err = prepare_fmulti(att);
	for (k = 0; k < 2 && !err; k++) {
		t = k ? p->fsession_void : p->fsession;
		err = prepare_tmpl(att, t, att->fsession_tmpl_func[k], &att->fsession_id_insn[k]);
		if (!err && att->fsession_tmpl_func[k] >= 0)
			err = session_prog__prepare(t, att->opts.fsession_kfunc_id, 0,
						    FSESSION_ATTACH_TYPE);
	}
	if (err)
		pr(att, LOG_ERROR, "Failed to prepare the fsession program: %d\n", err);
	return err;
}

int ma__prepare_fentry(struct mass_attacher *att)
{
	struct mass_attacher_progs *p = &att->progs;
	int err = 0, slot;

	ma__set_autoload(p->fsession_multi, false);
	if (!att->fentry_cnt) {
		pair_tmpls_off(p);
		fsession_tmpls_off(p);
		return 0;
	}
	if (att->use_fsession)
		return prepare_fsession(att);
	fsession_tmpls_off(p);
	err = prepare_tmpl(att, p->fentry, att->fentry_tmpl_func, &att->fentry_id_insn);
	for (slot = 0; slot <= MA_FEXIT_TMPLS && !err; slot++) {
		struct bpf_program *t = slot < MA_FEXIT_TMPLS ? p->fexit[slot] : p->fexit_void;

		err = prepare_tmpl(att, t, att->fexit_tmpl_func[slot], &att->fexit_id_insn[slot]);
	}
	return err;
}

void ma__plan_fentry(struct mass_attacher *att)
{
	size_t i;
	int slot;

	/* -F: one fsession program a function where the kernel has them, not the pair */
	att->use_fsession = att->fentry_cnt && att->opts.fsession_kfunc_id &&
			    att->progs.fsession && att->progs.fsession_void;
	/* and all of them on a few multi-links (one a BTF) where the kernel has them */
	att->use_fmulti = att->use_fsession && att->opts.fsession_multi &&
			  att->progs.fsession_multi;
	att->fmulti_cnt = 0;
	/* fentry: load each template once, for the first function it fits; clones do the rest */
	for (i = 0; i < att->func_cnt; i++) {
		if (att->how[i] != FUNC_ATTACH_FENTRY)
			continue;
		if (on_fmulti(att, i)) {
			att->fmulti_cnt++;
			continue;
		}
		if (att->use_fsession) {
			slot = !!(att->funcs[i].flags & FUNC_RET_VOID);
			if (att->fsession_tmpl_func[slot] < 0)
				att->fsession_tmpl_func[slot] = i;
			continue;
		}
		if (att->fentry_tmpl_func < 0)
			att->fentry_tmpl_func = i;
		slot = mass_attacher__fexit_slot(att, i);
		if (att->fexit_tmpl_func[slot] < 0)
			att->fexit_tmpl_func[slot] = i;
	}
}

int mass_attacher__fexit_tmpl_func(const struct mass_attacher *att, int slot)
{
	return slot >= 0 && slot <= MA_FEXIT_TMPLS ? att->fexit_tmpl_func[slot] : -1;
}

/* The id instruction's slot of template @prog, NULL if it is none of the templates */
static int *tmpl_id_slot(struct mass_attacher *att, const struct bpf_program *prog)
{
	const struct mass_attacher_progs *p = &att->progs;
	int slot;

	if (!prog)
		return NULL;
	if (prog == p->fentry)
		return &att->fentry_id_insn;
	for (slot = 0; slot < MA_FEXIT_TMPLS; slot++)
		if (prog == p->fexit[slot])
			return &att->fexit_id_insn[slot];
	if (prog == p->fexit_void)
		return &att->fexit_id_insn[MA_FEXIT_TMPLS];
	if (prog == p->fsession)
		return &att->fsession_id_insn[0];
	if (prog == p->fsession_void)
		return &att->fsession_id_insn[1];
	return NULL;
}

int mass_attacher__tmpl_id_insn(const struct mass_attacher *att, const struct bpf_program *prog)
{
	int *idx = tmpl_id_slot((struct mass_attacher *)att, prog);

	return idx ? *idx : -1;
}

int mass_attacher__set_tmpl_id_insn(struct mass_attacher *att, const struct bpf_program *prog,
				    int idx)
{
	int *slot = tmpl_id_slot(att, prog);

	if (!slot || *slot < 0)
		return -ENOENT;
	*slot = idx;
	return 0;
}

/* A module's BTF fd, for its functions' clones (kept open until the attacher is freed) */
static int module_btf_fd(struct mass_attacher *att, const char *mod)
{
	struct bpf_btf_info info;
	char name[64];
	__u32 id = 0, len;
	size_t i;
	int fd;

	for (i = 0; i < att->mod_btf_cnt; i++)
		if (strcmp(att->mod_btfs[i].name, mod) == 0)
			return att->mod_btfs[i].fd;
	while (!bpf_btf_get_next_id(id, &id)) {
		fd = bpf_btf_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		info.name = (__u64)(unsigned long)name;
		info.name_len = sizeof(name);
		len = sizeof(info);
		if (bpf_btf_get_info_by_fd(fd, &info, &len) == 0 && strcmp(name, mod) == 0) {
			void *tmp = realloc(att->mod_btfs, (att->mod_btf_cnt + 1) * sizeof(*att->mod_btfs));

			if (!tmp) {
				close(fd);
				return -ENOMEM;
			}
			att->mod_btfs = tmp;
			att->mod_btfs[att->mod_btf_cnt].name = strdup(mod);
			if (!att->mod_btfs[att->mod_btf_cnt].name) {
				close(fd);
				return -ENOMEM;
			}
			att->mod_btfs[att->mod_btf_cnt++].fd = fd;
			return fd;
		}
		close(fd);
	}
	return -ENOENT;
}

/* Programs a fentry function has: the entry and the exit one, or one fsession program. */
static int progs_per_func(const struct mass_attacher *att)
{
	return att->use_fsession ? 1 : 2;
}

/*
 * The template for function @id's entry or exit (its fsession program: @is_exit 0), the
 * function it was loaded for, its id's insn.
 */
static struct bpf_program *func_tmpl(struct mass_attacher *att, __u32 id, bool is_exit,
				     int *tmpl_func, int *id_insn)
{
	struct mass_attacher_progs *p = &att->progs;
	int slot;

	if (att->use_fsession) {
		slot = !!(att->funcs[id].flags & FUNC_RET_VOID);
		*tmpl_func = att->fsession_tmpl_func[slot];
		*id_insn = att->fsession_id_insn[slot];
		return slot ? p->fsession_void : p->fsession;
	}
	if (!is_exit) {
		*tmpl_func = att->fentry_tmpl_func;
		*id_insn = att->fentry_id_insn;
		return p->fentry;
	}
	slot = mass_attacher__fexit_slot(att, id);
	*tmpl_func = att->fexit_tmpl_func[slot];
	*id_insn = att->fexit_id_insn[slot];
	return slot < MA_FEXIT_TMPLS ? p->fexit[slot] : p->fexit_void;
}

/*
 * The clones to load: an entry and an exit program for every fentry function (one
 * fsession program where it is used), except where the template itself was loaded for
 * the function (libbpf attaches those).
 */
#define MA_TMPLS	(MA_FEXIT_TMPLS + 2)

/* Each template's subprograms for its clones (ma__tmpl_func_info()), found once */
struct tmpl_infos {
	const struct bpf_program *tmpl[MA_TMPLS];
	struct ma_func_info fi[MA_TMPLS];
	int cnt;
};

static const struct ma_func_info *tmpl_info(struct tmpl_infos *ti, const struct bpf_program *tmpl)
{
	int i;

	for (i = 0; i < ti->cnt; i++)
		if (ti->tmpl[i] == tmpl)
			return &ti->fi[i];
	if (ti->cnt == MA_TMPLS || ma__tmpl_func_info(tmpl, &ti->fi[ti->cnt]))
		return NULL;
	ti->tmpl[ti->cnt] = tmpl;
	return &ti->fi[ti->cnt++];
}

/* The multi-link program cloned for the module of BTF @btf_fd, NULL: none yet */
static struct ma_clone *fmulti_clone(struct ma_clone *c, size_t cnt, int btf_fd)
{
	size_t i;

	for (i = 0; i < cnt; i++)
		if (c[i].is_multi && c[i].btf_obj_fd == btf_fd)
			return &c[i];
	return NULL;
}

static int plan_clones(struct mass_attacher *att, struct ma_clone *c, size_t *cnt,
		       struct tmpl_infos *ti)
{
	int tmpl_func, btf_fd, k, id_insn;
	struct bpf_program *tmpl;
	__u32 id;

	*cnt = 0;
	for (id = 0; id < att->func_cnt; id++) {
		const struct func *f = &att->funcs[id];

		if (att->how[id] != FUNC_ATTACH_FENTRY)
			continue;
		btf_fd = 0;
		if (f->module && (btf_fd = module_btf_fd(att, f->module)) < 0) {
			pr(att, LOG_ERROR, "Failed to find the BTF of module '%s' for func #%u (%s): %d\n",
			   f->module, id + 1, f->name, btf_fd);
			return btf_fd;
		}
		if (on_fmulti(att, id)) {
			/* vmlinux's program is the object's; a module's, the first time it's seen */
			if (!btf_fd || fmulti_clone(c, *cnt, btf_fd))
				continue;
			c[(*cnt)++] = (struct ma_clone){
				.insns = bpf_program__insns(att->progs.fsession_multi),
				.insn_cnt = bpf_program__insn_cnt(att->progs.fsession_multi),
				.prog_type = BPF_PROG_TYPE_TRACING,
				.btf_obj_fd = btf_fd, .is_session = true, .is_multi = true,
				.func_id = id, .id_insn = -1,
				.fi = tmpl_info(ti, att->progs.fsession_multi),
			};
			continue;
		}
		for (k = 0; k < progs_per_func(att); k++) {
			tmpl = func_tmpl(att, id, k, &tmpl_func, &id_insn);
			if ((int)id == tmpl_func)
				continue;
			/* libbpf kept the template's instructions in place: the id is where it was */
			if (id_insn >= 0 && !ma__tmpl_id_at(tmpl, id_insn, tmpl_func)) {
				pr(att, LOG_ERROR, "The %s template's function id moved at load\n",
				   ma__tracing_kind(att->use_fsession, k));
				return -EINVAL;
			}
			c[*cnt] = (struct ma_clone){
				.insns = bpf_program__insns(tmpl),
				.insn_cnt = bpf_program__insn_cnt(tmpl),
				.prog_type = BPF_PROG_TYPE_TRACING,
				.btf_id = f->btf_id, .btf_obj_fd = btf_fd, .is_exit = k,
				.is_session = att->use_fsession,
				.func_id = id, .id_insn = id_insn,
				.fi = tmpl_info(ti, tmpl),
			};
			++*cnt;
		}
	}
	return 0;
}

/* Attach function @id's program (@c: its clone, NULL: the template itself). */
static int attach_one(struct mass_attacher *att, struct bpf_program *tmpl, struct ma_clone *c)
{
	struct bpf_link *link;
	int fd;

	if (!c) {
		link = bpf_program__attach_trace(tmpl);
		return link ? ma__keep_link(att, link) : -errno;
	}
	/* the kernel's raw tracepoint path links only fentry, fexit and fmod_ret programs */
	if (c->is_session)
		fd = bpf_link_create(c->fd, 0, (enum bpf_attach_type)FSESSION_ATTACH_TYPE, NULL);
	else
		fd = bpf_raw_tracepoint_open(NULL, c->fd);
	return fd < 0 ? -errno : ma__keep_fd(att, fd);
}

/*
 * Functions a multi-link takes: the kernel builds their trampolines in one call that no
 * signal interrupts, ~0.37 ms a function under TCG (7.2: 5,304 in 1.9 s), so a stop waits
 * for at most one batch's.
 */
#define FMULTI_BATCH	1024

/*
 * Link program @prog_fd to the functions of one BTF (@btf_fd: a module's, 0: vmlinux's),
 * each function's cookie its id (FMULTI_COOKIE_VOID: returns nothing), FMULTI_BATCH of
 * them a link. The kernel builds the trampolines of a link's functions under one lock and
 * one ftrace update: it refuses the whole batch when one function can't be traced,
 * without saying which.
 */
static int link_fmulti(struct mass_attacher *att, int prog_fd, int btf_fd, const char *mod,
		       __u32 *ids, __u64 *cookies, size_t *done)
{
	long t0 = now_ms();
	size_t n = 0, i, k;
	__u32 id;
	int fd;

	for (id = 0; id < att->func_cnt; id++) {
		const struct func *f = &att->funcs[id];

		if (!on_fmulti(att, id) || (f->module ? module_btf_fd(att, f->module) : 0) != btf_fd)
			continue;
		ids[n] = f->btf_id;
		cookies[n++] = id | (f->flags & FUNC_RET_VOID ? FMULTI_COOKIE_VOID : 0);
	}
	for (i = 0; i < n; i += k) {
		k = n - i < FMULTI_BATCH ? n - i : FMULTI_BATCH;
		if (ma__stopped(att))
			return -EINTR;
		fd = tracing_multi__link(prog_fd, FSESSION_MULTI_ATTACH_TYPE, ids + i, cookies + i, k);
		if (fd < 0) {
			pr(att, LOG_ERROR, "Failed to link the fsession program to %zu functions of %s%s with a tracing multi-link: %d (the kernel doesn't say which function it refused; -C bpf.fsession-multi=n attaches them one by one and names it).\n",
			   k, mod ? "module " : "vmlinux", mod ?: "", fd);
			return fd;
		}
		fd = ma__keep_fd(att, fd);
		if (fd)
			return fd;
		*done += k;
		ma__attach_progress(att, att->kprobe_cnt + *done);
	}
	if (n)
		pr(att, LOG_DEBUG, "Linked the fsession program to %zu functions of %s%s with %zu multi-link%s in %ld ms.\n",
		   n, mod ? "module " : "vmlinux", mod ?: "", (n + FMULTI_BATCH - 1) / FMULTI_BATCH,
		   n > FMULTI_BATCH ? "s" : "", now_ms() - t0);
	return 0;
}

/* All the multi-links: vmlinux's program (the object's), then each module's clone's. */
static int attach_fmulti(struct mass_attacher *att, const struct ma_clone *c, size_t cnt,
			 size_t *done)
{
	__u32 *ids = calloc(att->fmulti_cnt, sizeof(*ids));
	__u64 *cookies = calloc(att->fmulti_cnt, sizeof(*cookies));
	int err = -ENOMEM;
	size_t i;

	if (!ids || !cookies)
		goto out;
	err = link_fmulti(att, bpf_program__fd(att->progs.fsession_multi), 0, NULL, ids,
			  cookies, done);
	for (i = 0; i < cnt && !err; i++) {
		if (c[i].is_multi)
			err = link_fmulti(att, c[i].fd, c[i].btf_obj_fd,
					  att->funcs[c[i].func_id].module, ids, cookies, done);
	}
out:
	free(ids);
	free(cookies);
	return err;
}

int ma__attach_fentry(struct mass_attacher *att)
{
	struct tmpl_infos ti = { .cnt = 0 };
	struct ma_clone *clones, *c;
	struct bpf_program *tmpl;
	size_t cnt, i, done = 0;
	int err, tmpl_func, k, id_insn;
	long t0 = now_ms();
	__u32 id;

	clones = calloc(2 * att->fentry_cnt + 1, sizeof(*clones));
	if (!clones)
		return -ENOMEM;
	err = plan_clones(att, clones, &cnt, &ti);
	if (!err)
		err = ma__load_clones(clones, cnt, att->opts.progress, att->opts.progress_ctx,
				      att->opts.stop);
	/* every program loaded is ours to close, whatever happened to the others */
	for (i = 0; i < cnt; i++)
		if (clones[i].fd >= 0 && ma__keep_fd(att, clones[i].fd) && !err)
			err = -ENOMEM;
	/* a verification cut short by the stop is no failure to explain */
	if (err && ma__stopped(att))
		err = -EINTR;
	if (err && err != -EINTR) {
		for (i = 0; i < cnt; i++) {
			if (clones[i].fd >= 0 || clones[i].fd == -ENOTCONN)
				continue;
			/* the first refused one, with the verifier's last words */
			id = clones[i].func_id;
			ma__explain_clone(&clones[i], att->opts.print, att->funcs[id].name);
			pr(att, LOG_ERROR, "Failed to load %s prog for func #%u (%s): %d\n",
			   ma__tracing_kind(clones[i].is_session, clones[i].is_exit), id + 1,
			   att->funcs[id].name, clones[i].fd);
			break;
		}
	}
	if (err)
		goto out;
	pr(att, LOG_DEBUG, "Verified %zu %s clones in %ld ms.\n", cnt,
	   att->use_fmulti ? "fsession multi-link" : att->use_fsession ? "fsession" : "fentry/fexit",
	   now_ms() - t0);

	/* multi-links: every fentry function, a few links in all */
	if (att->use_fmulti) {
		err = ma__stopped(att) ? -EINTR : attach_fmulti(att, clones, cnt, &done);
		goto out;
	}
	/* else a link a clone, in the order they were planned */
	for (c = clones, id = 0; id < att->func_cnt; id++) {
		const struct func *f = &att->funcs[id];

		if (att->how[id] != FUNC_ATTACH_FENTRY)
			continue;
		if (ma__stopped(att)) {
			err = -EINTR;
			goto out;
		}
		for (k = 0; k < progs_per_func(att); k++) {
			tmpl = func_tmpl(att, id, k, &tmpl_func, &id_insn);
			err = attach_one(att, tmpl, tmpl_func == (int)id ? NULL : c++);
			if (err) {
				pr(att, LOG_ERROR, "Failed to attach %s prog for func #%u (%s): %d\n",
				   ma__tracing_kind(att->use_fsession, k), id + 1, f->name, err);
				goto out;
			}
		}
		ma__attach_progress(att, att->kprobe_cnt + ++done);
	}
out:
	for (i = 0; i < (size_t)ti.cnt; i++)
		ma__func_info_free(&ti.fi[i]);
	free(clones);
	return err;
}
