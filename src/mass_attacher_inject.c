// SPDX-License-Identifier: BSD-2-Clause
/* Injected probes of the mass attacher: kprobes, kretprobes, tracepoints, raw tracepoints. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kprobe_pmu.h"
#include "mass_attacher_int.h"
#include "probe_spec.h"

struct ma_inject {
	const struct probe_spec *spec;	/* borrowed */
	__u64 cookie;
	struct bpf_link *link;		/* kprobes, tracepoints */
	int fd;				/* raw tracepoints: the link fd, else -1 */
};

struct ma_injects {
	struct ma_inject *probes;
	size_t cnt;
};

/* Trace event directories, where a distro mounts tracefs (the newer place first). */
static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

struct ma_injects *ma_injects__new(void)
{
	return calloc(1, sizeof(struct ma_injects));
}

void ma_injects__free(struct ma_injects *in)
{
	if (!in)
		return;
	ma_injects__detach(in);
	free(in->probes);
	free(in);
}

int ma_injects__add(struct ma_injects *in, const struct probe_spec *spec, __u64 cookie)
{
	struct ma_inject *tmp;

	if (!spec || (unsigned int)spec->kind >= PROBE_KIND_CNT)
		return -EINVAL;
	tmp = realloc(in->probes, (in->cnt + 1) * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	in->probes = tmp;
	in->probes[in->cnt++] = (struct ma_inject){ .spec = spec, .cookie = cookie, .fd = -1 };
	return 0;
}

size_t ma_injects__cnt(const struct ma_injects *in)
{
	return in->cnt;
}

static bool uses_kind(const struct ma_injects *in, enum probe_kind kind)
{
	size_t i;

	for (i = 0; i < in->cnt; i++)
		if (in->probes[i].spec->kind == kind)
			return true;
	return false;
}

int ma_injects__plan(const struct ma_injects *in, const struct mass_attacher_opts *o)
{
	if (!in->cnt)
		return 0;
	if (!o->has_cookies) {
		log_msg(o->print, LOG_ERROR, "Kernel doesn't support BPF cookies required for "
			"probes (Linux 5.15+).\n");
		return -EOPNOTSUPP;
	}
	if (uses_kind(in, PROBE_RAWTP) && !o->has_rawtp_cookies) {
		log_msg(o->print, LOG_ERROR, "Kernel doesn't support BPF cookies for raw "
			"tracepoints (Linux 6.10+), required for rawtp: probes.\n");
		return -EOPNOTSUPP;
	}
	return 0;
}

void ma_injects__prepare(const struct ma_injects *in, const struct mass_attacher_progs *p)
{
	int k;

	for (k = 0; k < PROBE_KIND_CNT; k++)
		if (p->inject[k])
			bpf_program__set_autoload(p->inject[k], uses_kind(in, k));
}

static int perf_event_open(struct perf_event_attr *attr)
{
	int fd = syscall(__NR_perf_event_open, attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* The trace event's id from tracefs; -ENOENT for no such event, -ENODEV without tracefs. */
static int tracepoint_id(const char *cat, const char *name)
{
	char path[512];
	bool mounted = false;
	size_t i;
	FILE *f;
	int id;

	for (i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/events", tracefs_dirs[i]);
		if (access(path, F_OK))
			continue;
		mounted = true;
		snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs_dirs[i], cat, name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%d", &id) != 1)
			id = -EINVAL;
		fclose(f);
		return id;
	}
	return mounted ? -ENOENT : -ENODEV;
}

/* A perf event for kprobe and tracepoint probes; its fd or a negative errno. */
static int open_probe_event(const struct probe_spec *s)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	int type, ret_bit, err;

	if (s->kind == PROBE_TP) {
		err = tracepoint_id(s->category, s->name);
		if (err < 0)
			return err;
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = err;
		return perf_event_open(&attr);
	}
	err = kprobe_pmu__read(&type, &ret_bit);
	if (err)
		return err;
	/* by name: the kernel refuses a name several functions share (EADDRNOTAVAIL) */
	return probe_pmu__open(type, ret_bit, s->kind == PROBE_KRETPROBE,
			       (__u64)(unsigned long)s->name,
			       s->kind == PROBE_KPROBE ? s->offset : 0, -1);
}

static int attach_one(struct ma_inject *pi, struct bpf_program *prog)
{
	const struct probe_spec *s = pi->spec;
	int pfd, err;

	if (s->kind == PROBE_RAWTP) {
		LIBBPF_OPTS(bpf_raw_tp_opts, ro, .tp_name = s->name, .cookie = pi->cookie);

		pi->fd = bpf_raw_tracepoint_open_opts(bpf_program__fd(prog), &ro);
		if (pi->fd < 0) {
			err = -errno;
			pi->fd = -1;
			return err;
		}
		return 0;
	}
	pfd = open_probe_event(s);
	if (pfd < 0)
		return pfd;
	{
		LIBBPF_OPTS(bpf_perf_event_opts, pe, .bpf_cookie = pi->cookie);

		pi->link = bpf_program__attach_perf_event_opts(prog, pfd, &pe);
	}
	if (!pi->link) {
		err = -errno;
		close(pfd);
		return err;
	}
	return 0;
}

/* Why a probe didn't attach, in the probe's own terms. */
static const char *attach_why(const struct probe_spec *s, int err, char *buf, size_t sz)
{
	bool func = s->kind == PROBE_KPROBE || s->kind == PROBE_KRETPROBE;

	switch (err) {
	case -ENOENT:
		snprintf(buf, sz, "%s", func ? "no such kernel function (or it can't be probed)" :
			 "no such tracepoint");
		break;
	case -ENODEV:
		snprintf(buf, sz, "%s", "tracefs is not mounted (/sys/kernel/tracing)");
		break;
	case -EILSEQ:
		snprintf(buf, sz, "offset 0x%lx is not an instruction boundary of %s", s->offset,
			 s->name);
		break;
	case -EADDRNOTAVAIL:
		snprintf(buf, sz, "several kernel functions are named %s", s->name);
		break;
	case -EINVAL:
		/* arm64 says EINVAL where x86 says EILSEQ (and for instructions it won't step) */
		if (s->kind == PROBE_KPROBE && s->offset) {
			snprintf(buf, sz, "offset 0x%lx is not an instruction boundary of %s, or "
				 "that instruction can't be probed", s->offset, s->name);
			break;
		}
		/* fall through */
	default:
		snprintf(buf, sz, "%s", strerror(-err));
		break;
	}
	return buf;
}

int ma_injects__attach(struct ma_injects *in, const struct mass_attacher_progs *p,
		       log_print_fn print)
{
	char why[128];
	size_t i;
	int err;

	for (i = 0; i < in->cnt; i++) {
		struct ma_inject *pi = &in->probes[i];

		if (!p->inject[pi->spec->kind]) {
			err = -EINVAL;
		} else {
			err = attach_one(pi, p->inject[pi->spec->kind]);
		}
		if (err) {
			log_msg(print, LOG_ERROR, "Failed to attach injected probe #%zu '%s': %s (%d).\n",
				i + 1, pi->spec->spec, attach_why(pi->spec, err, why, sizeof(why)),
				err);
			return err;
		}
	}
	return 0;
}

void ma_injects__detach(struct ma_injects *in)
{
	size_t i;

	for (i = 0; i < in->cnt; i++) {
		struct ma_inject *pi = &in->probes[i];

		bpf_link__destroy(pi->link);
		pi->link = NULL;
		if (pi->fd >= 0)
			close(pi->fd);
		pi->fd = -1;
	}
}
