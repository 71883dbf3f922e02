// SPDX-License-Identifier: BSD-2-Clause
/*
 * The mass attacher's kprobes: a kprobe and a kretprobe per function through perf events
 * (-K), or kprobe.multi links over all of them at once, either an entry and a return link
 * or, where the kernel has them, one session link (kprobe_session.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kprobe_pmu.h"
#include "kprobe_session.h"
#include "mass_attacher_int.h"
#include "records.h"

/* Functions per kprobe.multi link to start with (halved where the kernel runs short). */
#define MULTI_BATCH_INIT	(1 << 20)

/* By address, not name: same-named static functions stay apart. */
static int attach_kprobe_addr(struct mass_attacher *att, struct bpf_program *prog, __u32 id,
			      bool retprobe, int type, int ret_bit)
{
	/* kernels without cookies refuse a non-zero one; the programs then look up the ip */
	LIBBPF_OPTS(bpf_perf_event_opts, pe, .bpf_cookie = att->use_cookies ? id : 0);
	struct bpf_link *link;
	int pfd;

	/* no symbol name (config1 0): config2 is an address */
	pfd = probe_pmu__open(type, ret_bit, retprobe, 0, att->funcs[id].addr, -1);
	if (pfd < 0)
		return pfd;
	link = bpf_program__attach_perf_event_opts(prog, pfd, &pe);
	if (!link) {
		int err = -errno;

		close(pfd);
		return err;
	}
	return ma__keep_link(att, link);
}

/*
 * The kernel's kprobes refuse a function on their blacklist (NOKPROBE_SYMBOL: NMI, trap
 * and kprobe code, e.g. x86's io_check_error, arm64's __activate_traps, where ftrace,
 * fentry and kprobe.multi take it) with -EINVAL: such a function is left out, not the
 * run, and said. -v names each one.
 */
static void skip_refused(struct mass_attacher *att, __u32 id)
{
	if (!att->kprobe_refused)
		att->kprobe_refused = calloc(att->func_cnt, sizeof(*att->kprobe_refused));
	/* without the table only -v's list names it as attached */
	if (att->kprobe_refused)
		att->kprobe_refused[id] = true;
	att->kprobe_refused_cnt++;
	if (att->funcs[id].flags & FUNC_IS_ENTRY) {
		att->kprobe_refused_entries++;
		att->kprobe_refused_entry = id;
	}
	pr(att, LOG_INFO, "The kernel refuses kprobes on %s (its kprobe blacklist): not traced.\n",
	   att->funcs[id].name);
}

/* Said once all are attached: how many were left out, or why nothing can run. */
static int report_refused(struct mass_attacher *att)
{
	size_t n = att->kprobe_refused_cnt, entries = 0, i;
	/* fentry's own fallbacks are the functions fentry can't take */
	bool hint = att->mode != ATTACH_FENTRY;

	if (!n)
		return 0;
	for (i = 0; i < att->func_cnt; i++)
		entries += !!(att->funcs[i].flags & FUNC_IS_ENTRY);
	if (att->kprobe_refused_entries == entries && entries == 1) {
		/* no session could start: nothing to trace */
		pr(att, LOG_ERROR, "The kernel refuses kprobes on %s, the only entry function (its kprobe blacklist: NMI, trap and kprobe code)%s.\n",
		   att->funcs[att->kprobe_refused_entry].name, hint ? "; -F traces it with fentry" : "");
		return -EINVAL;
	}
	if (att->kprobe_refused_entries == entries) {
		pr(att, LOG_ERROR, "The kernel refuses kprobes on every entry function (%zu; its kprobe blacklist: NMI, trap and kprobe code)%s.\n",
		   entries, hint ? "; -F traces them with fentry" : "");
		return -EINVAL;
	}
	pr(att, LOG_WARN, "WARNING: %zu of %zu functions skipped: the kernel refuses kprobes on them (its kprobe blacklist: NMI, trap and kprobe code); -v names them%s.\n",
	   n, att->func_cnt, hint ? ", -F traces them with fentry" : "");
	return 0;
}

int ma__attach_kprobes(struct mass_attacher *att)
{
	int type, ret_bit, err;
	size_t i;

	err = kprobe_pmu__read(&type, &ret_bit);
	if (err) {
		pr(att, LOG_ERROR, "Kprobes are not available in this kernel (no kprobe PMU): %d\n",
		   err);
		return err;
	}

	att->kprobe_refused_cnt = att->kprobe_refused_entries = 0;
	for (i = 0; i < att->kprobe_cnt; i++) {
		__u32 id = att->kprobe_ids[i];
		const struct func *f = &att->funcs[id];

		if (ma__stopped(att))
			return -EINTR;
		/* the return probe first: an entry never runs without its exit */
		err = attach_kprobe_addr(att, att->progs.kexit, id, true, type, ret_bit);
		if (err == -EINVAL) {
			skip_refused(att, id);
			continue;
		}
		if (err) {
			pr(att, LOG_ERROR, "Failed to attach KRETPROBE prog for func #%u (%s) at addr "
			   "0x%llx: %d\n", id + 1, f->name, (unsigned long long)f->addr, err);
			return err;
		}
		err = attach_kprobe_addr(att, att->progs.kentry, id, false, type, ret_bit);
		if (err == -EINVAL) {
			/* the same list refuses both; a lone return probe would only cost */
			bpf_link__destroy(att->links[--att->link_cnt]);
			skip_refused(att, id);
			continue;
		}
		if (err) {
			pr(att, LOG_ERROR, "Failed to attach KPROBE prog for func #%u (%s) at addr "
			   "0x%llx: %d\n", id + 1, f->name, (unsigned long long)f->addr, err);
			return err;
		}
		ma__attach_progress(att, i + 1);
	}
	return report_refused(att);
}

/* The kprobe-attached functions' addresses, names and ids (cookies), in kprobe_ids order. */
struct multi_set {
	unsigned long *addrs;
	const char **syms;
	__u64 *cookies;
};

static const char *const multi_prog_names[] = { "KRETPROBE.MULTI", "KPROBE.MULTI" };

/*
 * One link over the functions [start, start + cnt) of @m: the session program's, else
 * the return program's (pass 0) or the entry program's (pass 1). Kept for detach (a
 * session link as a bare fd: libbpf 1.4 can't make it, kprobe_session.h). 0 or -errno.
 */
static int link_batch(struct mass_attacher *att, const struct multi_set *m, int pass,
		      size_t start, size_t cnt, bool by_name)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, mo,
		.cnt = cnt,
		.cookies = m->cookies + start,
		.retprobe = pass == 0,
	);
	struct bpf_program *prog = pass ? att->progs.kentry : att->progs.kexit;
	struct bpf_link *link;
	int fd;

	if (att->use_session) {
		fd = kprobe_session__link(bpf_program__fd(att->progs.ksession),
					  by_name ? NULL : m->addrs + start, m->syms + start,
					  m->cookies + start, cnt);
		return fd < 0 ? fd : ma__keep_fd(att, fd);
	}
	if (by_name)
		mo.syms = m->syms + start;
	else
		mo.addrs = m->addrs + start;
	link = bpf_program__attach_kprobe_multi_opts(prog, NULL, &mo);
	return link ? ma__keep_link(att, link) : -errno;
}

int ma__attach_multi(struct mass_attacher *att)
{
	size_t n = att->kprobe_cnt, start = 0, batch = MULTI_BATCH_INIT;
	struct multi_set m = {
		.addrs = calloc(n ?: 1, sizeof(*m.addrs)),
		.syms = calloc(n ?: 1, sizeof(*m.syms)),
		.cookies = calloc(n ?: 1, sizeof(*m.cookies)),
	};
	int err = -ENOMEM, pass, passes = att->use_session ? 1 : 2;
	size_t i;

	if (!m.addrs || !m.syms || !m.cookies)
		goto out;
	for (i = 0; i < n; i++) {
		__u32 id = att->kprobe_ids[i];

		m.addrs[i] = att->funcs[id].addr;
		m.syms[i] = att->funcs[id].name;
		m.cookies[i] = id;
	}
	while (start < n) {
		size_t cnt = n - start < batch ? n - start : batch;
		bool by_name = false;

		if (ma__stopped(att)) {
			err = -EINTR;
			goto out;
		}
		/* pair: exit probes first, so no session can see an entry without its exit */
		for (pass = 0; pass < passes; pass++) {
			err = link_batch(att, &m, pass, start, cnt, by_name);
			if (err == -ENOMEM && cnt > 1 && pass == 0) {
				/* kernels 6.7-6.11 run out of objpool slots on big batches */
				batch = cnt = (cnt + 1) / 2;
				pass = -1;
				continue;
			}
			if (err && !by_name && pass == 0) {
				by_name = true;	/* the kernel can be stricter about addresses */
				pass = -1;
				continue;
			}
			if (err) {
				pr(att, LOG_ERROR, "Failed to multi-attach %s prog to %zu functions: %d\n",
				   att->use_session ? "KPROBE.SESSION" : multi_prog_names[pass], cnt,
				   err);
				goto out;
			}
		}
		if (cnt < n)
			pr(att, LOG_INFO, "Batch of %zu (total %zu) kernel functions attached successfully!\n",
			   cnt, start + cnt);
		start += cnt;
		ma__attach_progress(att, start);
	}
	err = 0;
out:
	free(m.addrs);
	free(m.syms);
	free(m.cookies);
	return err;
}
