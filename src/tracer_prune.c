// SPDX-License-Identifier: BSD-2-Clause
/*
 * The tracer's big programs loaded without the code this run's settings make dead
 * (prog_prune.h): ksession, kentry, kexit, -F's templates and multi-link program, and the
 * user-function ones, each pruned against the object's frozen .rodata when libbpf is about
 * to load it (its prepare hook for their sections). Programs that take the verifier long
 * beside another (usys_exit or usys_exit_open, thread_exit[_open]; kentry and kexit) are
 * verified on threads of their own meanwhile (prog_offload.h).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "prog_offload.h"
#include "prog_prune.h"
#include "mass_attacher.h"
#include "tracer_int.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * libbpf calls a section's load hook for every object of the process: the hook looks at
 * the tracer whose object is loading (one at a time, on the thread calling
 * tracer__load()), and leaves any other program alone.
 */
static struct tracer *loading;
static bool prune_on;

/*
 * Loaded on a helper thread while libbpf loads the rest: each takes the verifier tens of
 * ms (6.18 host, a run of user functions only: usys_exit 22, thread_exit 13, beside
 * usession's 35), and they come first in the object, so the thread runs beside the others.
 * kentry and kexit (-K, and the kprobe.multi pair where there are no session links) are
 * verified side by side the same way. Never a template the mass attacher clones: its
 * clones copy what libbpf loaded.
 */
static bool offloadable(const struct tracer *t, const struct bpf_program *prog)
{
	const struct retsnoop *s = t->skel;

	return prog == s->progs.usys_exit || prog == s->progs.usys_exit_open ||
	       prog == s->progs.thread_exit || prog == s->progs.thread_exit_open ||
	       prog == s->progs.session_table_exit || prog == s->progs.session_table_exit_open ||
	       prog == s->progs.kentry || prog == s->progs.kexit;
}

static void offload(struct tracer *t, struct bpf_program *prog, struct bpf_prog_load_opts *o)
{
	/* retsnoop.bpf.c's LICENSE: the helpers its programs call are GPL-only */
	struct prog_offload_opts oo = { .sz = sizeof(oo), .license = "Dual BSD/GPL" };
	struct prog_offload *po;

	if (t->offload_cnt >= TRACER_OFFLOADS)
		return;
	po = prog_offload__start(prog, o, &oo);
	if (po)
		t->offloads[t->offload_cnt++] = po;
}

static bool prunable(const struct tracer *t, const struct bpf_program *prog)
{
	const struct retsnoop *s = t->skel;
	size_t i;

	if (prog == s->progs.ksession || prog == s->progs.kentry || prog == s->progs.kexit)
		return true;
	/* the thread exit programs: a session's end and records, whichever this run sends */
	if (prog == s->progs.thread_exit || prog == s->progs.thread_exit_open ||
	    prog == s->progs.session_table_exit || prog == s->progs.session_table_exit_open)
		return true;
	/* -F's templates: their clones are copies of what is loaded (the id moved with it) */
	if (prog == s->progs.fentry_tmpl || prog == s->progs.fexit_tmpl_void ||
	    prog == s->progs.fsession_tmpl || prog == s->progs.fsession_tmpl_void ||
	    prog == s->progs.fsession_multi)
		return true;
	{
		const struct bpf_program *fexit[] = {
			s->progs.fexit_tmpl0, s->progs.fexit_tmpl1, s->progs.fexit_tmpl2,
			s->progs.fexit_tmpl3, s->progs.fexit_tmpl4, s->progs.fexit_tmpl5,
			s->progs.fexit_tmpl6,
		};

		for (i = 0; i < ARRAY_SIZE(fexit); i++)
			if (prog == fexit[i])
				return true;
	}
	/* clones of these (5.10) find their id's instruction where it was before the load */
	if (s->rodata->user_id_clones)
		return false;
	return prog == s->progs.uentry || prog == s->progs.uexit || prog == s->progs.uentry_open ||
	       prog == s->progs.uexit_open || prog == s->progs.usession;
}

/*
 * The fd of the object's .rodata as the relocated instructions name it: libbpf tells a
 * map's fd only once the whole object is loaded, so it is found among the maps they load
 * values from: read-only to programs, the name and size of ours. -1: not found (not
 * pruned then).
 */
static int find_rodata_fd(struct tracer *t, const struct bpf_insn *insns, size_t cnt,
			  size_t ro_sz)
{
	const char *name = bpf_map__name(t->skel->maps.rodata);
	size_t i;

	if (t->rodata_fd > 0)
		return t->rodata_fd;
	for (i = 0; i + 1 < cnt; i++) {
		const struct bpf_insn *x = &insns[i];
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);

		if (x->code != (BPF_LD | BPF_IMM | BPF_DW))
			continue;
		i++;
		if (x->src_reg != BPF_PSEUDO_MAP_VALUE || x->imm <= 0)
			continue;
		if (bpf_map_get_info_by_fd(x->imm, &info, &len))
			continue;
		if ((info.map_flags & BPF_F_RDONLY_PROG) && info.value_size == ro_sz &&
		    !strncmp(info.name, name, sizeof(info.name) - 1)) {
			t->rodata_fd = x->imm;
			return x->imm;
		}
	}
	return -1;
}

/* @prog pruned for the load, or left whole when that can't be done */
static void prune(struct tracer *t, struct bpf_program *prog, struct bpf_prog_load_opts *o)
{
	const struct prog_text *out;
	struct prog_text in;
	struct prog_prune *p;
	size_t ro_sz = 0;
	const void *ro;
	int id;

	/* libbpf loaded the one before (one at a time): its records are no longer read */
	prog_prune__free(t->pruned);
	t->pruned = NULL;
	ro = bpf_map__initial_value(t->skel->maps.rodata, &ro_sz);
	if (!ro || find_rodata_fd(t, bpf_program__insns(prog), bpf_program__insn_cnt(prog),
				  ro_sz) < 0)
		return;
	in = (struct prog_text){
		.insns = bpf_program__insns(prog),
		.insn_cnt = bpf_program__insn_cnt(prog),
		.func_info = o->func_info,
		.func_info_rec_size = o->func_info_rec_size,
		.func_info_cnt = o->func_info_cnt,
		.line_info = o->line_info,
		.line_info_rec_size = o->line_info_rec_size,
		.line_info_cnt = o->line_info_cnt,
	};
	p = prog_prune__new(&in, &(struct prog_prune_opts){
		.sz = sizeof(struct prog_prune_opts), .rodata = ro, .rodata_sz = ro_sz,
		.rodata_fd = t->rodata_fd });
	if (!p) {
		/* loaded whole: the verifier drops the same code, later and at more cost */
		pr(t, LOG_DEBUG, "BPF program %s: loaded unpruned (%d).\n",
		   bpf_program__name(prog), -errno);
		return;
	}
	/* a template's function id: where its clones write theirs, if it stayed */
	id = t->att ? mass_attacher__tmpl_id_insn(t->att, prog) : -1;
	if (id >= 0 && prog_prune__new_index(p, id) < 0) {
		prog_prune__free(p);
		return;
	}
	out = prog_prune__text(p);
	/* libbpf copies the instructions; the records must live until the load returns */
	if (bpf_program__set_insns(prog, (struct bpf_insn *)out->insns, out->insn_cnt)) {
		prog_prune__free(p);
		return;
	}
	if (id >= 0)
		mass_attacher__set_tmpl_id_insn(t->att, prog, prog_prune__new_index(p, id));
	o->func_info = out->func_info;
	o->func_info_cnt = out->func_info_cnt;
	o->line_info = out->line_info;
	o->line_info_cnt = out->line_info_cnt;
	t->pruned = p;
	pr(t, LOG_DEBUG, "BPF program %s: %zu of %zu instructions dropped before the load (%zu branches decided by this run's settings, %zu settings read as constants, %zu slots nothing read).\n",
	   bpf_program__name(prog), prog_prune__removed(p), in.insn_cnt, prog_prune__decided(p),
	   prog_prune__folded(p), prog_prune__dead_defs(p));
}

static int prepare_load(struct bpf_program *prog, struct bpf_prog_load_opts *o, long cookie)
{
	struct tracer *t = loading;

	(void)cookie;
	if (!t)
		return 0;
	if (prune_on && prunable(t, prog))
		prune(t, prog, o);
	/* what libbpf would load, pruned: copied as it is now */
	if (offloadable(t, prog))
		offload(t, prog, o);
	return 0;
}

/* The sections of the programs above, their types as libbpf's own rules give them */
static const struct {
	const char *sec;
	enum bpf_prog_type type;
	enum bpf_attach_type attach;
} hooked[] = {
	{ "kprobe", BPF_PROG_TYPE_KPROBE }, { "kretprobe", BPF_PROG_TYPE_KPROBE },
	{ "uprobe", BPF_PROG_TYPE_KPROBE }, { "uretprobe", BPF_PROG_TYPE_KPROBE },
	{ "fentry", BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY },
	{ "fexit", BPF_PROG_TYPE_TRACING, BPF_TRACE_FEXIT },
	/* the multi-link's, a section libbpf has no rules for: the mass attacher types it */
	{ "fsession.multi", BPF_PROG_TYPE_TRACING, 0 },
	/* offloaded ones (attached by raw_tp_attach(), as libbpf's own rule would) */
	{ "raw_tp/sys_exit", BPF_PROG_TYPE_RAW_TRACEPOINT },
	{ "raw_tp/sched_process_exit", BPF_PROG_TYPE_RAW_TRACEPOINT },
};

/* bpf_program__attach() of a "raw_tp/NAME" program under the hooks' section rule */
static int raw_tp_attach(const struct bpf_program *prog, long cookie, struct bpf_link **link)
{
	const char *sec = bpf_program__section_name(prog), *tp = strchr(sec, '/');

	(void)cookie;
	*link = tp ? bpf_program__attach_raw_tracepoint(prog, tp + 1) : NULL;
	return *link ? 0 : -(errno ?: EINVAL);
}

static void register_hooks(void)
{
	LIBBPF_OPTS(libbpf_prog_handler_opts, ho, .prog_prepare_load_fn = prepare_load);
	size_t i;

	/* exact names: libbpf's own rules still serve "kprobe/func" and the like */
	for (i = 0; i < ARRAY_SIZE(hooked); i++) {
		ho.prog_attach_fn = hooked[i].type == BPF_PROG_TYPE_RAW_TRACEPOINT ?
				    raw_tp_attach : NULL;
		libbpf_register_prog_handler(hooked[i].sec, hooked[i].type, hooked[i].attach, &ho);
	}
}

void tracer__prune_register(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, register_hooks);
}

void tracer__prune_begin(struct tracer *t)
{
	t->rodata_fd = -1;
	loading = t;
	prune_on = !t->o.no_prune;
}

int tracer__offload_finish(struct tracer *t)
{
	size_t i;
	int err;

	for (i = 0; i < t->offload_cnt; i++) {
		err = prog_offload__finish(t->offloads[i]);
		if (!err)
			continue;
		pr(t, LOG_ERROR, "BPF program %s failed to load: %s\n%s",
		   bpf_program__name(prog_offload__prog(t->offloads[i])), strerror(-err),
		   err == -EINTR ? "" : prog_offload__log(t->offloads[i]));
		return err;
	}
	return 0;
}

void tracer__prune_end(struct tracer *t)
{
	size_t i;

	loading = NULL;
	prog_prune__free(t->pruned);
	t->pruned = NULL;
	for (i = 0; i < t->offload_cnt; i++)
		prog_offload__free(t->offloads[i]);
	t->offload_cnt = 0;
}
