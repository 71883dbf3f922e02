/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Per-function clones of a loaded BPF program, the traced function's id written into each
 * (FENTRY_ID_MARK): the mass attacher's fentry/fexit programs (mass_attacher_clones.c has
 * these), and the uprobe entry programs of kernels without BPF cookies (uprobe_attacher.c).
 */
#ifndef RETSNOOP_PROG_CLONES_H
#define RETSNOOP_PROG_CLONES_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>
#include "log.h"

struct bpf_program;

/*
 * A loaded template's subprograms, for its clones: loaded with them (and the object's BTF)
 * a clone's global functions stay global, each verified once, not again at every call
 * site as the static functions they are without. cnt 0: none to give (fd -1).
 */
struct ma_func_info {
	struct bpf_func_info *recs;
	__u32 cnt;
	int btf_fd;
};

int ma__tmpl_func_info(const struct bpf_program *tmpl, struct ma_func_info *fi);
/*
 * Where @insns' subprograms start (0, and the targets of BPF-to-BPF calls and callback
 * loads), ascending in @starts; their count, @max + 1 when more than @max.
 */
__u32 ma__subprog_starts(const struct bpf_insn *insns, size_t cnt, __u32 *starts, __u32 max);
void ma__func_info_free(struct ma_func_info *fi);

/* One fentry/fexit/fsession (or uprobe/uretprobe) program to load for one function. */
struct ma_clone {
	const struct bpf_insn *insns;	/* the template's */
	size_t insn_cnt;
	/*
	 * BPF_PROG_TYPE_TRACING (fentry/fexit by is_exit, or fsession) or BPF_PROG_TYPE_KPROBE (a uprobe
	 * entry or return program: no attach target, uprobe_attacher.h)
	 */
	enum bpf_prog_type prog_type;
	__u32 btf_id;			/* the traced function's (TRACING) */
	int btf_obj_fd;			/* its module's BTF, 0 for vmlinux */
	bool is_exit;
	bool is_session;		/* fsession, entry and exit in one (is_exit unused) */
	bool is_multi;			/* an fsession program for a tracing multi-link to
					 * the functions of btf_obj_fd's module (btf_id 0) */
	__u32 func_id;			/* the caller's: which function it is for */
	int id_insn;			/* the FENTRY_ID_MARK instruction, -1: none */
	const struct ma_func_info *fi;	/* the template's subprograms; NULL: none */
	int fd;				/* out: the program, or -errno (-ENOTCONN: not tried) */
};

/*
 * Load @clones on a few threads (as many as CPUs, up to a limit), @progress called from
 * the calling thread as they complete. 0, or the first failure's negative errno: once one
 * fails no more are tried, nor once *@stop (may be NULL) is set: -EINTR then. The caller
 * owns (closes) every fd >= 0 either way.
 */
int ma__load_clones(struct ma_clone *clones, size_t cnt, progress_fn progress, void *ctx,
		    const volatile sig_atomic_t *stop);
/*
 * Before load: write @func_id over @prog's FENTRY_ID_MARK immediate. The instruction's
 * index (it stays there through libbpf's relocations), -ENOENT if @prog has no mark.
 */
int ma__mark_tmpl(struct bpf_program *prog, __u32 func_id);
/* After load: is instruction @idx of @prog still the id @func_id? */
bool ma__tmpl_id_at(const struct bpf_program *prog, int idx, __u32 func_id);
/* "FENTRY", "FEXIT" or "FSESSION": a tracing program's kind in messages */
const char *ma__tracing_kind(bool is_session, bool is_exit);
/* Say why the verifier refused @c (a LOG_WARN line with its log's last lines). */
void ma__explain_clone(const struct ma_clone *c, log_print_fn print, const char *func_name);

#endif
