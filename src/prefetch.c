// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "mono_clock.h"
#include "quiet_thread.h"
#include "ftrace_funcs.h"
#include "ksyms.h"
#include "opts.h"
#include "prefetch.h"

/* One read: a thread, what it produced and its errno. */
struct read_job {
	pthread_t thread;
	bool started, joined;
	bool done;		/* the thread is about to return (atomic) */
	bool abandoned;		/* a stop came first: never joined */
	void *result;
	int err;
	long start_ms, end_ms;	/* when the thread began and ended the read */
};

struct prefetch {
	struct prefetch_opts opts;
	struct read_job ksyms, btf, ff;
	int done_fd;		/* eventfd each read bumps when it ends (with opts.stop) */
};


/* @j's read is over: say so to a take() waiting for it */
static void finish(struct prefetch *p, struct read_job *j)
{
	uint64_t one = 1;

	__atomic_store_n(&j->done, true, __ATOMIC_RELEASE);
	/* a failed write: the waiter still sees done within its poll timeout */
	if (p->done_fd < 0 || write(p->done_fd, &one, sizeof(one)) == sizeof(one))
		return;
}

static void *read_ksyms(void *arg)
{
	struct prefetch *p = arg;

	p->ksyms.start_ms = now_ms();
	p->ksyms.result = p->opts.ksyms_image ? ksyms__load_image(p->opts.ksyms_image) :
			  ksyms__load_static_funcs(p->opts.kallsyms_path);
	p->ksyms.err = p->ksyms.result ? 0 : errno;
	p->ksyms.end_ms = now_ms();
	finish(p, &p->ksyms);
	return NULL;
}

/*
 * The vmlinux BTF in two bpf() calls where it has an id, a name and the kernel_btf flag
 * (5.11+): the file gives it one page per read(), ~1,150 system calls for 4.7 MB (the raw
 * copy took 26-71 ms by id, 58-652 ms from the file, in the 6.12 guest). NULL: not found
 * that way (5.10, or no CAP_SYS_ADMIN), read the file.
 */
static struct btf *load_vmlinux_btf_by_id(void)
{
	__u32 id = 0;
	char name[16];
	int fd, err;

	while (!bpf_btf_get_next_id(id, &id)) {
		struct bpf_btf_info info;
		__u32 len = sizeof(info);

		fd = bpf_btf_get_fd_by_id(id);
		if (fd < 0)
			continue;	/* released since: the next one */
		memset(&info, 0, sizeof(info));
		memset(name, 0, sizeof(name));
		info.name = (__u64)(unsigned long)name;
		info.name_len = sizeof(name);
		err = bpf_btf_get_info_by_fd(fd, &info, &len);
		close(fd);
		if (err)
			return NULL;
		/* the kernel's own BTF comes first, modules' after it */
		if (info.kernel_btf && !strcmp(name, "vmlinux"))
			return btf__load_from_kernel_by_id(id);
	}
	return NULL;
}

static void *read_btf(void *arg)
{
	struct prefetch *p = arg;
	struct btf *btf;

	p->btf.start_ms = now_ms();
	btf = load_vmlinux_btf_by_id() ?: btf__load_vmlinux_btf();
	p->btf.err = libbpf_get_error(btf) ? errno : 0;
	p->btf.result = p->btf.err ? NULL : btf;
	p->btf.end_ms = now_ms();
	finish(p, &p->btf);
	return NULL;
}

static void *read_ftrace_funcs(void *arg)
{
	struct prefetch *p = arg;
	bool mounted = false;
	char path[PATH_MAX];
	int err = 0;

	p->ff.start_ms = now_ms();
	/* a failure is said by function discovery, which then tries once more itself */
	if (p->opts.aff_path)
		snprintf(path, sizeof(path), "%s", p->opts.aff_path);
	else
		err = ftrace_funcs__find_path(path, sizeof(path), &mounted);
	if (!err) {
		/* the boot cache's copy is an image: mapped, not parsed */
		p->ff.result = p->opts.aff_path ? ftrace_funcs__open(path) :
			       ftrace_funcs__load(path);
		err = p->ff.result ? 0 : -errno;
		if (mounted)
			ftrace_funcs__unmount();
	}
	p->ff.err = -err;
	p->ff.end_ms = now_ms();
	finish(p, &p->ff);
	return NULL;
}

static void start(struct prefetch *p, struct read_job *j, void *(*fn)(void *))
{
	j->started = quiet_thread__start(&j->thread, fn, p) == 0;
}

struct prefetch *prefetch__start(const struct prefetch_opts *opts)
{
	struct prefetch *p;

	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	if (OPTS_COPY(&p->opts, opts)) {
		free(p);
		return errno = EINVAL, NULL;
	}
	/* without it a stop is seen within the poll timeout, not at once */
	p->done_fd = p->opts.stop ? eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK) : -1;
	if (p->opts.ksyms)
		start(p, &p->ksyms, read_ksyms);
	if (p->opts.vmlinux_btf)
		start(p, &p->btf, read_btf);
	if (p->opts.ftrace_funcs)
		start(p, &p->ff, read_ftrace_funcs);
	if ((p->opts.ksyms && !p->ksyms.started) || (p->opts.vmlinux_btf && !p->btf.started) ||
	    (p->opts.ftrace_funcs && !p->ff.started)) {
		prefetch__free(p);
		return errno = EAGAIN, NULL;
	}
	return p;
}

/*
 * Until @j's thread is done, or a stop: false then, and the thread is left to run. The
 * reads wake the poll when they end, and the signal that stops interrupts it; the
 * timeout covers a signal that came between the check and the poll.
 */
static bool wait_done(struct prefetch *p, struct read_job *j)
{
	struct pollfd pfd = { .fd = p->done_fd, .events = POLLIN };
	uint64_t cnt;

	if (!p->opts.stop)
		return true;
	while (!__atomic_load_n(&j->done, __ATOMIC_ACQUIRE)) {
		if (*p->opts.stop) {
			j->abandoned = true;
			return false;
		}
		/* woken by any read's end: reset the count, then check this one's flag */
		if (poll(&pfd, 1, 100) > 0 && read(p->done_fd, &cnt, sizeof(cnt)) != sizeof(cnt))
			continue;
	}
	return true;
}

static void *take(struct prefetch *p, struct read_job *j)
{
	void *r;

	if (!j->started)
		return errno = ENOENT, NULL;
	if (j->abandoned || (!j->joined && !wait_done(p, j)))
		return errno = EINTR, NULL;
	if (!j->joined) {
		pthread_join(j->thread, NULL);
		j->joined = true;
	}
	r = j->result;
	j->result = NULL;
	if (!r)
		errno = j->err ?: ENOENT;
	return r;
}

struct ksyms *prefetch__take_ksyms(struct prefetch *p)
{
	return take(p, &p->ksyms);
}

struct btf *prefetch__take_vmlinux_btf(struct prefetch *p)
{
	return take(p, &p->btf);
}

struct ftrace_funcs *prefetch__take_ftrace_funcs(struct prefetch *p)
{
	return take(p, &p->ff);
}

int prefetch__span(const struct prefetch *p, enum prefetch_input in, long *start_ms,
		   long *end_ms)
{
	const struct read_job *j;

	switch (in) {
	case PREFETCH_KSYMS: j = &p->ksyms; break;
	case PREFETCH_VMLINUX_BTF: j = &p->btf; break;
	case PREFETCH_FTRACE_FUNCS: j = &p->ff; break;
	default: return -EINVAL;
	}
	if (!j->started || !j->joined)
		return -ENOENT;
	*start_ms = j->start_ms;
	*end_ms = j->end_ms;
	return 0;
}

void prefetch__free(struct prefetch *p)
{
	if (!p)
		return;
	ksyms__free(take(p, &p->ksyms));
	btf__free(take(p, &p->btf));
	ftrace_funcs__free(take(p, &p->ff));
	/* a thread left running still writes into @p: the exit reclaims both */
	if (p->ksyms.abandoned || p->btf.abandoned || p->ff.abandoned)
		return;
	if (p->done_fd >= 0)
		close(p->done_fd);
	free(p);
}
