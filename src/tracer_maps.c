// SPDX-License-Identifier: BSD-2-Clause
/*
 * The tracer's maps: where sessions live, planned before the load; filled once its BPF
 * object is loaded: each function's flags, the -A and -J capture plans, who may be traced.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "arg_plan.h"
#include "kernel_features.h"
#include "prog_patch.h"
#include "tracer_int.h"

__u32 tracer__default_table_slots(unsigned long threads)
{
	__u32 n = SESSION_TABLE_MIN;

	if (!threads)
		return SESSION_TABLE_DEFAULT;
	while (n < SESSION_TABLE_DEFAULT && n / SESSION_TABLE_PER_THREAD < threads)
		n <<= 1;
	return n;
}

/*
 * Threads alive now: /proc/loadavg's "running/total" (the kernel's thread count, any
 * namespace's); 0 when it can't be read.
 */
static unsigned long threads_now(void)
{
	unsigned long running, total;
	FILE *f = fopen("/proc/loadavg", "re");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%*s %*s %*s %lu/%lu", &running, &total);
	fclose(f);
	return n == 2 ? total : 0;
}

/*
 * The session table's slots: a power of 2, at least 2 (0: none). Each is a whole session
 * (8-10 KB of kernel memory) and the table caps concurrent sessions, as the hash map does:
 * by default it takes the hash map's place (7.x, where task storage can't hold a session;
 * 5.10, which has none), sized by the threads alive now (tracer__default_table_slots()),
 * and not task storage's (no cap, a slot per thread as needed). A sessions map size asked
 * for means that map. *@threads: the count the default came from (0: none read).
 */
static __u32 session_table_slots(const struct tracer_opts *o, bool task_storage,
				 unsigned long *threads)
{
	int want = o->session_table;
	__u32 n = 2;

	*threads = 0;
	if (o->sessions_size || want == 0 || (want < 0 && task_storage))
		return 0;
	if (want < 0) {
		*threads = threads_now();
		return tracer__default_table_slots(*threads);
	}
	while (n < (__u32)want)
		n <<= 1;
	return n;
}

/* BPF_CMPXCHG, BPF_XCHG and the fetching adds: what 5.10's verifier refuses anywhere */
static bool is_fetch_atomic(const struct bpf_insn *in)
{
	return BPF_CLASS(in->code) == BPF_STX && BPF_MODE(in->code) == BPF_ATOMIC &&
	       in->imm != BPF_ADD && in->imm != BPF_AND && in->imm != BPF_OR && in->imm != BPF_XOR;
}

/*
 * Without the table, or with its slots claimed in a hash map, its compare-and-swap and
 * exchange never run, but a kernel without them (5.10) refuses a program holding them at
 * all: each becomes a jump to the next instruction. 0 or a negative errno.
 */
static int drop_table_atomics(struct bpf_object *obj)
{
	const struct bpf_insn nop = { .code = BPF_JMP | BPF_JA };
	struct bpf_program *prog;
	int n;

	bpf_object__for_each_program(prog, obj) {
		n = prog_patch__replace_all(prog, is_fetch_atomic, &nop);
		if (n < 0)
			return n;
	}
	return 0;
}

/*
 * Can the kernel skip a traced function's return for lack of a return instance? A
 * kretprobe's pool (maxactive) and 6.x's kprobe.multi's (fprobe on rethook) run out when
 * more threads are inside the function than it holds; fentry/fexit and 7.x's kprobe.multi
 * (fprobe on the function-graph tracer's per-thread stack) have none.
 */
static bool lost_returns(const struct tracer *t, const struct kernel_features *feat)
{
	enum attach_mode mode;

	if (!t->att)
		return false;
	mode = mass_attacher__mode(t->att);
	if (mass_attacher__fallback_cnt(t->att) > 0 || mode == ATTACH_KPROBE_SINGLE)
		return true;
	return mode != ATTACH_FENTRY &&
	       !(mass_attacher__kprobe_multi_used(t->att) && feat->has_fgraph_fprobe);
}

/* Where sessions live (the table, task storage, the hash map): before the load. */
int tracer__plan_sessions(struct tracer *t, const struct kernel_features *feat)
{
	const struct tracer_opts *opts = &t->o;
	struct retsnoop *skel = t->skel;
	bool task_storage = feat->has_task_storage && !opts->sessions_size;
	unsigned long threads;
	__u32 table = session_table_slots(opts, task_storage, &threads);
	/*
	 * Slots are taken by compare-and-swap (5.12+: present where bpf_get_func_ret() is,
	 * 5.17+), else by a claim in a hash map (table_claims, session_slot.bpf.h).
	 */
	bool claims = table && !feat->has_func_ret;

	if (table) {
		skel->rodata->session_store = SESS_STORE_TABLE;
		skel->rodata->session_table_mask = table - 1;
		bpf_map__set_max_entries(skel->maps.session_table, table);
	} else {
		/* libbpf poisons the (never run) instructions that refer to it */
		bpf_map__set_autocreate(skel->maps.session_table, false);
		skel->rodata->session_store = task_storage ? SESS_STORE_TASK : SESS_STORE_HASH;
	}
	if (skel->rodata->session_store != SESS_STORE_TASK)
		bpf_map__set_autocreate(skel->maps.task_sessions, false);
	skel->rodata->table_claims_on = claims;
	if (claims)
		bpf_map__set_max_entries(skel->maps.table_claims, table);
	else
		bpf_map__set_autocreate(skel->maps.table_claims, false);
	/* the code that uses the hash map never runs: keep it minimal */
	bpf_map__set_max_entries(skel->maps.sessions,
				 skel->rodata->session_store == SESS_STORE_HASH ?
				 (opts->sessions_size ?: 4096) : 1);
	/*
	 * Threads that exit in a session (exit_cut.bpf.h), each with bpf_loop() where the
	 * kernel has it (5.17+). Sessions cut by their thread's exit are judged where the run
	 * can see them (a traced process, user functions: thread_exit); else the table's slot
	 * is freed again, and, where the kernel can skip returns, a session that lost its
	 * syscall's return to a kprobe's or fprobe's pool is reported, wherever sessions live
	 * (session_table_exit).
	 */
	skel->rodata->exit_lost_returns = lost_returns(t, feat);
	t->exit_prog = NULL;
	if (opts->traced_tgid_cnt > 0 || opts->user_func_cnt > 0)
		t->exit_prog = feat->has_func_ret ? skel->progs.thread_exit :
						    skel->progs.thread_exit_open;
	else if (table || skel->rodata->exit_lost_returns)
		t->exit_prog = feat->has_func_ret ? skel->progs.session_table_exit :
						    skel->progs.session_table_exit_open;
	bpf_program__set_autoload(skel->progs.thread_exit, t->exit_prog == skel->progs.thread_exit);
	bpf_program__set_autoload(skel->progs.thread_exit_open,
				  t->exit_prog == skel->progs.thread_exit_open);
	bpf_program__set_autoload(skel->progs.session_table_exit,
				  t->exit_prog == skel->progs.session_table_exit);
	bpf_program__set_autoload(skel->progs.session_table_exit_open,
				  t->exit_prog == skel->progs.session_table_exit_open);
	t->session_slots = table ?: skel->rodata->session_store == SESS_STORE_HASH ?
			   bpf_map__max_entries(skel->maps.sessions) : 0;
	t->slots_in_table = table;
	if (table && threads)
		pr(t, LOG_DEBUG, "Session state: a table of %u sessions%s, for %lu threads alive.\n",
		   table, claims ? " (slots claimed in a hash map: no compare-and-swap)" : "",
		   threads);
	else if (table)
		pr(t, LOG_DEBUG, "Session state: a table of %u sessions%s.\n", table,
		   claims ? " (slots claimed in a hash map: no compare-and-swap)" : "");
	else if (task_storage)
		pr(t, LOG_DEBUG, "Session state: task-local storage.\n");
	else
		pr(t, LOG_DEBUG, "Session state: a hash map of %u sessions.\n",
		   bpf_map__max_entries(skel->maps.sessions));
	return table && !claims ? 0 : drop_table_atomics(skel->obj);
}

/* Each function's or probe's -A capture plan, by id, as BPF reads it (none: no capture). */
static int load_arg_specs(struct bpf_map *map, const struct arg_plans *plans, size_t cnt)
{
	int fd = bpf_map__fd(map);
	size_t i;

	for (i = 0; plans && i < cnt; i++) {
		const struct func_arg_plan *p = arg_plans__get(plans, i);
		struct func_args_spec spec = {};
		__u32 id = i;

		if (p)
			arg_plan__wire(p, &spec);
		if (bpf_map_update_elem(fd, &id, &spec, BPF_ANY))
			return -errno;
	}
	return 0;
}

/*
 * Each function's flags and argument count by id: one batch update (a whole-kernel hunt
 * has 40,000 functions, a syscall each before), one update per function where the
 * kernel has no batch operations for arrays (before 5.6) or memory is short.
 */
static int fill_func_infos(struct tracer *t)
{
	LIBBPF_OPTS(bpf_map_batch_opts, bopts);
	const struct tracer_opts *o = &t->o;
	int fd = bpf_map__fd(t->skel->maps.func_infos);
	size_t i, n = o->func_cnt;
	struct func_info *vals;
	__u32 *keys, cnt = n;
	int err = -ENOMEM;

	keys = malloc((n ?: 1) * sizeof(*keys));
	vals = calloc(n ?: 1, sizeof(*vals));
	if (keys && vals) {
		for (i = 0; i < n; i++) {
			keys[i] = i;
			vals[i].flags = o->funcs[i].flags;
			vals[i].arg_cnt = o->funcs[i].arg_cnt;
		}
		err = !n ? 0 : bpf_map_update_batch(fd, keys, vals, &cnt, &bopts) ? -errno : 0;
	}
	for (i = 0; err && i < n; i++) {
		struct func_info fi = { .flags = o->funcs[i].flags, .arg_cnt = o->funcs[i].arg_cnt };
		__u32 id = i;

		if (bpf_map_update_elem(fd, &id, &fi, BPF_ANY)) {
			free(keys);
			free(vals);
			return -errno;
		}
	}
	free(keys);
	free(vals);
	return 0;
}

int tracer__fill_maps(struct tracer *t)
{
	const struct tracer_opts *o = &t->o;
	bool allow = true, deny = false;
	size_t i;
	int fd, err;

	err = fill_func_infos(t);
	if (!err)
		err = load_arg_specs(t->skel->maps.fnargs_specs, o->args, o->func_cnt);
	if (!err)
		err = load_arg_specs(t->skel->maps.probe_ctx_specs, o->probe_args, o->probe_cnt);
	if (err)
		return err;
	/* deny entries go last so they win where both name the same process */
	fd = bpf_map__fd(t->skel->maps.tgids_filter);
	for (i = 0; i < o->allow_pid_cnt; i++)
		if (bpf_map_update_elem(fd, &o->allow_pids[i], &allow, BPF_ANY))
			return -errno;
	for (i = 0; i < o->deny_pid_cnt; i++)
		if (bpf_map_update_elem(fd, &o->deny_pids[i], &deny, BPF_ANY))
			return -errno;
	for (i = 0; i < o->traced_tgid_cnt; i++) {
		err = tracer__trace_tgid(t, o->traced_tgids[i]);
		if (err)
			return err;
	}
	fd = bpf_map__fd(t->skel->maps.comms_filter);
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
