// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the samples lost: BPF's per-CPU counters, the session store's, the kernel's
 * skipped probe hits, sessions still running at the end; told to the sink while running
 * (rate-limited) and in full at the end (tracer__drops()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "mono_clock.h"
#include "session.h"
#include "tracer_int.h"

/* Drop warnings while running come at most this often; the counters are read this often. */
#define DROP_REPORT_MS 2000
#define DROP_CHECK_MS 100


/*
 * Sessions BPF still holds: threads inside an entry function when recording stopped.
 * Counted per CPU by BPF (a session may start on one CPU and end on another).
 */
static __u64 running_sessions(struct tracer *t)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	struct sess_counts *c;
	__u32 zero = 0;
	__s64 n = 0;

	if (ncpu <= 0 || !(c = calloc(ncpu, sizeof(*c))))
		return 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.sess_seq), &zero, c))
		for (i = 0; i < ncpu; i++)
			n += c[i].live;
	free(c);
	return n > 0 ? n : 0;
}

/* Probe hits the kernel skipped because a BPF program already ran on that CPU. */
static __u64 prog_misses(const struct bpf_program *prog)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd = bpf_program__fd(prog);

	memset(&info, 0, sizeof(info));
	if (fd < 0 || bpf_prog_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.recursion_misses;
}

void tracer__drops(struct tracer *t, struct drop_report *d)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	struct drop_stats *st;
	__u32 zero = 0;

	memset(d, 0, sizeof(*d));
	if (t->store) {
		d->trace_lost = session_store__stats(t->store)->trace_lost;
		d->args_lost = session_store__stats(t->store)->args_lost;
		d->orphan_records = session_store__stats(t->store)->orphans;
	}
	if (t->stopped)
		d->running_sessions = running_sessions(t);
	d->session_slots = t->session_slots;
	d->slots_in_table = t->slots_in_table;
	if (ncpu <= 0 || !(st = calloc(ncpu, sizeof(*st))))
		return;
	if (!bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.stats), &zero, st)) {
		for (i = 0; i < ncpu; i++) {
			d->dropped_sessions += st[i].dropped_sessions;
			d->incomplete_sessions += st[i].incomplete_sessions;
			d->skipped_calls += st[i].skipped_calls;
			d->unfollowed_forks += st[i].unfollowed_forks;
			d->lost_ends += st[i].lost_ends;
			d->no_slot += st[i].no_slot;
		}
	}
	free(st);
	/* -F's clones are programs of their own; the multi-link's vmlinux one is the object's */
	if (t->stopped)
		d->kernel_missed = prog_misses(t->skel->progs.kentry) +
				   prog_misses(t->skel->progs.kexit) +
				   prog_misses(t->skel->progs.ksession) +
				   prog_misses(t->skel->progs.fsession_multi);
	if (t->stopped && t->exit_prog)
		d->exits_missed = prog_misses(t->exit_prog);
	if (t->stopped && t->fork_link)
		d->forks_missed = prog_misses(t->skel->progs.tgid_set_fork);
}

/*
 * Tell the sink when samples were lost since it last heard: at once the first time, then
 * at most every DROP_REPORT_MS. The counters are read at most every DROP_CHECK_MS.
 */
void tracer_drops__check(struct tracer *t)
{
	struct drop_report d;
	long now = now_ms();

	if (now - t->last_drop_check < DROP_CHECK_MS)
		return;
	t->last_drop_check = now;
	if (t->last_drop_report && now - t->last_drop_report < DROP_REPORT_MS)
		return;
	tracer__drops(t, &d);
	if (d.dropped_sessions == t->reported.dropped_sessions &&
	    d.incomplete_sessions == t->reported.incomplete_sessions)
		return;
	t->reported = d;
	t->last_drop_report = now;
	sink__drops(t->o.sink, &d);
}
