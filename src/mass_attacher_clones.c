// SPDX-License-Identifier: BSD-2-Clause
/*
 * fentry/fexit clones of the mass attacher (and the uprobe entry clones of kernels without
 * BPF cookies, prog_clones.h): every traced function needs its own copy of the
 * entry and exit programs, each verified by the kernel. Verifying is nearly all of the cost
 * of -F per function and is independent per program, so the clones are loaded on a few
 * threads at once, and all of them before any is attached: a trampoline already sitting on
 * a function the verifier runs (with a kernel/bpf source glob, say) would slow every later
 * load.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "mass_attacher_int.h"
#include "prog_patch.h"
#include "records.h"
#include "session_prog.h"
#include "tracing_multi.h"

#define MAX_LOADERS	8

struct clone_job {
	struct ma_clone *clones;
	size_t cnt;
	size_t next;		/* the next clone to take (atomic) */
	size_t done;		/* clones loaded (atomic) */
	int failed;		/* a load failed: the others stop taking clones (atomic) */
	const volatile sig_atomic_t *stop;	/* asked to stop: the same, no failure */
};

/* A "reg = imm" instruction (32 or 64-bit move of a constant) */
static bool is_mov_imm(const struct bpf_insn *in)
{
	__u8 cls = BPF_CLASS(in->code);

	return (cls == BPF_ALU || cls == BPF_ALU64) && BPF_OP(in->code) == BPF_MOV &&
	       BPF_SRC(in->code) == BPF_K && in->off == 0;
}

static bool is_id_mark(const struct bpf_insn *in)
{
	return is_mov_imm(in) && in->imm == FENTRY_ID_MARK;
}

int ma__mark_tmpl(struct bpf_program *prog, __u32 func_id)
{
	struct bpf_insn mov;
	int idx, err;

	/* one mark, or no knowing which is the id */
	idx = prog_patch__find_one(prog, is_id_mark);
	if (idx < 0)
		return idx;
	mov = bpf_program__insns(prog)[idx];
	mov.imm = func_id;
	err = prog_patch__set(prog, idx, &mov);
	return err ?: idx;
}

bool ma__tmpl_id_at(const struct bpf_program *prog, int idx, __u32 func_id)
{
	const struct bpf_insn *insns = bpf_program__insns(prog);

	return idx >= 0 && (size_t)idx < bpf_program__insn_cnt(prog) &&
	       is_mov_imm(&insns[idx]) && insns[idx].imm == (__s32)func_id;
}

__u32 ma__subprog_starts(const struct bpf_insn *insns, size_t cnt, __u32 *starts, __u32 max)
{
	__u32 n = 1, i, j, k, at;

	starts[0] = 0;
	for (i = 0; i < cnt; i++) {
		bool ld64 = insns[i].code == (BPF_LD | BPF_IMM | BPF_DW);

		if ((insns[i].code == (BPF_JMP | BPF_CALL) && insns[i].src_reg == BPF_PSEUDO_CALL) ||
		    (ld64 && insns[i].src_reg == BPF_PSEUDO_FUNC)) {
			at = i + insns[i].imm + 1;
			for (j = 0; j < n && starts[j] < at; j++)
				;
			if (j < n && starts[j] == at)
				continue;
			if (n == max)
				return max + 1;
			for (k = n++; k > j; k--)
				starts[k] = starts[k - 1];
			starts[j] = at;
		}
		i += ld64;
	}
	return n;
}

int ma__tmpl_func_info(const struct bpf_program *tmpl, struct ma_func_info *fi)
{
	const struct bpf_insn *insns = bpf_program__insns(tmpl);
	size_t insn_cnt = bpf_program__insn_cnt(tmpl);
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), nr, *starts = NULL, k;
	struct bpf_func_info *recs = NULL;

	*fi = (struct ma_func_info){ .btf_fd = -1 };
	if (bpf_prog_get_info_by_fd(bpf_program__fd(tmpl), &info, &len))
		return -errno;
	nr = info.nr_func_info;
	/* one function, no BTF: nothing a clone could keep */
	if (nr < 2 || !info.btf_id)
		return 0;
	recs = calloc(nr, sizeof(*recs));
	starts = calloc(nr, sizeof(*starts));
	if (!recs || !starts)
		goto none;
	memset(&info, 0, sizeof(info));
	len = sizeof(info);
	info.nr_func_info = nr;
	info.func_info_rec_size = sizeof(*recs);
	info.func_info = (__u64)(unsigned long)recs;
	if (bpf_prog_get_info_by_fd(bpf_program__fd(tmpl), &info, &len) ||
	    info.nr_func_info != nr || info.func_info_rec_size != sizeof(*recs))
		goto none;
	/*
	 * The kernel's offsets are of its rewritten program; the clone's instructions are the
	 * template's as libbpf passed them. The subprograms are in the same order in both
	 * (the verifier keeps it), so each takes the type of its rank. A count that differs
	 * (a subprogram the verifier dropped as dead) leaves the clone without, as before.
	 */
	if (ma__subprog_starts(insns, insn_cnt, starts, nr) != nr)
		goto none;
	for (k = 0; k < nr; k++)
		recs[k].insn_off = starts[k];
	fi->btf_fd = bpf_btf_get_fd_by_id(info.btf_id);
	if (fi->btf_fd < 0)
		goto none;
	free(starts);
	fi->recs = recs;
	fi->cnt = nr;
	return 0;
none:
	free(recs);
	free(starts);
	*fi = (struct ma_func_info){ .btf_fd = -1 };
	return 0;
}

void ma__func_info_free(struct ma_func_info *fi)
{
	if (fi->btf_fd >= 0)
		close(fi->btf_fd);
	free(fi->recs);
	*fi = (struct ma_func_info){ .btf_fd = -1 };
}

static bool is_uprobe(const struct ma_clone *c)
{
	return c->prog_type == BPF_PROG_TYPE_KPROBE;
}

static const char *clone_kind(const struct ma_clone *c)
{
	if (is_uprobe(c))
		return c->is_exit ? "uexit" : "uentry";
	if (c->is_session)
		return "fsession";
	return c->is_exit ? "fexit" : "fentry";
}

const char *ma__tracing_kind(bool is_session, bool is_exit)
{
	return is_session ? "FSESSION" : is_exit ? "FEXIT" : "FENTRY";
}

static enum bpf_attach_type clone_attach_type(const struct ma_clone *c)
{
	if (is_uprobe(c))
		return 0;
	if (c->is_multi)
		return (enum bpf_attach_type)FSESSION_MULTI_ATTACH_TYPE;
	if (c->is_session)
		return (enum bpf_attach_type)FSESSION_ATTACH_TYPE;
	return c->is_exit ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY;
}

static int load_clone(const struct ma_clone *c, char *log, size_t log_sz)
{
	bool fi = c->fi && c->fi->cnt, up = is_uprobe(c);
	LIBBPF_OPTS(bpf_prog_load_opts, lo,
		.expected_attach_type = clone_attach_type(c),
		.attach_btf_id = up ? 0 : c->btf_id,
		.attach_btf_obj_fd = up ? 0 : c->btf_obj_fd,
		.log_buf = log, .log_size = log_sz, .log_level = log ? 1 : 0,
		.prog_btf_fd = fi ? c->fi->btf_fd : 0,
		.func_info = fi ? c->fi->recs : NULL,
		.func_info_cnt = fi ? c->fi->cnt : 0,
		.func_info_rec_size = fi ? sizeof(*c->fi->recs) : 0,
	);
	const struct bpf_insn *insns = c->insns;
	struct bpf_insn *own = NULL;
	int fd;

	if (c->id_insn >= 0) {
		/* the template's instructions with this clone's function id */
		own = malloc(c->insn_cnt * sizeof(*own));
		if (!own)
			return -ENOMEM;
		memcpy(own, c->insns, c->insn_cnt * sizeof(*own));
		own[c->id_insn].imm = c->func_id;
		insns = own;
	}
	fd = bpf_prog_load(up ? BPF_PROG_TYPE_KPROBE : BPF_PROG_TYPE_TRACING, clone_kind(c),
			   "Dual BSD/GPL", insns, c->insn_cnt, &lo);
	if (fd < 0)
		fd = -errno;
	free(own);
	return fd;
}

/* Take clones until none is left or one failed; true if one more was loaded. */
static bool load_next(struct clone_job *job)
{
	size_t i;

	if (__atomic_load_n(&job->failed, __ATOMIC_RELAXED) || (job->stop && *job->stop))
		return false;
	i = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED);
	if (i >= job->cnt)
		return false;
	job->clones[i].fd = load_clone(&job->clones[i], NULL, 0);
	if (job->clones[i].fd < 0)
		__atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&job->done, 1, __ATOMIC_RELAXED);
	return true;
}

static int loader_cnt(size_t clone_cnt)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (cpus < 1)
		cpus = 1;
	if (cpus > MAX_LOADERS)
		cpus = MAX_LOADERS;
	/* a thread is not worth starting for a handful of programs */
	if ((size_t)cpus > clone_cnt / 4 + 1)
		cpus = clone_cnt / 4 + 1;
	return cpus;
}

static bool load_step(void *arg)
{
	return load_next(arg);
}

int ma__load_clones(struct ma_clone *clones, size_t cnt, progress_fn progress, void *ctx,
		    const volatile sig_atomic_t *stop)
{
	struct clone_job job = { .clones = clones, .cnt = cnt, .stop = stop };
	struct ma_steps st = {
		.step = load_step, .arg = &job, .progress = progress, .ctx = ctx,
		.stage = "loading BPF programs", .done = &job.done, .total = cnt,
	};
	size_t k;

	for (k = 0; k < cnt; k++)
		clones[k].fd = -ENOTCONN;	/* not tried */
	ma__run_steps(loader_cnt(cnt), &st);
	for (k = 0; k < cnt; k++)
		if (clones[k].fd < 0 && clones[k].fd != -ENOTCONN)
			return clones[k].fd;
	/* clones left untried without a failure: the stop */
	for (k = 0; k < cnt; k++)
		if (clones[k].fd == -ENOTCONN)
			return -EINTR;
	return 0;
}

void ma__explain_clone(const struct ma_clone *c, log_print_fn print, const char *func_name)
{
	size_t log_sz = 1 << 20;
	char *log = calloc(1, log_sz), *tail, *end;
	int fd, lines = 0;

	if (!log)
		return;
	/* loaded once more, with a log this time */
	fd = load_clone(c, log, log_sz);
	if (fd >= 0)
		close(fd);
	/* the last few lines carry the verdict */
	end = log + strlen(log);
	for (tail = end; tail > log && lines < 6; tail--)
		if (tail[-1] == '\n' && tail != end)
			lines++;
	log_msg(print, LOG_ERROR, "%s clone for '%s' rejected (%d):\n%s",
		is_uprobe(c) ? clone_kind(c) : ma__tracing_kind(c->is_session, c->is_exit),
		func_name, c->fd, tail);
	free(log);
}
