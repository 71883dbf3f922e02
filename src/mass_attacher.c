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

static bool fentry_can(const struct func *f)
{
	return !f->kprobe_fallback && f->btf_id > 0 && f->arg_cnt >= 0 &&
	       f->arg_cnt < MA_FEXIT_TMPLS;
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
	int err;

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
	ma__plan_fentry(att);
	att->planned = true;
	return 0;
}

int mass_attacher__prepare(struct mass_attacher *att)
{
	struct mass_attacher_progs *p = &att->progs;
	size_t ip_slots;
	int err;

	if (!att->planned && (err = mass_attacher__plan(att)))
		return err;
	att->prepared = true;
	raise_nofile(att);

	ma_injects__prepare(att->injects, p);
	ma__set_autoload(p->kentry, att->kprobe_cnt && !att->use_session);
	ma__set_autoload(p->kexit, att->kprobe_cnt && !att->use_session);
	ma__set_autoload(p->ksession, att->use_session);
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
	err = ma__prepare_fentry(att);
	if (err)
		return err;
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

size_t mass_attacher__fsession_multi_cnt(const struct mass_attacher *att)
{
	return att->fmulti_cnt;
}

bool mass_attacher__sole_tracing_prog(const struct mass_attacher *att)
{
	size_t i;

	/* with multi-links every fentry function is on one (on_fmulti()): no per-function clone */
	if (!att->fmulti_cnt || ma_injects__cnt(att->injects))
		return false;
	for (i = 0; i < att->func_cnt; i++)
		if (att->how[i] == FUNC_ATTACH_FENTRY && att->funcs[i].module)
			return false;	/* its module's clone of the program */
	return true;
}

size_t mass_attacher__fallback_cnt(const struct mass_attacher *att)
{
	return att->mode == ATTACH_FENTRY ? att->kprobe_cnt : 0;
}

/* fd of the kernel BTF object of module @mod (cached), or negative errno. */
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
		err = ma__attach_fentry(att);
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
	free(att->kprobe_refused);
	free(att->links);
	free(att->fds);
	free(att);
}

size_t mass_attacher__refused_cnt(const struct mass_attacher *att)
{
	return att->kprobe_refused_cnt;
}

bool mass_attacher__func_refused(const struct mass_attacher *att, __u32 id)
{
	return att->kprobe_refused && id < att->func_cnt && att->kprobe_refused[id];
}

bool mass_attacher__uses_cookies(const struct mass_attacher *att)
{
	return att->use_cookies;
}
