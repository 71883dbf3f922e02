// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "arg_plan.h"
#include "err_carriers.h"
#include "opts.h"
#include "lbr.h"
#include "retsnoop.skel.h"
#include "retsnoop_lite.skel.h"
#include "ringbuf_reader.h"
#include "session.h"
#include "tracer.h"
#include "tracer_int.h"
#include "uprobe_link.h"
#include "session_prog.h"

/* whether the current task's unwinding completes a kretprobe.multi stack (tracer__open) */
#if defined(__aarch64__)
#define KSTACK_FROM_TASK_OK false
#else
#define KSTACK_FROM_TASK_OK true
#endif

/* where user_resync() finds a traced frame's return address (the uprobe trampoline) */
#if defined(__aarch64__)
#define URET_SLOTS " and the frame records' return addresses"
#else
#define URET_SLOTS " and the return-address slots"
#endif

/* The kernel's most PIDs ever (PID_MAX_LIMIT on 64-bit), when pid_max can't be read. */
#define PID_MAX_LIMIT (4 * 1024 * 1024)

/* One byte per PID the kernel can hand out now (a few kB to 4 MB). */
static __u32 tgid_slots(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	long max = 0;

	if (f) {
		if (fscanf(f, "%ld", &max) != 1)
			max = 0;
		fclose(f);
	}
	if (max <= 0 || max > PID_MAX_LIMIT)
		max = PID_MAX_LIMIT;
	return (max + TGID_SLOT_PIDS - 1) / TGID_SLOT_PIDS;
}

static size_t at_least_one(size_t n)
{
	return n ? n : 1;
}

/*
 * In-band error carriers in the traced set (err_carriers.h). -F reads the error through
 * bpf_get_func_arg() (5.17+): each clone is verified against its own function, and a
 * fixed ctx slot would be out of bounds in most; without the helper, none is used.
 * @n carriers, @ids and @args: err_carriers__traced()'s.
 */
static void set_err_carriers(struct tracer *t, struct retsnoop *skel,
			     const struct tracer_opts *opts, const struct kernel_features *feat,
			     const __u32 *ids, const __u32 *args, size_t n)
{
	size_t i;

	if (n && opts->mode == ATTACH_FENTRY && !feat->has_func_arg) {
		pr(t, LOG_INFO, "In-band errors (netlink acks) are not followed with -F on this kernel (no bpf_get_func_arg()).\n");
		n = 0;
	}
	for (i = 0; i < n; i++) {
		skel->rodata->carrier_ids[i] = ids[i];
		skel->rodata->carrier_args[i] = args[i];
		pr(t, LOG_INFO, "In-band errors: followed into %s() (its argument %u).\n",
		   opts->funcs[ids[i]].name, args[i] + 1);
	}
	skel->rodata->carrier_cnt = n;
}

/*
 * Interrupts' calls inside a thread's session, told apart by their stack (irq_calls.bpf.h).
 * Not where a kprobe.multi pair sits on the function-graph tracer: its return probe's
 * registers are partial, and an entry left out whose return is looked at would be lost.
 */
static void set_kstack_mask(struct tracer *t, struct retsnoop *skel,
			    const struct tracer_opts *opts, const struct kernel_features *feat)
{
	unsigned long size = kernel_features__kstack_size(feat);
	const char *why = feat->user_regs_off ? NULL : "the kernel stack's size is not known";

	if (size && feat->has_fgraph_fprobe && t->att && mass_attacher__kprobe_multi_used(t->att) &&
	    !mass_attacher__kprobe_session_used(t->att))
		why = "kprobe.multi pair on the function-graph tracer";
	if (opts->keep_irq_calls)
		why = "bpf.irq-calls";
	if (why)
		size = 0;
	skel->rodata->kstack_mask = size ? ~(__u64)(size - 1) : 0;
	skel->rodata->task_stack_off = feat->task_stack_off;
	if (size)
		pr(t, LOG_DEBUG, "Interrupts' calls inside sessions are left out (kernel stacks of %lu KiB).\n",
		   size / 1024);
	else
		pr(t, LOG_DEBUG, "Interrupts' calls inside sessions are kept (%s).\n", why);
}

/* A run without kernel functions or probes loads none of their programs. */
static void no_kernel_progs(struct retsnoop *skel)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, skel->obj) {
		if (p != skel->progs.uentry && p != skel->progs.uexit &&
		    p != skel->progs.uentry_open && p != skel->progs.uexit_open &&
		    p != skel->progs.usession && p != skel->progs.usys_exit &&
		    p != skel->progs.usys_exit_open && p != skel->progs.uexec)
			bpf_program__set_autoload(p, false);
	}
}

enum uprobe_mode tracer__user_mode(const struct kernel_features *feat, enum uprobe_mode asked,
				   bool no_session_links)
{
	if (asked != UPROBE_AUTO || !feat)
		return asked;
	if (feat->has_uprobe_session && feat->session_kfunc_id && !no_session_links)
		return UPROBE_SESSION;
	return feat->has_uprobe_multi ? UPROBE_MULTI : UPROBE_SINGLE;
}

/*
 * User-space functions: their own attacher, BPF cookies for their ids (uprobes take
 * cookies from 5.15, like kprobes; before, an entry program per function with its id
 * written in, and single uprobes), and the syscall exit that ties their errors to errnos.
 */
static int open_uprobes(struct tracer *t, const struct tracer_opts *opts,
			const struct kernel_features *feat)
{
	struct uprobe_attacher_opts uo = {
		.sz = sizeof(uo), .mode = opts->user_mode, .print = opts->print,
		.progress = opts->progress, .progress_ctx = opts->progress_ctx,
		.pid = opts->uprobe_pid, .stop = opts->stop,
	};
	struct retsnoop *skel = t->skel;
	struct bpf_program *entry = skel->progs.uentry, *exit = skel->progs.uexit;
	bool loop = feat->has_func_ret;
	int err;

	/* loaded for session links only: its marker call is only a kfunc once prepared */
	bpf_program__set_autoload(skel->progs.usession, false);
	if (!opts->user_func_cnt) {
		bpf_program__set_autoload(skel->progs.uentry, false);
		bpf_program__set_autoload(skel->progs.uexit, false);
		bpf_program__set_autoload(skel->progs.uentry_open, false);
		bpf_program__set_autoload(skel->progs.uexit_open, false);
		bpf_program__set_autoload(skel->progs.usys_exit, false);
		bpf_program__set_autoload(skel->progs.usys_exit_open, false);
		bpf_program__set_autoload(skel->progs.uexec, false);
		return 0;
	}
	/* the walks over a session's frames with bpf_loop() where the kernel has it (5.17+) */
	if (!loop) {
		entry = skel->progs.uentry_open;
		exit = skel->progs.uexit_open;
	}
	bpf_program__set_autoload(loop ? skel->progs.uentry_open : skel->progs.uentry, false);
	bpf_program__set_autoload(loop ? skel->progs.uexit_open : skel->progs.uexit, false);
	bpf_program__set_autoload(loop ? skel->progs.usys_exit_open : skel->progs.usys_exit, false);
	/* the programs' attach type decides which links they take: choose before loading */
	if (!feat->has_cookie || opts->user_id_clones) {
		/* uprobe.multi and session links came later than cookies: single uprobes */
		if (uo.mode == UPROBE_AUTO)
			uo.mode = UPROBE_SINGLE;
		if (uo.mode != UPROBE_SINGLE) {
			pr(t, LOG_ERROR, "This kernel has no BPF cookies (Linux 5.15+) and no uprobe.multi links: trace user-space functions with single uprobes (-K).\n");
			return -EOPNOTSUPP;
		}
		uo.id_clones = true;
		skel->rodata->user_id_clones = true;
	}
	uo.mode = tracer__user_mode(feat, uo.mode, opts->no_session_links);
	if (uo.mode == UPROBE_MULTI && !feat->has_uprobe_multi) {
		pr(t, LOG_ERROR, "This kernel has no uprobe.multi links (Linux 6.6+).\n");
		return -EOPNOTSUPP;
	}
	if (uo.mode == UPROBE_SESSION) {
		/* one program for both runs: the pair stays unloaded */
		bpf_program__set_autoload(entry, false);
		bpf_program__set_autoload(exit, false);
		bpf_program__set_autoload(skel->progs.usession, true);
		err = session_prog__prepare(skel->progs.usession, feat->session_kfunc_id,
					    feat->session_cookie_kfunc_id,
					    UPROBE_SESSION_ATTACH_TYPE);
		if (err) {
			pr(t, LOG_ERROR, "Failed to prepare the uprobe session program: %s.\n",
			   strerror(-err));
			return err;
		}
		uo.session = skel->progs.usession;
	} else if (uo.mode == UPROBE_MULTI) {
		bpf_program__set_expected_attach_type(entry, BPF_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(exit, BPF_TRACE_UPROBE_MULTI);
	}
	t->uatt = uprobe_attacher__new(entry, exit, opts->funcs, opts->func_cnt, &uo);
	return t->uatt ? 0 : -errno;
}

/*
 * The lite build is the same object with the optional records compiled out
 * (retsnoop_state.bpf.h): the same maps, programs and .rodata, in the same order, which is
 * what lets its skeleton stand in for the full one. A declaration added to one build and
 * not the other would change these sizes.
 */
_Static_assert(sizeof(struct retsnoop) == sizeof(struct retsnoop_lite),
	       "the lite skeleton differs from the full one");
_Static_assert(sizeof(((struct retsnoop *)0)->maps) == sizeof(((struct retsnoop_lite *)0)->maps) &&
	       sizeof(((struct retsnoop *)0)->progs) == sizeof(((struct retsnoop_lite *)0)->progs) &&
	       sizeof(*((struct retsnoop *)0)->rodata) == sizeof(*((struct retsnoop_lite *)0)->rodata) &&
	       sizeof(*((struct retsnoop *)0)->bss) == sizeof(*((struct retsnoop_lite *)0)->bss),
	       "the lite skeleton's maps, programs or variables differ from the full one's");

/*
 * May this run load the lite build? Not when it asks for what that leaves out: -T, -I,
 * --lbr, -U, -A, user-space functions (their frames' resync at kernel entry), or in-band
 * errors (@carriers of the traced functions carry them).
 */
static bool lite_ok(const struct tracer_opts *opts, size_t carriers)
{
	return !opts->full_bpf && !opts->view.func_trace && !opts->interim && !opts->view.lbr &&
	       !opts->user_stacks && !opts->args && !opts->user_func_cnt && !carriers;
}

struct tracer *tracer__open(const struct tracer_opts *opts)
{
	const struct kernel_features *feat;
	struct mass_attacher_opts mopts = { .sz = sizeof(mopts) };
	struct mass_attacher_progs progs;
	struct tracer *t;
	__u32 carrier_ids[MAX_ERR_CARRIERS], carrier_args[MAX_ERR_CARRIERS];
	struct retsnoop *skel;
	size_t i, kcnt, carriers;
	int err;

	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	if (OPTS_COPY(&t->o, opts) || !t->o.feat || !t->o.sink) {
		free(t);
		return errno = EINVAL, NULL;
	}
	opts = &t->o;
	feat = opts->feat;

	if (opts->view.lbr) {
		if (!feat->has_branch_snapshot) {
			err = -EOPNOTSUPP;
			goto err;
		}
		t->lbr = lbr__open(opts->lbr_flags);
		if (!t->lbr) {
			err = -errno ?: -ENODEV;
			goto err;
		}
	}

	/* feature detection did not find where the kernel saves user registers */
	if (opts->user_stacks && !feat->user_regs_off) {
		err = -EOPNOTSUPP;
		goto err;
	}

	/* in-band error carriers among the traced functions: the lite build has no place for them */
	carriers = err_carriers__traced(opts->funcs, opts->func_cnt - opts->user_func_cnt,
					carrier_ids, carrier_args, MAX_ERR_CARRIERS);
	{
		/* BPF_LOG_STATS: instructions processed, states and time, printed by libbpf */
		LIBBPF_OPTS(bpf_object_open_opts, oo, .kernel_log_level = opts->verifier_stats ? 4 : 0);

		tracer__prune_register();	/* libbpf's hooks: before the open */
		if (lite_ok(opts, carriers)) {
			skel = t->skel = (struct retsnoop *)retsnoop_lite__open_opts(&oo);
			pr(t, LOG_DEBUG, "BPF programs: the lite build (no -T, -I, --lbr, -U, -A, user functions or in-band errors to record).\n");
		} else {
			skel = t->skel = retsnoop__open_opts(&oo);
		}
	}
	if (!skel) {
		err = -errno;
		pr(t, LOG_ERROR, "Failed to open BPF object: %d\n", err);
		goto err;
	}
	progs = (struct mass_attacher_progs){
		.kentry = skel->progs.kentry, .kexit = skel->progs.kexit,
		.ksession = skel->progs.ksession,
		.fentry = skel->progs.fentry_tmpl,
		.fexit = { skel->progs.fexit_tmpl0, skel->progs.fexit_tmpl1, skel->progs.fexit_tmpl2,
			   skel->progs.fexit_tmpl3, skel->progs.fexit_tmpl4, skel->progs.fexit_tmpl5,
			   skel->progs.fexit_tmpl6 },
		.fexit_void = skel->progs.fexit_tmpl_void,
		.fsession = skel->progs.fsession_tmpl,
		.fsession_void = skel->progs.fsession_tmpl_void,
		.fsession_multi = skel->progs.fsession_multi,
		.ip_to_id = skel->maps.ip_to_id,
		.ip_slots = skel->maps.ip_slots,
		.inject = {
			[PROBE_KPROBE] = skel->progs.inj_kprobe,
			[PROBE_KRETPROBE] = skel->progs.inj_kretprobe,
			[PROBE_TP] = skel->progs.inj_tp,
			[PROBE_RAWTP] = skel->progs.inj_rawtp,
		},
	};
	if (opts->user_func_cnt > opts->func_cnt) {
		err = -EINVAL;
		goto err;
	}
	kcnt = opts->func_cnt - opts->user_func_cnt;
	if (kcnt || opts->probe_cnt) {
		mopts.mode = opts->mode;
		mopts.print = opts->print;
		mopts.has_kprobe_multi = feat->has_kprobe_multi;
		if (feat->has_kprobe_session && !opts->no_kprobe_session)
			mopts.session_kfunc_id = feat->session_kfunc_id;
		mopts.session_cookie_kfunc_id = feat->session_cookie_kfunc_id;
		mopts.has_cookies = feat->has_cookie;
		mopts.has_rawtp_cookies = feat->has_rawtp_cookie;
		mopts.has_func_ip = feat->has_func_ip;
		mopts.has_fentry = feat->has_fentry;
		mopts.kret_ip_off = feat->kret_ip_off;
		mopts.progress = opts->progress;
		mopts.progress_ctx = opts->progress_ctx;
		mopts.stop = opts->stop;
		mopts.detach_threads = opts->detach_threads;
		/* fsession's result is bpf_get_func_ret()'s (one template for any arity) */
		if (feat->has_fsession && feat->has_func_ret && !opts->no_fsession)
			mopts.fsession_kfunc_id = feat->session_kfunc_id;
		mopts.fsession_multi = feat->has_fsession_multi && !opts->no_fsession_multi;
		t->att = mass_attacher__new(&progs, opts->funcs, kcnt, &mopts);
		if (!t->att) {
			err = -errno;
			goto err;
		}
		for (i = 0; i < opts->probe_cnt; i++) {
			/* the cookie tells BPF which probe hit: its id */
			err = mass_attacher__add_inject(t->att, &opts->probes[i], i);
			if (err)
				goto err;
		}
		err = mass_attacher__prepare(t->att);
		if (err)
			goto err;
	} else {
		no_kernel_progs(skel);
	}
	err = open_uprobes(t, opts, feat);
	if (err)
		goto err;

	skel->rodata->emit_success_stacks = opts->success_stacks;
	skel->rodata->emit_func_trace = opts->view.func_trace;
	skel->rodata->emit_interim_stacks = opts->interim;
	skel->rodata->capture_lbr = opts->view.lbr;
	skel->rodata->use_cookies = t->att && mass_attacher__uses_cookies(t->att);
	skel->rodata->has_func_ip = feat->has_func_ip;
	if (t->att && mass_attacher__ip_slot_bits(t->att)) {
		__u32 bits = mass_attacher__ip_slot_bits(t->att);

		skel->rodata->ip_slot_shift = 64 - bits;
		skel->rodata->ip_slot_mask = (1u << bits) - 1;
	}
	skel->rodata->guard_by_kernel = t->att && mass_attacher__sole_tracing_prog(t->att);
	if (skel->rodata->guard_by_kernel)
		pr(t, LOG_DEBUG, "BPF programs: the kernel's recursion check alone keeps the multi-link program from running inside itself (no guard of ours).\n");
	skel->rodata->kret_ip_off = feat->kret_ip_off;
	skel->rodata->tk_addr_off = feat->trace_kprobe_addr_off;
	skel->rodata->has_func_ret = feat->has_func_ret;
	skel->rodata->has_func_arg = feat->has_func_arg;
	skel->rodata->task_group_leader_off = feat->task_group_leader_off;
	skel->rodata->task_comm_off = feat->task_comm_off;
	skel->rodata->task_pid_off = feat->task_pid_off;
	skel->rodata->duration_ns = opts->duration_ns;
	skel->rodata->tgid_allow_cnt = opts->allow_pid_cnt;
	skel->rodata->tgid_deny_cnt = opts->deny_pid_cnt;
	skel->rodata->comm_allow_cnt = opts->allow_comm_cnt;
	skel->rodata->comm_deny_cnt = opts->deny_comm_cnt;
	for (i = 0; i < opts->excluded_cnt && i < MAX_EXCLUDED_TGIDS; i++)
		skel->rodata->excluded_tgids[i] = opts->excluded_tgids[i];
	skel->rodata->excluded_cnt = i;
	/*
	 * Only kretprobe.multi on fgraph needs it; elsewhere the probe's stack is whole. Not on
	 * arm64 (measured on 7.2): there the task's unwinding goes from return_to_handler's
	 * frame record straight to the caller's, losing the address the probed function
	 * returns to, while the probe's registers (pc at that address) unwind completely.
	 */
	skel->rodata->kstack_from_task = KSTACK_FROM_TASK_OK && feat->has_fgraph_fprobe &&
		feat->has_task_stack && t->att && mass_attacher__kprobe_multi_used(t->att);
	set_kstack_mask(t, skel, opts, feat);
	bpf_map__set_max_entries(skel->maps.func_infos, at_least_one(opts->func_cnt));
	set_err_carriers(t, skel, opts, feat, carrier_ids, carrier_args, carriers);
	skel->rodata->tgid_set_on = opts->traced_tgid_cnt > 0;
	bpf_map__set_max_entries(skel->maps.traced_tgids,
				 opts->traced_tgid_cnt ? tgid_slots() : 1);
	bpf_program__set_autoload(skel->progs.tgid_set_fork, opts->follow_forks);
	bpf_program__set_autoload(skel->progs.tgid_set_free, opts->traced_tgid_cnt > 0);
	bpf_map__set_max_entries(skel->maps.tgids_filter,
				 at_least_one(opts->allow_pid_cnt + opts->deny_pid_cnt));
	bpf_map__set_max_entries(skel->maps.comms_filter,
				 at_least_one(opts->allow_comm_cnt + opts->deny_comm_cnt));
	err = tracer__plan_sessions(t, feat);
	if (err)
		goto err;
	skel->rodata->task_exit_code_off = feat->task_exit_code_off;
	if (opts->user_stacks || opts->user_func_cnt) {
		/* -U, user_resync() (user_session.bpf.h), own_exit_call(): the user registers */
		skel->rodata->user_regs_off = feat->user_regs_off;
	}
	if (opts->user_func_cnt) {
		skel->rodata->user_resync_on = true;
		skel->rodata->task_mm_off = feat->task_mm_off;
		skel->rodata->mm_xol_area_off = feat->mm_xol_area_off;
		skel->rodata->xol_vaddr_off = feat->xol_vaddr_off;
		skel->rodata->task_utask_off = feat->task_utask_off;
		skel->rodata->utask_ri_off = feat->utask_ri_off;
		skel->rodata->ri_stack_off = feat->ri_stack_off;
		skel->rodata->ri_orig_ret_off = feat->ri_orig_ret_off;
		skel->rodata->ri_next_off = feat->ri_next_off;
		if (!feat->user_regs_off)
			pr(t, LOG_DEBUG, "Frames left by longjmp() are not looked for at kernel entry: where the kernel saves user registers is not known.\n");
		else
			pr(t, LOG_DEBUG, "Frames left by longjmp() are looked for at kernel entry by the user stack pointer%s.\n",
			   feat->xol_vaddr_off ? URET_SLOTS :
			   " only (no uprobe trampoline address in the kernel's BTF)");
	}
	if (opts->user_stacks) {
		skel->rodata->capture_ustack = true;
		skel->rodata->ustack_size = opts->ustack_size ?: USTACK_DEFAULT_SIZE;
	} else {
		/* a page-sized buffer per CPU that nothing would use */
		bpf_map__set_autocreate(skel->maps.ustack_bufs, false);
	}
	if (opts->ringbuf_size)
		bpf_map__set_max_entries(skel->maps.rb, opts->ringbuf_size);
	skel->rodata->rb_size = bpf_map__max_entries(skel->maps.rb);
	if (opts->args) {
		skel->rodata->capture_args = true;
		skel->rodata->args_max_total = opts->args_max_total;
		skel->rodata->args_raw_ptrs = opts->args_raw_ptrs;
		bpf_map__set_max_entries(skel->maps.fnargs_specs, at_least_one(opts->func_cnt));
		err = libbpf_num_possible_cpus();
		if (err < 0)
			goto err;
		bpf_map__set_max_entries(skel->maps.fnargs_bufs, err);
		bpf_map__set_max_entries(skel->maps.probe_ctx_specs, at_least_one(opts->probe_cnt));
	}
	return t;
err:
	tracer__free(t);
	errno = -err;
	return NULL;
}

int tracer__load(struct tracer *t)
{
	int err;

	tracer__prune_begin(t);
	err = retsnoop__load(t->skel);
	if (!err)
		err = tracer__offload_finish(t);
	tracer__prune_end(t);

	/* the verifier gives up on a signal: that is the stop, not a failure */
	if (err && t->o.stop && *t->o.stop)
		return -EINTR;
	if (err) {
		pr(t, LOG_ERROR, "Failed to load BPF programs: %d (%s)\n", err, strerror(-err));
		return err;
	}
	err = t->att ? mass_attacher__load(t->att) : 0;
	if (!err)
		err = tracer__fill_maps(t);
	if (err)
		pr(t, LOG_ERROR, "Failed to set up BPF maps: %d\n", err);
	return err;
}

int tracer__trace_tgid(struct tracer *t, int tgid)
{
	int fd = bpf_map__fd(t->skel->maps.traced_tgids);
	__u32 key = (__u32)tgid / TGID_SLOT_PIDS;
	struct tgid_slot slot;

	if (!t->o.traced_tgid_cnt || tgid <= 0)
		return -EINVAL;
	/* before the processes run: nothing else writes this slot meanwhile */
	if (bpf_map_lookup_elem(fd, &key, &slot))
		return -errno;
	slot.traced[tgid % TGID_SLOT_PIDS] = 1;
	if (bpf_map_update_elem(fd, &key, &slot, BPF_ANY))
		return -errno;
	return 0;
}

/* The traced set's tracepoints go first: a fork while functions attach is followed too. */
static int attach_tgid_set(struct tracer *t)
{
	struct bpf_link *l;

	if (t->o.follow_forks) {
		l = bpf_program__attach(t->skel->progs.tgid_set_fork);
		if (!l)
			goto err;
		t->fork_link = l;
	}
	if (t->exit_prog) {
		l = bpf_program__attach(t->exit_prog);
		if (!l)
			goto err;
		t->exit_link = l;
	}
	if (t->o.traced_tgid_cnt) {
		l = bpf_program__attach(t->skel->progs.tgid_set_free);
		if (!l)
			goto err;
		t->free_link = l;
	}
	return 0;
err:
	pr(t, LOG_WARN, "Failed to attach the process-following tracepoints: %s\n",
	   strerror(errno));
	return -errno;
}

int tracer__attach(struct tracer *t)
{
	int err = attach_tgid_set(t);

	if (!err && t->att)
		err = mass_attacher__attach(t->att);
	if (!err && t->uatt)
		err = uprobe_attacher__attach(t->uatt);
	if (!err && t->uatt) {
		t->sys_exit_link = bpf_program__attach(bpf_program__autoload(t->skel->progs.usys_exit) ?
						       t->skel->progs.usys_exit :
						       t->skel->progs.usys_exit_open);
		if (!t->sys_exit_link) {
			err = -errno;
			pr(t, LOG_ERROR, "Failed to attach to the sys_exit raw tracepoint: %s.\n",
			   strerror(-err));
		}
	}
	if (!err && t->uatt) {
		t->exec_link = bpf_program__attach(t->skel->progs.uexec);
		if (!t->exec_link) {
			err = -errno;
			pr(t, LOG_ERROR, "Failed to attach to the sched_process_exec raw tracepoint: %s.\n",
			   strerror(-err));
		}
	}
	return err;
}

const struct mass_attacher *tracer__attacher(const struct tracer *t)
{
	return t->att;
}

const struct uprobe_attacher *tracer__uprobes(const struct tracer *t)
{
	return t->uatt;
}

int tracer__detach_by(struct tracer *t, long deadline_ms)
{
	int err;

	bpf_link__destroy(t->fork_link);
	bpf_link__destroy(t->exit_link);
	bpf_link__destroy(t->free_link);
	t->fork_link = t->exit_link = t->free_link = NULL;
	/* user functions first: their sessions then end before the kernel's probes go */
	err = uprobe_attacher__detach_by(t->uatt, deadline_ms);
	if (err)
		return err;
	bpf_link__destroy(t->sys_exit_link);
	t->sys_exit_link = NULL;
	bpf_link__destroy(t->exec_link);
	t->exec_link = NULL;
	return t->att ? mass_attacher__detach_by(t->att, deadline_ms) : 0;
}

long tracer__detach(struct tracer *t)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	tracer__detach_by(t, 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
}

void tracer__free(struct tracer *t)
{
	if (!t)
		return;
	bpf_link__destroy(t->fork_link);
	bpf_link__destroy(t->exit_link);
	bpf_link__destroy(t->free_link);
	ringbuf_reader__free(t->rb);
	while (t->pending_cnt)
		free(t->pending[--t->pending_cnt]);
	session_store__free(t->store);
	uprobe_attacher__free(t->uatt);
	bpf_link__destroy(t->sys_exit_link);
	bpf_link__destroy(t->exec_link);
	mass_attacher__free(t->att);
	retsnoop__destroy(t->skel);
	lbr__close(t->lbr);
	free(t);
}
