// SPDX-License-Identifier: BSD-2-Clause
/* A program verified on a helper thread during its object's load; see prog_offload.h. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "opts.h"
#include "prog_offload.h"
#include "quiet_thread.h"

#define LOG_SZ (64 * 1024)

struct prog_offload {
	struct prog_offload_opts opts;
	struct bpf_program *prog;
	enum bpf_prog_type type;
	char name[64];
	struct bpf_prog_load_opts lo;	/* the attributes libbpf had, pointing at our copies */
	struct bpf_insn *insns;
	size_t insn_cnt;
	void *func_info, *line_info;
	pthread_t thread;
	bool joined;
	int fd;				/* the thread's load: fd, or negative errno */
	char *log;
};

/* What libbpf loads in the program's place: 'return 0' */
static const struct bpf_insn stub[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

static void *load_thread(void *arg)
{
	struct prog_offload *po = arg;

	po->fd = bpf_prog_load(po->type, po->name, po->opts.license ?: "GPL", po->insns,
			       po->insn_cnt, &po->lo);
	if (po->fd < 0)
		po->fd = -errno;
	return NULL;
}

static void *dup_bytes(const void *p, size_t n)
{
	void *c = n ? malloc(n) : NULL;

	if (c)
		memcpy(c, p, n);
	return c;
}

void prog_offload__free(struct prog_offload *po)
{
	if (!po)
		return;
	if (!po->joined)
		pthread_join(po->thread, NULL);
	if (po->fd >= 0)
		close(po->fd);
	free(po->insns);
	free(po->func_info);
	free(po->line_info);
	free(po->log);
	free(po);
}

struct prog_offload *prog_offload__start(struct bpf_program *prog, struct bpf_prog_load_opts *o,
					 const struct prog_offload_opts *opts)
{
	struct prog_offload *po;
	int err;

	/* a descriptor array or a log is libbpf's to keep: such a load stays libbpf's */
	if (!o || o->fd_array || o->log_buf || o->log_level) {
		errno = EINVAL;
		return NULL;
	}
	po = calloc(1, sizeof(*po));
	if (!po)
		return errno = ENOMEM, NULL;
	/* libbpf's attributes, checked as any caller's opts: nothing set past what we know */
	if (OPTS_COPY(&po->opts, opts) || OPTS_COPY(&po->lo, o)) {
		free(po);
		errno = EINVAL;
		return NULL;
	}
	po->prog = prog;
	po->type = bpf_program__type(prog);
	po->joined = true;
	po->fd = -1;
	strncpy(po->name, bpf_program__name(prog), sizeof(po->name) - 1);
	po->insn_cnt = bpf_program__insn_cnt(prog);
	po->insns = dup_bytes(bpf_program__insns(prog), po->insn_cnt * sizeof(struct bpf_insn));
	po->func_info = dup_bytes(o->func_info, (size_t)o->func_info_cnt * o->func_info_rec_size);
	po->line_info = dup_bytes(o->line_info, (size_t)o->line_info_cnt * o->line_info_rec_size);
	if (!po->insns || (o->func_info_cnt && !po->func_info) ||
	    (o->line_info_cnt && !po->line_info)) {
		prog_offload__free(po);
		errno = ENOMEM;
		return NULL;
	}
	po->lo.func_info = po->func_info;
	po->lo.line_info = po->line_info;
	/*
	 * libbpf 1.4 sets the expected attach type after the hook ("allow
	 * prog_prepare_load_fn to change expected_attach_type"): @o has none yet, and a
	 * kprobe.multi link refuses a program loaded without its type (EINVAL)
	 */
	po->lo.expected_attach_type = bpf_program__expected_attach_type(prog);
	/* libbpf copies the stub: nothing of the real program is changed until it loads */
	if (bpf_program__set_insns(prog, (struct bpf_insn *)stub, 2)) {
		err = errno;
		prog_offload__free(po);
		errno = err;
		return NULL;
	}
	err = quiet_thread__start(&po->thread, load_thread, po);
	if (err) {
		/* libbpf must load the real one after all */
		bpf_program__set_insns(prog, po->insns, po->insn_cnt);
		prog_offload__free(po);
		errno = err;
		return NULL;
	}
	po->joined = false;
	/* the stub has one function and no lines: none of the program's records fit it */
	o->func_info = NULL;
	o->func_info_cnt = 0;
	o->line_info = NULL;
	o->line_info_cnt = 0;
	return po;
}

int prog_offload__finish(struct prog_offload *po)
{
	int stub_fd = bpf_program__fd(po->prog);

	if (!po->joined) {
		pthread_join(po->thread, NULL);
		po->joined = true;
	}
	if (po->fd < 0)
		return po->fd;
	if (stub_fd < 0)
		return -EBADF;
	/* the stub's descriptor now names the program (and keeps close-on-exec) */
	if (dup3(po->fd, stub_fd, O_CLOEXEC) < 0)
		return -errno;
	close(po->fd);
	po->fd = -1;
	return 0;
}

const char *prog_offload__log(struct prog_offload *po)
{
	struct bpf_prog_load_opts lo = po->lo;
	int fd;

	if (po->log)
		return po->log;
	po->log = calloc(1, LOG_SZ);
	if (!po->log || po->fd >= 0)
		return po->log ?: "";
	lo.log_buf = po->log;
	lo.log_size = LOG_SZ;
	lo.log_level = 1;
	fd = bpf_prog_load(po->type, po->name, po->opts.license ?: "GPL", po->insns,
			   po->insn_cnt, &lo);
	if (fd >= 0)
		close(fd);
	return po->log;
}

const struct bpf_program *prog_offload__prog(const struct prog_offload *po)
{
	return po->prog;
}
