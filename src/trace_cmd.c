// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <bpf/btf.h>
#include "func_discovery.h"
#include "func_types.h"
#include "kernel_features.h"
#include "symbolize.h"
#include "trace_cmd.h"
#include "tracer.h"
#include "vmlinux_dwarf.h"

int trace_cmd__detect(struct kernel_features *feat)
{
	int err = kernel_features__detect(feat);

	if (err)
		return err;
	if (!feat->has_ringbuf) {
		fprintf(stderr, "Retsnoop requires BPF ringbuf (Linux 5.8+), please upgrade your kernel!\n");
		return -EOPNOTSUPP;
	}
	return 0;
}

static int fill_funcs(const struct func_discovery *d, struct tracer_func **out, size_t *cnt)
{
	size_t i, n = func_discovery__func_cnt(d);
	struct tracer_func *tf = calloc(n ? n : 1, sizeof(*tf));

	if (!tf)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct disc_func *f = func_discovery__func(d, i);
		int args = f->btf ? func_types__arg_cnt(f->btf, f->btf_id) : 0;

		tf[i].f = (struct mass_attacher_func){
			.name = f->name, .module = f->module, .addr = f->addr, .btf_id = f->btf_id,
			.arg_cnt = args < 0 ? 0 : args,
		};
		tf[i].flags = func_types__flags(f->btf, f->btf_id, f->name);
		tf[i].f.ret_void = tf[i].flags & FUNC_RET_VOID;
		if (f->flags & DISC_FUNC_ENTRY)
			tf[i].flags |= FUNC_IS_ENTRY;
	}
	*out = tf;
	*cnt = n;
	return 0;
}

int trace_cmd__run(const struct env *env, const struct func_discovery *d,
		   const struct kernel_features *feat, struct vmlinux_dwarf *vd)
{
	/* kallsyms again, after attaching: the symbols of our own trampolines are new */
	struct symbolize_opts sopts = { .sz = sizeof(sopts) };
	struct tracer_opts o = {
		.sz = sizeof(o),
		.mode = env->attach_mode,
		.verbose = env->verbose,
		.has_kprobe_multi = feat->has_kprobe_multi,
		.has_cookies = feat->has_cookie,
		.has_func_ip = feat->has_func_ip,
		.kret_ip_off = feat->kret_ip_off,
		.has_branch_snapshot = feat->has_branch_snapshot,
		.success_stacks = env->success_stacks,
		.func_trace = env->emit_func_trace,
		/* as in the seeds, the stack follows the -T table */
		.stack_view = env->emit_call_stack || env->emit_func_trace,
		.duration_ns = env->longer_ms * 1000000ULL,
		.lbr = env->use_lbr,
		.lbr_flags = env->lbr_flags,
		.lbr_max_count = env->cfg.lbr_max_count,
		.full_lbr = env->debug_feats & DEBUG_FULL_LBR,
		.allow_pids = env->allow_pids, .allow_pid_cnt = env->allow_pid_cnt,
		.deny_pids = env->deny_pids, .deny_pid_cnt = env->deny_pid_cnt,
		.allow_comms = (const char *const *)env->allow_comms,
		.allow_comm_cnt = env->allow_comm_cnt,
		.deny_comms = (const char *const *)env->deny_comms,
		.deny_comm_cnt = env->deny_comm_cnt,
		.err_allowed = env->has_error_filter ? env->allow_errors : NULL,
		.err_denied = env->deny_errors,
		.ringbuf_size = env->cfg.ringbuf_size,
		.sessions_size = env->cfg.sessions_size,
		.capture_path = getenv("RETSNOOP_CAPTURE"),
	};
	struct tracer_func *funcs = NULL;
	struct symbolize *sym = NULL;
	size_t cnt;
	int err;

	err = fill_funcs(d, &funcs, &cnt);
	if (err)
		return err;
	if (vd)
		vmlinux_dwarf__symbolize_opts(vd, &sopts);
	else
		sopts.warn_no_src = env->symb_mode != SYMB_NONE;
	sym = symbolize__new(&sopts);
	if (!sym) {
		err = -errno;
		goto out;
	}
	o.syms = symbolize__resolver(sym);
	err = tracer__run(&o, funcs, cnt);
out:
	symbolize__free(sym);
	free(funcs);
	return err;
}
