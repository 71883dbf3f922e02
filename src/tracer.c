// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "capture.h"
#include "errnos.h"
#include "lbr.h"
#include "result_fmt.h"
#include "retsnoop.skel.h"
#include "session.h"
#include "tracer.h"

#define POLL_TIMEOUT_MS 100

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	exiting = 1;
	/* a second Ctrl-C kills right away */
	signal(sig, SIG_DFL);
}

struct run {
	const struct tracer_opts *opts;
	struct render_opts ropts;
	struct session_store *store;
	struct capture *cap;
	struct func_desc *funcs;
	size_t func_cnt;
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* REALTIME - MONOTONIC, from the tightest of a few bracketed readings. */
static __s64 clock_offset_ns(void)
{
	struct timespec a, m, b;
	__s64 best_gap = -1, off = 0, gap;
	int i;

	for (i = 0; i < 10; i++) {
		clock_gettime(CLOCK_REALTIME, &a);
		clock_gettime(CLOCK_MONOTONIC, &m);
		clock_gettime(CLOCK_REALTIME, &b);
		gap = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
		if (best_gap < 0 || gap < best_gap) {
			best_gap = gap;
			off = (a.tv_sec * 1000000000LL + a.tv_nsec + gap / 2) -
			      (m.tv_sec * 1000000000LL + m.tv_nsec);
		}
	}
	return off;
}

bool tracer__errors_pass(const struct sample *s, const struct func_desc *funcs, size_t func_cnt,
			 const bool *err_allowed, const bool *err_denied)
{
	const struct call_stack *cs = &s->end->stack;
	bool allowed = !err_allowed;
	__u32 i;

	if (!err_allowed && !err_denied)
		return true;
	for (i = 0; i < cs->max_depth && i < MAX_FSTACK_DEPTH; i++) {
		__u32 flags = cs->func_ids[i] < func_cnt ? funcs[cs->func_ids[i]].flags : 0;
		__s64 res = cs->func_res[i];
		int err;

		/* only frames that actually failed say anything about the error */
		if ((__u32)i < cs->depth || !result__is_err(res, flags))
			continue;
		res = result__normalize(res, flags);
		err = res == 0 ? 0 : (int)-res;
		if (err > ERRNO_NAME_MAX)
			continue;
		if (err_denied && err_denied[err])
			return false;
		if (err_allowed && err_allowed[err])
			allowed = true;
	}
	return allowed;
}

static int on_sample(void *ctx, const struct sample *s)
{
	struct run *run = ctx;
	const struct tracer_opts *o = run->opts;

	if (s->end->is_err &&
	    !tracer__errors_pass(s, run->funcs, run->func_cnt, o->err_allowed, o->err_denied))
		return 0;
	render_text__sample(stdout, s, &run->ropts);
	fflush(stdout);
	return 0;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct run *run = ctx;
	int err;

	if (run->cap)
		capture__record(run->cap, data, size);
	err = session_store__add(run->store, data, size);
	return err == -EINVAL ? 0 : err;
}

static int fill_maps(struct retsnoop *skel, const struct tracer_opts *o,
		     const struct tracer_func *funcs, size_t cnt)
{
	int fd = bpf_map__fd(skel->maps.func_infos);
	bool allow = true, deny = false;
	size_t i;

	for (i = 0; i < cnt; i++) {
		struct func_info fi = { .flags = funcs[i].flags, .arg_cnt = funcs[i].f.arg_cnt };
		__u32 id = i;

		if (bpf_map_update_elem(fd, &id, &fi, BPF_ANY))
			return -errno;
	}
	/* deny entries go last so they win where both name the same process */
	fd = bpf_map__fd(skel->maps.tgids_filter);
	for (i = 0; i < o->allow_pid_cnt; i++)
		if (bpf_map_update_elem(fd, &o->allow_pids[i], &allow, BPF_ANY))
			return -errno;
	for (i = 0; i < o->deny_pid_cnt; i++)
		if (bpf_map_update_elem(fd, &o->deny_pids[i], &deny, BPF_ANY))
			return -errno;
	fd = bpf_map__fd(skel->maps.comms_filter);
	for (i = 0; i < o->allow_comm_cnt + o->deny_comm_cnt; i++) {
		bool is_allow = i < o->allow_comm_cnt;
		const char *name = is_allow ? o->allow_comms[i] : o->deny_comms[i - o->allow_comm_cnt];
		char comm[TASK_COMM_LEN] = {};

		strncpy(comm, name, TASK_COMM_LEN - 1);
		if (bpf_map_update_elem(fd, comm, is_allow ? &allow : &deny, BPF_ANY))
			return -errno;
	}
	return 0;
}

static size_t at_least_one(size_t n)
{
	return n ? n : 1;
}

static void report_drops(struct retsnoop *skel)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	struct drop_stats *st;
	__u64 dropped = 0, incomplete = 0;
	__u32 zero = 0;

	if (ncpu <= 0 || !(st = calloc(ncpu, sizeof(*st))))
		return;
	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.stats), &zero, st)) {
		for (i = 0; i < ncpu; i++) {
			dropped += st[i].dropped_sessions;
			incomplete += st[i].incomplete_sessions;
		}
	}
	free(st);
	if (!dropped && !incomplete)
		return;
	fprintf(stderr, "WARNING! There were dropped or incomplete data. "
		"Output might be incomplete!\n");
	fprintf(stderr, "%-20s%llu\n", "DROPPED SAMPLES:", (unsigned long long)dropped);
	fprintf(stderr, "%-20s%llu\n", "INCOMPLETE SAMPLES:", (unsigned long long)incomplete);
}

static void print_attached(const struct tracer_opts *o, struct mass_attacher *att,
			   const struct tracer_func *funcs, size_t cnt)
{
	size_t i;

	if (o->verbose < 1)
		return;
	for (i = 0; i < cnt; i++) {
		const struct mass_attacher_func *f = &funcs[i].f;

		if (o->verbose >= 2)
			printf("Attached to function #%zu '%s%s%s%s' (addr 0x%llx, btf id %d, "
			       "flags 0x%x).\n", i + 1, f->name, f->module ? " [" : "",
			       f->module ?: "", f->module ? "]" : "",
			       (unsigned long long)f->addr, f->btf_id, funcs[i].flags);
		else
			printf("Attached to function #%zu '%s'.\n", i + 1, f->name);
	}
	printf("Total %zu kernel functions attached successfully (%s)!\n", cnt,
	       mass_attacher__mode_name(mass_attacher__mode(att)));
}

int tracer__run(const struct tracer_opts *o, const struct tracer_func *funcs, size_t cnt)
{
	struct run run = { .opts = o };
	struct mass_attacher_opts mopts = {
		.sz = sizeof(mopts), .mode = o->mode, .verbose = o->verbose,
		.has_kprobe_multi = o->has_kprobe_multi, .has_cookies = o->has_cookies,
		.has_func_ip = o->has_func_ip, .kret_ip_off = o->kret_ip_off,
	};
	struct session_store_opts sopts = { .sz = sizeof(sopts), .on_sample = on_sample, .ctx = &run };
	struct mass_attacher *att = NULL;
	struct ring_buffer *rb = NULL;
	struct lbr *lbr = NULL;
	struct retsnoop *skel = NULL;
	long t0 = now_ms(), ms;
	size_t i;
	int err;

	run.funcs = calloc(at_least_one(cnt), sizeof(*run.funcs));
	if (!run.funcs)
		return -ENOMEM;
	for (i = 0; i < cnt; i++)
		run.funcs[i] = (struct func_desc){ funcs[i].f.name, funcs[i].flags, funcs[i].f.addr };
	run.func_cnt = cnt;

	if (o->lbr) {
		if (!o->has_branch_snapshot) {
			fprintf(stderr, "--lbr: LBR capture needs bpf_get_branch_snapshot() (Linux 5.16+), "
				"which this kernel lacks; run without --lbr.\n");
			err = -EOPNOTSUPP;
			goto out;
		}
		lbr = lbr__open(o->lbr_flags);
		if (!lbr) {
			err = -errno;
			fprintf(stderr, "--lbr: this CPU or VM has no usable LBR (branch-sampling "
				"perf event: %s); run without --lbr.\n", strerror(-err));
			goto out;
		}
	}

	skel = retsnoop__open();
	if (!skel) {
		err = -errno;
		fprintf(stderr, "Failed to open BPF object: %d\n", err);
		goto out;
	}
	struct mass_attacher_progs progs = {
		.kentry = skel->progs.kentry, .kexit = skel->progs.kexit,
		.fentry = skel->progs.fentry_tmpl,
		.fexit = { skel->progs.fexit_tmpl0, skel->progs.fexit_tmpl1, skel->progs.fexit_tmpl2,
			   skel->progs.fexit_tmpl3, skel->progs.fexit_tmpl4, skel->progs.fexit_tmpl5,
			   skel->progs.fexit_tmpl6 },
		.fexit_void = skel->progs.fexit_tmpl_void,
		.ip_to_id = skel->maps.ip_to_id,
	};
	att = mass_attacher__new(&progs, &mopts);
	if (!att) {
		err = -errno;
		goto out;
	}
	for (i = 0; i < cnt; i++) {
		err = mass_attacher__add_func(att, &funcs[i].f);
		if (err)
			goto out;
	}
	err = mass_attacher__prepare(att);
	if (err)
		goto out;

	skel->rodata->emit_success_stacks = o->success_stacks;
	skel->rodata->emit_func_trace = o->func_trace;
	skel->rodata->capture_lbr = o->lbr;
	skel->rodata->use_cookies = mass_attacher__uses_cookies(att);
	skel->rodata->has_func_ip = o->has_func_ip;
	skel->rodata->kret_ip_off = o->kret_ip_off;
	skel->rodata->duration_ns = o->duration_ns;
	skel->rodata->tgid_allow_cnt = o->allow_pid_cnt;
	skel->rodata->tgid_deny_cnt = o->deny_pid_cnt;
	skel->rodata->comm_allow_cnt = o->allow_comm_cnt;
	skel->rodata->comm_deny_cnt = o->deny_comm_cnt;
	bpf_map__set_max_entries(skel->maps.func_infos, at_least_one(cnt));
	bpf_map__set_max_entries(skel->maps.tgids_filter,
				 at_least_one(o->allow_pid_cnt + o->deny_pid_cnt));
	bpf_map__set_max_entries(skel->maps.comms_filter,
				 at_least_one(o->allow_comm_cnt + o->deny_comm_cnt));
	if (o->sessions_size)
		bpf_map__set_max_entries(skel->maps.sessions, o->sessions_size);
	if (o->ringbuf_size)
		bpf_map__set_max_entries(skel->maps.rb, o->ringbuf_size);
	skel->rodata->rb_size = bpf_map__max_entries(skel->maps.rb);

	err = retsnoop__load(skel);
	if (err) {
		fprintf(stderr, "Failed to load BPF programs: %d (%s)%s\n", err, strerror(-err),
			err == -EPERM ? ". Kernel tracing is blocked here (not root, missing "
			"CAP_BPF+CAP_PERFMON, or kernel lockdown)." : "");
		goto out;
	}
	err = mass_attacher__load(att);
	if (!err)
		err = fill_maps(skel, o, funcs, cnt);
	if (err) {
		fprintf(stderr, "Failed to set up BPF maps: %d\n", err);
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	err = mass_attacher__attach(att);
	if (err)
		goto out;
	print_attached(o, att, funcs, cnt);
	if (o->verbose)
		printf("Successfully attached in %ld ms.\n", now_ms() - t0);

	run.ropts = (struct render_opts){
		.sz = sizeof(run.ropts), .funcs = run.funcs, .func_cnt = cnt,
		.syms = o->syms, .ts_offset_ns = clock_offset_ns(), .stack_view = o->stack_view,
		.func_trace = o->func_trace, .lbr = o->lbr, .lbr_max_count = o->lbr_max_count,
		.full_lbr = o->full_lbr,
	};
	if (o->capture_path) {
		run.cap = capture__create(o->capture_path, &run.ropts);
		if (!run.cap) {
			err = -errno;
			fprintf(stderr, "Failed to create capture file '%s': %d\n", o->capture_path, err);
			goto out;
		}
		run.ropts.syms = capture__resolver(run.cap, &o->syms);
	}
	run.store = session_store__new(&sopts);
	rb = ring_buffer__new(bpf_map__fd(skel->maps.rb), on_record, &run, NULL);
	if (!run.store || !rb) {
		err = -errno ?: -ENOMEM;
		fprintf(stderr, "Failed to set up the ring buffer: %d\n", err);
		goto out;
	}

	skel->bss->ready = true;
	printf("Receiving data...\n");
	fflush(stdout);
	while (!exiting) {
		err = ring_buffer__poll(rb, POLL_TIMEOUT_MS);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "Failed to poll the ring buffer: %d\n", err);
			break;
		}
		err = 0;
	}
	/* stop recording first, then drain what is already in the buffer */
	skel->bss->ready = false;
	ring_buffer__consume(rb);

	/* nothing is recorded any more: report drops first, keeping "Detaching... DONE" one line */
	printf("\n");
	fflush(stdout);
	report_drops(skel);
	printf("Detaching... ");
	fflush(stdout);
	ms = mass_attacher__detach(att);
	printf("DONE in %ld ms.\n", ms);
out:
	ring_buffer__free(rb);
	session_store__free(run.store);
	if (run.cap && capture__close(run.cap))
		fprintf(stderr, "Capture file '%s' is incomplete (write error).\n", o->capture_path);
	mass_attacher__free(att);
	retsnoop__destroy(skel);
	lbr__close(lbr);
	free(run.funcs);
	return err;
}
