// SPDX-License-Identifier: BSD-2-Clause
/*
 * floor -M|-N|-S|-K|-F|-X|-Y FUNCS [THREADS]: attach an empty entry+exit program pair (floor.bpf.c) to
 * every function listed in FUNCS, in the way retsnoop would (-M kprobe.multi, -N kprobe.multi
 * by names, the kernel resolving them in its own pass over kallsyms, -S one empty
 * kprobe.multi session program (6.10+) whose entry run keeps the return run, -K single
 * kprobes, -F fentry/fexit with kprobe.multi for the functions marked "kprobe", -X the same
 * with one empty fsession program (7.0+) per function in the fentry/fexit pair's place, -Y
 * one empty fsession program for them all with one tracing multi-link, 7.x), say how
 * long loading and attaching took, wait for SIGINT/SIGTERM, detach and say how long that
 * took. THREADS (default 1): links released by that many threads at once, to measure what
 * the kernel lets overlap.
 *
 * It is the floor of the per-call benchmark (what a traced call costs with programs that do
 * nothing) and the kernel's own part of retsnoop's attach and detach times for the same set.
 *
 * FUNCS has one function per line: NAME ADDR BTF_ID [kprobe], as bench/guest.sh extracts
 * them from `retsnoop --dry-run -vv` (kprobe: retsnoop traces it with a kprobe pair in -F).
 *
 * Output (stdout, one line each):
 *   floor: mode=M funcs=N fentry=N kprobe=N load_ms=X attach_ms=Y total_ms=Z
 *   floor: ready
 *   floor: detach_ms=D threads=T
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "floor.skel.h"
#include "kprobe_pmu.h"
#include "kprobe_session.h"
#include "tracing_multi.h"

struct fn {
	char *name;
	unsigned long addr;
	int btf_id;
	bool kprobe;		/* -F: retsnoop falls back to kprobes for it */
};

struct floor {
	struct floor_bpf *skel;
	struct fn *fns;
	size_t fn_cnt;
	struct bpf_link **links;	/* libbpf links */
	size_t link_cnt;
	int *fds;			/* clone programs and their links, closed in reverse */
	size_t fd_cnt;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int read_funcs(struct floor *fl, const char *path)
{
	char line[512], name[256], kind[16];
	size_t cap = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long addr;
		struct fn *fn;
		int btf_id;

		kind[0] = '\0';
		if (sscanf(line, "%255s %lx %d %15s", name, &addr, &btf_id, kind) < 3)
			continue;
		if (fl->fn_cnt == cap) {
			void *tmp = realloc(fl->fns, (cap = cap ? cap * 2 : 256) * sizeof(*fl->fns));

			if (!tmp) {
				fclose(f);
				return -ENOMEM;
			}
			fl->fns = tmp;
		}
		fn = &fl->fns[fl->fn_cnt++];
		fn->addr = addr;
		fn->btf_id = btf_id;
		fn->name = strdup(name);
		fn->kprobe = strcmp(kind, "kprobe") == 0;
		if (!fn->name) {
			fclose(f);
			return -ENOMEM;
		}
	}
	fclose(f);
	return fl->fn_cnt ? 0 : -ENOENT;
}

static int keep_link(struct floor *fl, struct bpf_link *link)
{
	if (!link)
		return -errno;
	fl->links[fl->link_cnt++] = link;
	return 0;
}

/*
 * Both ends of every function, by address (names can repeat among static functions), or
 * by name (-N: what attaching without reading kallsyms first would cost the kernel).
 */
static int attach_multi(struct floor *fl, bool only_kprobe_marked, bool by_name)
{
	unsigned long *addrs = calloc(fl->fn_cnt, sizeof(*addrs));
	const char **syms = calloc(fl->fn_cnt, sizeof(*syms));
	size_t i, n = 0;
	int err;

	if (!addrs || !syms) {
		free(addrs);
		free(syms);
		return -ENOMEM;
	}
	for (i = 0; i < fl->fn_cnt; i++) {
		if (only_kprobe_marked && !fl->fns[i].kprobe)
			continue;
		/* the kernel rejects a name given twice: one link per unique name */
		if (by_name && n && strcmp(syms[n - 1], fl->fns[i].name) == 0)
			continue;
		syms[n] = fl->fns[i].name;
		addrs[n++] = fl->fns[i].addr;
	}
	err = 0;
	if (n) {
		LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .addrs = by_name ? NULL : addrs,
			    .syms = by_name ? syms : NULL, .cnt = n, .retprobe = true);

		err = keep_link(fl, bpf_program__attach_kprobe_multi_opts(fl->skel->progs.floor_mexit,
									 NULL, &o));
		o.retprobe = false;
		if (!err)
			err = keep_link(fl, bpf_program__attach_kprobe_multi_opts(
						    fl->skel->progs.floor_mentry, NULL, &o));
	}
	free(addrs);
	free(syms);
	return err;
}

/* -S: one session link over every function (libbpf 1.4 can't make it: kprobe_session.h) */
static int attach_session(struct floor *fl)
{
	unsigned long *addrs = calloc(fl->fn_cnt, sizeof(*addrs));
	size_t i;
	int fd;

	if (!addrs)
		return -ENOMEM;
	for (i = 0; i < fl->fn_cnt; i++)
		addrs[i] = fl->fns[i].addr;
	fd = kprobe_session__link(bpf_program__fd(fl->skel->progs.floor_session), addrs, NULL,
				  NULL, fl->fn_cnt);
	free(addrs);
	if (fd < 0)
		return fd;
	fl->fds[fl->fd_cnt++] = fd;
	return 0;
}

static int attach_kprobe(struct floor *fl, struct bpf_program *prog, unsigned long addr,
			 __u64 config)
{
	struct bpf_link *link;
	int type, ret_bit, pfd, err;

	err = kprobe_pmu__read(&type, &ret_bit);
	if (err)
		return err;
	pfd = probe_pmu__open(type, ret_bit, config != 0, 0, addr, -1);
	if (pfd < 0)
		return pfd;
	link = bpf_program__attach_perf_event(prog, pfd);
	if (!link) {
		err = -errno;
		close(pfd);
		return err;
	}
	return keep_link(fl, link);
}

static int attach_single(struct floor *fl)
{
	size_t i;
	int err;

	for (i = 0; i < fl->fn_cnt; i++) {
		err = attach_kprobe(fl, fl->skel->progs.floor_kexit, fl->fns[i].addr, 1);
		if (!err)
			err = attach_kprobe(fl, fl->skel->progs.floor_kentry, fl->fns[i].addr, 0);
		if (err) {
			fprintf(stderr, "floor: kprobe pair on '%s' failed: %s\n", fl->fns[i].name,
				strerror(-err));
			return err;
		}
	}
	return 0;
}

/* A clone of @tmpl for one function: load it for that function's BTF id and link it. */
static int attach_clone(struct floor *fl, struct bpf_program *tmpl, const struct fn *fn,
			enum bpf_attach_type type)
{
	LIBBPF_OPTS(bpf_prog_load_opts, lo, .expected_attach_type = type,
		    .attach_btf_id = fn->btf_id);
	int prog_fd, link_fd;

	prog_fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, bpf_program__name(tmpl), "Dual BSD/GPL",
				bpf_program__insns(tmpl), bpf_program__insn_cnt(tmpl), &lo);
	if (prog_fd < 0)
		return -errno;
	fl->fds[fl->fd_cnt++] = prog_fd;
	link_fd = bpf_link_create(prog_fd, 0, type, NULL);
	if (link_fd < 0)
		return -errno;
	fl->fds[fl->fd_cnt++] = link_fd;
	return 0;
}

/* BPF_TRACE_FSESSION (Linux 7.0+): one program run at entry and at return, one link */
#define FSESSION_ATTACH_TYPE 58

static bool fentry_fn(const struct fn *fn)
{
	return !fn->kprobe && fn->btf_id > 0;
}

/*
 * BPF_TRACE_FSESSION_MULTI (7.x, tracing_multi.h): one tracing program, verified once,
 * linked to a whole set of functions by their BTF ids with one tracing multi-link
 * (vmlinux functions only).
 */
static int attach_tracing_multi(struct floor *fl)
{
	const struct bpf_program *t = fl->skel->progs.floor_fentry;
	LIBBPF_OPTS(bpf_prog_load_opts, lo,
		    .expected_attach_type = (enum bpf_attach_type)FSESSION_MULTI_ATTACH_TYPE);
	__u32 *ids = calloc(fl->fn_cnt ?: 1, sizeof(*ids));
	__u32 n = 0;
	size_t i;
	int fd;

	if (!ids)
		return -ENOMEM;
	for (i = 0; i < fl->fn_cnt; i++)
		if (fentry_fn(&fl->fns[i]))
			ids[n++] = fl->fns[i].btf_id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "floor_multi", "Dual BSD/GPL",
			   bpf_program__insns(t), bpf_program__insn_cnt(t), &lo);
	if (fd < 0) {
		free(ids);
		return -errno;
	}
	fl->fds[fl->fd_cnt++] = fd;
	fd = tracing_multi__link(fd, FSESSION_MULTI_ATTACH_TYPE, ids, NULL, n);
	free(ids);
	if (fd < 0)
		return fd;
	fl->fds[fl->fd_cnt++] = fd;
	return 0;
}

static int attach_fentry(struct floor *fl, const struct fn *tmpl_fn, bool fsession, bool multi)
{
	struct floor_bpf *s = fl->skel;
	size_t i;
	int err;

	for (i = 0; i < fl->fn_cnt && !multi; i++) {
		const struct fn *fn = &fl->fns[i];

		if (!fentry_fn(fn))
			continue;
		if (fsession && fn == tmpl_fn) {
			err = keep_link(fl, bpf_program__attach_trace(s->progs.floor_fentry));
		} else if (fsession) {
			err = attach_clone(fl, s->progs.floor_fentry, fn,
					   (enum bpf_attach_type)FSESSION_ATTACH_TYPE);
		} else if (fn == tmpl_fn) {
			err = keep_link(fl, bpf_program__attach_trace(s->progs.floor_fentry));
			if (!err)
				err = keep_link(fl, bpf_program__attach_trace(s->progs.floor_fexit));
		} else {
			err = attach_clone(fl, s->progs.floor_fentry, fn, BPF_TRACE_FENTRY);
			if (!err)
				err = attach_clone(fl, s->progs.floor_fexit, fn, BPF_TRACE_FEXIT);
		}
		if (err) {
			fprintf(stderr, "floor: fentry/fexit on '%s' failed: %s\n", fn->name,
				strerror(-err));
			return err;
		}
	}
	if (multi && (err = attach_tracing_multi(fl))) {
		fprintf(stderr, "floor: the tracing multi-link failed: %s\n", strerror(-err));
		return err;
	}
	/* the kprobe-marked ones as retsnoop does: kprobe.multi, else (6.1) single kprobes */
	err = attach_multi(fl, true, false);
	if (err != -EOPNOTSUPP)
		return err;
	for (i = 0; i < fl->fn_cnt; i++) {
		if (!fl->fns[i].kprobe)
			continue;
		err = attach_kprobe(fl, s->progs.floor_kexit, fl->fns[i].addr, 1);
		if (!err)
			err = attach_kprobe(fl, s->progs.floor_kentry, fl->fns[i].addr, 0);
		if (err)
			return err;
	}
	return 0;
}

static void detach(struct floor *fl)
{
	size_t i;

	for (i = 0; i < fl->link_cnt; i++)
		bpf_link__destroy(fl->links[i]);
	fl->link_cnt = 0;
	/* each clone's link before its program */
	while (fl->fd_cnt)
		close(fl->fds[--fl->fd_cnt]);
}

/* Parallel detach: every thread takes the next link or fd until none is left. */
struct detach_job {
	struct floor *fl;
	size_t next;	/* atomic */
};

static void *detacher(void *arg)
{
	struct detach_job *job = arg;
	struct floor *fl = job->fl;
	size_t i;

	while ((i = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED)) <
	       fl->link_cnt + fl->fd_cnt) {
		if (i < fl->link_cnt)
			bpf_link__destroy(fl->links[i]);
		else
			close(fl->fds[fl->fd_cnt - 1 - (i - fl->link_cnt)]);
	}
	return NULL;
}

static void detach_threads(struct floor *fl, int n)
{
	struct detach_job job = { .fl = fl };
	pthread_t tids[256];
	int i, started = 0;

	if (n <= 1) {
		detach(fl);
		return;
	}
	for (i = 0; i < n && i < 256; i++)
		if (pthread_create(&tids[started], NULL, detacher, &job) == 0)
			started++;
	detacher(&job);
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	fl->link_cnt = 0;
	fl->fd_cnt = 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: floor -M|-N|-S|-K|-F|-X|-Y FUNCS [THREADS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct rlimit rl = { 1 << 16, 1 << 16 };
	struct floor fl = {};
	const struct fn *tmpl_fn = NULL;
	size_t i, fentry_cnt = 0;
	double t0, t1, t2;
	sigset_t sigs;
	int err, sig, threads = 1;
	char mode;

	if ((argc != 3 && argc != 4) || argv[1][0] != '-' || !strchr("MNSKFXY", argv[1][1]) ||
	    argv[1][2])
		usage();
	if (argc == 4 && (threads = atoi(argv[3])) < 1)
		usage();
	mode = argv[1][1];
	err = read_funcs(&fl, argv[2]);
	if (err) {
		fprintf(stderr, "floor: %s: %s\n", argv[2], strerror(-err));
		return 1;
	}
	/* 2 programs and 2 links per fentry function */
	setrlimit(RLIMIT_NOFILE, &rl);
	for (i = 0; i < fl.fn_cnt; i++) {
		if (strchr("FXY", mode) && fentry_fn(&fl.fns[i])) {
			fentry_cnt++;
			if (!tmpl_fn)
				tmpl_fn = &fl.fns[i];
		}
	}
	fl.links = calloc(2 * fl.fn_cnt + 2, sizeof(*fl.links));
	fl.fds = calloc(4 * fl.fn_cnt, sizeof(*fl.fds));
	if (!fl.links || !fl.fds)
		return 1;
	/* the signals that end the wait, blocked before anything is attached */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);

	t0 = now_ms();
	fl.skel = floor_bpf__open();
	if (!fl.skel) {
		fprintf(stderr, "floor: opening the BPF object failed: %s\n", strerror(errno));
		return 1;
	}
	/* -F: single kprobes where kprobe.multi is missing */
	bpf_program__set_autoload(fl.skel->progs.floor_kentry, strchr("KFXY", mode));
	bpf_program__set_autoload(fl.skel->progs.floor_kexit, strchr("KFXY", mode));
	bpf_program__set_autoload(fl.skel->progs.floor_mentry, strchr("MNFXY", mode));
	bpf_program__set_autoload(fl.skel->progs.floor_mexit, strchr("MNFXY", mode));
	bpf_program__set_autoload(fl.skel->progs.floor_session, mode == 'S');
	bpf_program__set_expected_attach_type(fl.skel->progs.floor_session,
			(enum bpf_attach_type)KPROBE_SESSION_ATTACH_TYPE);
	/* -Y loads its own program from the template's instructions */
	bpf_program__set_autoload(fl.skel->progs.floor_fentry, tmpl_fn && mode != 'Y');
	bpf_program__set_autoload(fl.skel->progs.floor_fexit, tmpl_fn && mode == 'F');
	if (mode == 'X')
		bpf_program__set_expected_attach_type(fl.skel->progs.floor_fentry,
				(enum bpf_attach_type)FSESSION_ATTACH_TYPE);
	if (tmpl_fn) {
		bpf_program__set_attach_target(fl.skel->progs.floor_fentry, 0, tmpl_fn->name);
		bpf_program__set_attach_target(fl.skel->progs.floor_fexit, 0, tmpl_fn->name);
	}
	err = floor_bpf__load(fl.skel);
	if (err) {
		fprintf(stderr, "floor: loading the BPF object failed: %s\n", strerror(-err));
		return 1;
	}
	t1 = now_ms();
	if (mode == 'M' || mode == 'N')
		err = attach_multi(&fl, false, mode == 'N');
	else if (mode == 'S')
		err = attach_session(&fl);
	else if (mode == 'K')
		err = attach_single(&fl);
	else
		err = attach_fentry(&fl, tmpl_fn, mode == 'X', mode == 'Y');
	if (err) {
		fprintf(stderr, "floor: attaching failed: %s\n", strerror(-err));
		detach(&fl);
		return 1;
	}
	t2 = now_ms();
	printf("floor: mode=%c funcs=%zu fentry=%zu kprobe=%zu load_ms=%.1f attach_ms=%.1f total_ms=%.1f\n",
	       mode, fl.fn_cnt, fentry_cnt, fl.fn_cnt - fentry_cnt, t1 - t0, t2 - t1, t2 - t0);
	printf("floor: ready\n");
	fflush(stdout);

	sigwait(&sigs, &sig);
	t0 = now_ms();
	detach_threads(&fl, threads);
	printf("floor: detach_ms=%.1f threads=%d\n", now_ms() - t0, threads);
	floor_bpf__destroy(fl.skel);
	return 0;
}
