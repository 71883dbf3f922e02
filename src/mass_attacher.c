// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "kprobe_session.h"
#include "mono_clock.h"
#include "session_prog.h"
#include "opts.h"
#include "mass_attacher_int.h"
#include "records.h"
#include "ip_slot_table.h"

/* Beyond this the kernel's per-link limits and our fd budget make no sense anyway. */
#define MAX_FUNC_CNT		(1 << 20)
#define NOFILE_LIMIT		300000

bool ma__stopped(const struct mass_attacher *att)
{
	return att->opts.stop && *att->opts.stop;
}


const char *mass_attacher__mode_name(enum attach_mode mode)
{
	switch (mode) {
	case ATTACH_KPROBE_MULTI: return "kprobe.multi";
	case ATTACH_KPROBE_SINGLE: return "kprobe";
	case ATTACH_FENTRY: return "fentry/fexit";
	default: return "auto";
	}
}

struct mass_attacher *mass_attacher__new(const struct mass_attacher_progs *progs,
					 const struct func *funcs, size_t cnt,
					 const struct mass_attacher_opts *opts)
{
	struct mass_attacher_opts o;
	struct mass_attacher *att;
	int i;

	if (!progs || OPTS_COPY(&o, opts) || (cnt && !funcs))
		return errno = EINVAL, NULL;
	if (cnt > MAX_FUNC_CNT)
		return errno = E2BIG, NULL;
	att = calloc(1, sizeof(*att));
	if (!att)
		return NULL;
	att->how = calloc(cnt ?: 1, sizeof(*att->how));
	att->kprobe_ids = calloc(cnt ?: 1, sizeof(*att->kprobe_ids));
	att->injects = ma_injects__new();
	if (!att->how || !att->kprobe_ids || !att->injects) {
		free(att->how);
		free(att->kprobe_ids);
		ma_injects__free(att->injects);
		free(att);
		return errno = ENOMEM, NULL;
	}
	att->progs = *progs;
	att->opts = o;
	att->mode = o.mode;
	att->funcs = funcs;
	att->func_cnt = cnt;
	att->fentry_tmpl_func = att->fentry_id_insn = -1;
	for (i = 0; i <= MA_FEXIT_TMPLS; i++)
		att->fexit_tmpl_func[i] = att->fexit_id_insn[i] = -1;
	for (i = 0; i < 2; i++)
		att->fsession_tmpl_func[i] = att->fsession_id_insn[i] = -1;
	return att;
}

int mass_attacher__add_inject(struct mass_attacher *att, const struct probe_spec *spec,
			      __u64 cookie)
{
	if (att->planned)
		return -EBUSY;
	return ma_injects__add(att->injects, spec, cookie);
}

static int push(void **arr, size_t *cnt, size_t *cap, size_t elem)
{
	void *tmp;

	if (*cnt < *cap)
		return 0;
	tmp = realloc(*arr, (*cap ? *cap * 2 : 64) * elem);
	if (!tmp)
		return -ENOMEM;
	*arr = tmp;
	*cap = *cap ? *cap * 2 : 64;
	return 0;
}

static void raise_nofile(struct mass_attacher *att)
{
	struct rlimit rl = { NOFILE_LIMIT, NOFILE_LIMIT };

	/* fentry needs 2 fds per function; best effort, failures show up as EMFILE later */
	if (setrlimit(RLIMIT_NOFILE, &rl))
		pr(att, LOG_DEBUG, "Failed to raise RLIMIT_NOFILE to %d: %s\n", NOFILE_LIMIT,
		   strerror(errno));
}

static void set_autoload(struct bpf_program *p, bool on)
{
	if (p)
		bpf_program__set_autoload(p, on);
}

static bool fentry_can(const struct func *f)
{
	return !f->kprobe_fallback && f->btf_id > 0 && f->arg_cnt >= 0 &&
	       f->arg_cnt < MA_FEXIT_TMPLS;
}

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

	set_autoload(t, fi >= 0);
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

/* fsession: the template's return-run test made the kfunc call, then as the pair's. */
static int prepare_fsession(struct mass_attacher *att)
{
	struct mass_attacher_progs *p = &att->progs;
	struct bpf_program *t;
	int err = 0, k;

	set_autoload(p->fentry, false);
	set_autoload(p->fexit_void, false);
	for (k = 0; k < MA_FEXIT_TMPLS; k++)
		set_autoload(p->fexit[k], false);
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

/* fentry: point each template at the first function it was planned for. */
static int prepare_fentry(struct mass_attacher *att)
{
	struct mass_attacher_progs *p = &att->progs;
	int err = 0, slot;

	if (att->use_fsession)
		return prepare_fsession(att);
	set_autoload(p->fsession, false);
	set_autoload(p->fsession_void, false);
	err = prepare_tmpl(att, p->fentry, att->fentry_tmpl_func, &att->fentry_id_insn);
	for (slot = 0; slot <= MA_FEXIT_TMPLS && !err; slot++) {
		struct bpf_program *t = slot < MA_FEXIT_TMPLS ? p->fexit[slot] : p->fexit_void;

		err = prepare_tmpl(att, t, att->fexit_tmpl_func[slot], &att->fexit_id_insn[slot]);
	}
	return err;
}

/* Which way each function is attached, and the kprobe ones' list. */
static void plan_funcs(struct mass_attacher *att)
{
	enum func_attach kp = att->opts.has_kprobe_multi && att->mode != ATTACH_KPROBE_SINGLE ?
			      FUNC_ATTACH_KPROBE_MULTI : FUNC_ATTACH_KPROBE;
	size_t i;

	att->kprobe_cnt = att->fentry_cnt = 0;
	for (i = 0; i < att->func_cnt; i++) {
		if (att->mode == ATTACH_FENTRY && fentry_can(&att->funcs[i])) {
			att->how[i] = FUNC_ATTACH_FENTRY;
			att->fentry_cnt++;
			continue;
		}
		att->how[i] = kp;
		att->kprobe_ids[att->kprobe_cnt++] = i;
	}
}

int mass_attacher__plan(struct mass_attacher *att)
{
	size_t i;
	int slot, err;

	if (att->func_cnt == 0) {
		pr(att, LOG_ERROR, "No matching functions found.\n");
		return -ENOENT;
	}
	switch (att->mode) {
	case ATTACH_AUTO:
		att->mode = att->opts.has_kprobe_multi ? ATTACH_KPROBE_MULTI : ATTACH_KPROBE_SINGLE;
		break;
	case ATTACH_KPROBE_MULTI:
		if (!att->opts.has_kprobe_multi) {
			pr(att, LOG_ERROR, "This kernel has no kprobe.multi links (they need Linux "
			   "5.18+ built with CONFIG_FPROBE).\n");
			return -EOPNOTSUPP;
		}
		break;
	case ATTACH_FENTRY:
		if (!att->opts.has_func_ip) {
			pr(att, LOG_ERROR, "fentry/fexit tracing needs bpf_get_func_ip() (Linux "
			   "5.15+), which this kernel lacks.\n");
			return -EOPNOTSUPP;
		}
		if (!att->opts.has_fentry) {
			pr(att, LOG_ERROR, "fentry/fexit tracing needs BPF trampolines on kernel "
			   "functions (on arm64: Linux 6.4+), which this kernel lacks.\n");
			return -EOPNOTSUPP;
		}
		break;
	default:
		break;
	}
	err = ma_injects__plan(att->injects, &att->opts);
	if (err)
		return err;
	plan_funcs(att);
	if (att->kprobe_cnt && !att->opts.has_cookies && !att->opts.has_func_ip &&
	    att->opts.kret_ip_off <= 0) {
		pr(att, LOG_ERROR, "Kprobes can't tell which function they fired for on this kernel: "
		   "it has neither BPF cookies nor bpf_get_func_ip() (Linux 5.15+) and the "
		   "kretprobe IP offset could not be calibrated.\n");
		return -EOPNOTSUPP;
	}
	att->use_cookies = att->kprobe_cnt && att->opts.has_cookies;
	/* one session link for entry and return where the kernel has them and no -C says no */
	att->use_session = mass_attacher__kprobe_multi_used(att) && att->opts.session_kfunc_id &&
			   att->progs.ksession;
	/* -F: one fsession program a function where the kernel has them, not the pair */
	att->use_fsession = att->fentry_cnt && att->opts.fsession_kfunc_id &&
			    att->progs.fsession && att->progs.fsession_void;
	/* fentry: load each template once, for the first function it fits; clones do the rest */
	for (i = 0; i < att->func_cnt; i++) {
		if (att->how[i] != FUNC_ATTACH_FENTRY)
			continue;
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
	att->planned = true;
	return 0;
}

int mass_attacher__prepare(struct mass_attacher *att)
{
	struct mass_attacher_progs *p = &att->progs;
	size_t ip_slots;
	int slot, err;

	if (!att->planned && (err = mass_attacher__plan(att)))
		return err;
	att->prepared = true;
	raise_nofile(att);

	ma_injects__prepare(att->injects, p);
	set_autoload(p->kentry, att->kprobe_cnt && !att->use_session);
	set_autoload(p->kexit, att->kprobe_cnt && !att->use_session);
	set_autoload(p->ksession, att->use_session);
	if (att->use_session) {
		err = session_prog__prepare(p->ksession, att->opts.session_kfunc_id,
					    att->opts.session_cookie_kfunc_id,
					    KPROBE_SESSION_ATTACH_TYPE);
		if (err) {
			pr(att, LOG_ERROR, "Failed to prepare the kprobe session program: %d\n", err);
			return err;
		}
	} else if (mass_attacher__kprobe_multi_used(att)) {
		/* the kernel only links programs loaded for kprobe.multi into such links */
		bpf_program__set_expected_attach_type(p->kentry, BPF_TRACE_KPROBE_MULTI);
		bpf_program__set_expected_attach_type(p->kexit, BPF_TRACE_KPROBE_MULTI);
	}
	if (att->fentry_cnt) {
		err = prepare_fentry(att);
		if (err)
			return err;
	} else {
		set_autoload(p->fentry, false);
		set_autoload(p->fexit_void, false);
		set_autoload(p->fsession, false);
		set_autoload(p->fsession_void, false);
		for (slot = 0; slot < MA_FEXIT_TMPLS; slot++)
			set_autoload(p->fexit[slot], false);
	}
	/* kprobe.multi's cookie is a bsearch: a table answers cheaper (ip_slots.h) */
	if (p->ip_slots && att->use_cookies && att->opts.has_func_ip &&
	    mass_attacher__kprobe_multi_used(att)) {
		att->ip_slot_bits = ip_slots__bits(att->kprobe_cnt);
		err = bpf_map__set_max_entries(p->ip_slots, 1u << att->ip_slot_bits);
		if (err)
			return err;
	}
	ip_slots = mass_attacher__ip_slots(att);
	return bpf_map__set_max_entries(p->ip_to_id, ip_slots ?: 1);
}

__u32 mass_attacher__ip_slot_bits(const struct mass_attacher *att)
{
	return att->ip_slot_bits;
}

/*
 * The kprobe.multi functions' table, its filled slots in one batch update. Functions
 * without a slot (or an address) get their id from the cookie, which the links carry anyway.
 * 0 or a negative errno (said at LOG_DEBUG: the run goes on with the cookies).
 */
static int fill_ip_slots(struct mass_attacher *att)
{
	LIBBPF_OPTS(bpf_map_batch_opts, bopts);
	size_t n = (size_t)1 << att->ip_slot_bits, i;
	/* the batch holds the filled slots only: at most one per function */
	struct ip_slot *tab = calloc(n, sizeof(*tab));
	struct ip_slot *vals = calloc(att->kprobe_cnt, sizeof(*vals));
	__u32 *keys = calloc(att->kprobe_cnt, sizeof(*keys)), cnt = 0, key, id;
	int err = 0;

	if (!tab || !vals || !keys) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < att->kprobe_cnt; i++) {
		id = att->kprobe_ids[i];
		ip_slots__place(tab, att->ip_slot_bits, att->funcs[id].addr, id);
	}
	for (key = 0; key < n && cnt < att->kprobe_cnt; key++) {
		if (!tab[key].ip)
			continue;
		keys[cnt] = key;
		vals[cnt++] = tab[key];
	}
	if (cnt && bpf_map_update_batch(bpf_map__fd(att->progs.ip_slots), keys, vals, &cnt,
					&bopts))
		err = -errno;
	pr(att, LOG_DEBUG, "Function ids by address: %u of %zu kprobe.multi functions in %zu "
	   "slots, the rest by cookie (%d).\n", cnt, att->kprobe_cnt, n, err);
out:
	free(tab);
	free(vals);
	free(keys);
	return err;
}

int mass_attacher__fexit_tmpl_func(const struct mass_attacher *att, int slot)
{
	return slot >= 0 && slot <= MA_FEXIT_TMPLS ? att->fexit_tmpl_func[slot] : -1;
}

/* fentry/fexit programs carry their function's id (FENTRY_ID_MARK): kprobes only */
size_t mass_attacher__ip_slots(const struct mass_attacher *att)
{
	return att->use_cookies ? 0 : att->kprobe_cnt;
}

enum attach_mode mass_attacher__mode(const struct mass_attacher *att)
{
	return att->mode;
}

enum func_attach mass_attacher__func_attach(const struct mass_attacher *att, __u32 id)
{
	return att->how[id];
}

bool mass_attacher__kprobe_multi_used(const struct mass_attacher *att)
{
	return att->kprobe_cnt && att->how[att->kprobe_ids[0]] == FUNC_ATTACH_KPROBE_MULTI;
}

bool mass_attacher__kprobe_session_used(const struct mass_attacher *att)
{
	return att->use_session;
}

bool mass_attacher__fsession_used(const struct mass_attacher *att)
{
	return att->use_fsession;
}

size_t mass_attacher__fallback_cnt(const struct mass_attacher *att)
{
	return att->mode == ATTACH_FENTRY ? att->kprobe_cnt : 0;
}

/* fd of the kernel BTF object of module @mod (cached), or negative errno. */
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

int ma__keep_fd(struct mass_attacher *att, int fd)
{
	if (push((void **)&att->fds, &att->fd_cnt, &att->fd_cap, sizeof(int))) {
		close(fd);
		return -ENOMEM;
	}
	att->fds[att->fd_cnt++] = fd;
	return 0;
}

int ma__keep_link(struct mass_attacher *att, struct bpf_link *link)
{
	if (push((void **)&att->links, &att->link_cnt, &att->link_cap, sizeof(link))) {
		bpf_link__destroy(link);
		return -ENOMEM;
	}
	att->links[att->link_cnt++] = link;
	return 0;
}

int mass_attacher__load(struct mass_attacher *att)
{
	int map_fd = bpf_map__fd(att->progs.ip_to_id);
	__u32 id;

	att->loaded = true;
	/* a table left empty (or half filled) costs a miss per call, never a wrong id */
	if (att->ip_slot_bits)
		fill_ip_slots(att);
	/* kprobes without cookies find their function by ip; fentry/fexit carry their id */
	for (id = 0; id < att->func_cnt && !att->use_cookies; id++) {
		__u64 ip = att->funcs[id].addr;

		if (att->how[id] == FUNC_ATTACH_FENTRY)
			continue;
		if (bpf_map_update_elem(map_fd, &ip, &id, BPF_ANY))
			return -errno;
	}
	return 0;
}

void ma__attach_progress(struct mass_attacher *att, size_t done)
{
	if (att->opts.progress)
		att->opts.progress(att->opts.progress_ctx, "attaching functions", done,
				   att->func_cnt);
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

static int attach_fentry(struct mass_attacher *att)
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
	   att->use_fsession ? "fsession" : "fentry/fexit", now_ms() - t0);

	/* then attach them all, in the order they were planned */
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

int mass_attacher__attach(struct mass_attacher *att)
{
	int err = 0;

	if (!att->loaded)
		return -EINVAL;
	/* injected probes first: a bad one fails the run before the slow part */
	err = ma_injects__attach(att->injects, &att->progs, att->opts.print);
	/* kprobes first: fentry attaching is the slow part and the kprobes are cheap */
	if (!err && att->kprobe_cnt) {
		if (att->how[att->kprobe_ids[0]] == FUNC_ATTACH_KPROBE_MULTI)
			err = ma__attach_multi(att);
		else
			err = ma__attach_kprobes(att);
	}
	if (!err && att->fentry_cnt)
		err = attach_fentry(att);
	/* asked to stop right after the last one: no run to start, the same as during */
	if (!err && ma__stopped(att))
		err = -EINTR;
	/*
	 * A stop (-EINTR) leaves the links to the caller, who may hand their release to
	 * another process before letting go of them (stop.h); mass_attacher__free() detaches.
	 */
	if (err && err != -EINTR)
		mass_attacher__detach(att);
	return err;
}

int mass_attacher__detach_by(struct mass_attacher *att, long deadline_ms)
{
	size_t n, total = att->link_cnt + att->fd_cnt;

	/* kprobe and trampoline links take long to go (grace periods): say how far it is */
	n = ma__close_all(att->links, att->link_cnt, att->fds, att->fd_cnt,
			  att->opts.detach_threads, deadline_ms, att->opts.progress,
			  att->opts.progress_ctx);
	if (n < total) {
		/* what is left moves to the front, for the next detach (or free) */
		if (n < att->link_cnt) {
			memmove(att->links, att->links + n, (att->link_cnt - n) * sizeof(*att->links));
			att->link_cnt -= n;
		} else {
			n -= att->link_cnt;
			att->link_cnt = 0;
			memmove(att->fds, att->fds + n, (att->fd_cnt - n) * sizeof(*att->fds));
			att->fd_cnt -= n;
		}
		return -ETIMEDOUT;
	}
	att->link_cnt = 0;
	att->fd_cnt = 0;
	ma_injects__detach(att->injects);
	return 0;
}

long mass_attacher__detach(struct mass_attacher *att)
{
	long start = now_ms();

	mass_attacher__detach_by(att, 0);
	return now_ms() - start;
}

void mass_attacher__free(struct mass_attacher *att)
{
	size_t i;

	if (!att)
		return;
	mass_attacher__detach(att);
	for (i = 0; i < att->mod_btf_cnt; i++) {
		close(att->mod_btfs[i].fd);
		free(att->mod_btfs[i].name);
	}
	free(att->mod_btfs);
	ma_injects__free(att->injects);
	free(att->how);
	free(att->kprobe_ids);
	free(att->links);
	free(att->fds);
	free(att);
}

bool mass_attacher__uses_cookies(const struct mass_attacher *att)
{
	return att->use_cookies;
}
