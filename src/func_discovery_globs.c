// SPDX-License-Identifier: BSD-2-Clause
/*
 * Function discovery's selection: entry/allow/deny globs, exact names from source-path globs,
 * the built-in denylist, and the per-glob match counts reported at -vv.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "func_discovery.h"
#include "func_discovery_int.h"
#include "hunt.h"
#include "records.h"


/*
 * Functions BPF tracing itself runs through (or that run with it in critical spots): tracing
 * them recurses into the tracer or deadlocks, so they are denied whatever the user asks.
 */
static const char *const builtin_deny[] = {
	"bpf_get_smp_processor_id",
	"migrate_enable", "migrate_disable",
	/* 7.x: migrate_enable() is inline, this is its out-of-line part (the kernel's own
	 * fentry denylist names it; kprobes would trace it under every BPF program run) */
	"___migrate_enable",
	"rcu_read_lock*", "rcu_read_unlock*",
	"__rcu_read_lock*", "__rcu_read_unlock*",
	"bpf_spin_lock", "bpf_spin_unlock",
	"__bpf_prog_enter*", "__bpf_prog_exit*",
	"__bpf_tramp_enter*", "__bpf_tramp_exit*",
	"update_prog_stats", "inc_misses_counter", "bpf_prog_start_time",
	"arch_cpu_idle", "default_idle",
	"preempt_count_add", "preempt_count_sub",
	/*
	 * The helpers retsnoop's own probes call (and what they call), in every process:
	 * traced, each call is a probe hit the kernel refuses as recursion, and a whole-kernel
	 * hunt pays it in every untraced process (measured in the 6.12 guest: a getpid() of a
	 * process outside the hunt cost 4 times an empty program's overhead with them traced).
	 */
	"bpf_get_current_pid_tgid", "bpf_get_current_task*", "bpf_get_current_comm",
	"bpf_get_attach_cookie*", "bpf_get_func_ip*", "bpf_ktime_get_ns",
	"bpf_probe_read_kernel*", "bpf_get_stack*", "__bpf_get_stack", "bpf_get_task_stack*",
	"__bpf_get_task_stack", "bpf_get_branch_snapshot", "bpf_task_storage_get*",
	"__bpf_task_storage_get", "bpf_ringbuf_*", "__bpf_ringbuf_reserve",
	"__htab_map_lookup_elem", "htab_map_lookup_elem",
	/* bpf_probe_read_kernel()'s and _user()'s own copies: 0.1 million refused hits of the
	 * hunt below (178-182 thousand with them traced, 79-81 without, 7.2) */
	"copy_from_kernel_nofault*", "copy_from_user_nofault",
	/*
	 * The kernel stack walk behind bpf_get_stack() and bpf_get_task_stack(), which our
	 * probes take at every call that makes an error: a dozen of these a frame, some 280
	 * calls a stack (function_graph in the 7.2 guest). Traced, each was a probe hit the
	 * kernel refused as recursion: a whole-kernel hunt of 8 runs of 10 failing commands
	 * counted 2.0-2.5 million such hits, 0.16-0.41 million without them, and the time it
	 * added fell to 0.45x on 7.2, within noise on 6.12 (bench/results/hunt-load-r29*.txt).
	 */
	"__unwind_start", "unwind_next_frame", "unwind_get_return_address*", "orc_find*",
	"__orc_find", "stack_access_ok", "get_stack_info", "in_sched_functions",
	"kernel_text_address*", "__kernel_text_address", "is_module_text_address",
	"is_bpf_text_address", "bpf_ksym_find", "__module_address", "__is_insn_slot_addr",
	"in_gate_area_no_mm", "bpf_has_frame_pointer", "arch_stack_walk",
	"stack_trace_consume_entry*", "stack_trace_save_tsk", "put_task_stack",
	"get_perf_callchain", "perf_callchain_kernel", "get_callchain_entry",
	"put_callchain_entry", "callchain_store", "callchain_finalize",
	/*
	 * x86 with IBT: kprobe.multi's entry and return handlers ask it where each hit's
	 * function starts, before any BPF program runs. Traced, it ran between every failed
	 * call's return and its caller's, so each level's chain had to be kept aside and a
	 * session's few fragments ran out: on 7.2 a whole-kernel hunt of mkdir in /proc lost
	 * proc_lookup_de and named proc_lookup (scenario hunt-origin).
	 */
	"is_endbr",
	/*
	 * What runs a -J probe's program, between the probed code and the hit: traced, a
	 * whole-kernel hunt's sessions held it as the running calls at the hit, kprobe's
	 * ftrace handler in place of the probed function (7.2: kprobe:getname_flags showed
	 * kprobe_ftrace_handler -> get_kprobe below getname_flags, kretprobes their rethook
	 * handler, tracepoints perf_trace_run_bpf_submit), and check-interim.py called each
	 * such probe sample wrong.
	 */
	"kprobe_ftrace_handler", "get_kprobe", "kprobe_dispatcher", "kprobe_perf_func",
	"kretprobe_rethook_handler", "kretprobe_dispatcher", "kretprobe_perf_func",
	"rethook_trampoline_handler", "trace_call_bpf", "perf_trace_run_bpf_submit",
	"perf_trace_buf_alloc", "perf_trace_buf_update", "perf_swevent_get_recursion_context",
	"perf_swevent_put_recursion_context",
};

/*
 * Without the kernel's fexit sleep fix, detaching fexit from a function a thread sleeps in
 * waits for that sleep to end (possibly forever), so -F skips the long sleepers.
 */
static const char *const sleepable_deny[] = {
	"*_sys_select", "*_sys_pselect6*",
	"*_sys_epoll_wait", "*_sys_epoll_pwait",
	"*_sys_poll*", "*_sys_ppoll*",
	"*_sys_nanosleep*", "*_sys_clock_nanosleep*",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool names_has(const struct disc_names *ns, const char *name)
{
	return bsearch(&name, ns->names, ns->cnt, sizeof(*ns->names), cmp_str_ptr) != NULL;
}

static int add_glob(struct func_discovery *d, enum func_glob_role role, const char *name,
		    const char *mod, bool mandatory, bool internal)
{
	struct disc_glob *g;
	const char *star;

	g = realloc(d->globs, (d->glob_cnt + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	d->globs = g;
	g = &d->globs[d->glob_cnt];
	memset(g, 0, sizeof(*g));
	g->spec.kind = GLOB_NAME;
	g->spec.mandatory = mandatory;
	g->spec.name = strdup(name);
	g->spec.mod = mod ? strdup(mod) : NULL;
	if (!g->spec.name || (mod && !g->spec.mod)) {
		glob_spec__free(&g->spec);
		return -ENOMEM;
	}
	g->role = role;
	g->internal = internal;
	g->lead = name[0] == '*' || name[0] == '?' ? '\0' : name[0];
	star = strrchr(g->spec.name, '*');
	if (star && !strchr(star, '?')) {
		g->tail = star + 1;
		g->tail_len = strlen(g->tail);
	}
	d->glob_cnt++;
	if (role != FUNC_GLOB_DENY)
		d->has_allow = true;
	return 0;
}

/* The built-in denylist, and with opts.deny_sleepable the long sleepers. */
int func_discovery_globs__add_builtin(struct func_discovery *d)
{
	size_t i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(builtin_deny) && !err; i++)
		err = add_glob(d, FUNC_GLOB_DENY, builtin_deny[i], NULL, false, true);
	for (i = 0; d->opts.deny_sleepable && i < ARRAY_SIZE(sleepable_deny) && !err; i++)
		err = add_glob(d, FUNC_GLOB_DENY, sleepable_deny[i], NULL, false, true);
	return err;
}

int func_discovery__add_glob(struct func_discovery *d, enum func_glob_role role,
			     const struct glob_spec *spec)
{
	if (spec->kind == GLOB_SRC_PATH) {
		pr(d, LOG_ERROR, "Source-path glob ':%s' needs DWARF symbolization, which is not implemented yet.\n",
		   spec->name);
		return -EOPNOTSUPP;
	}
	return add_glob(d, role, spec->name, spec->mod, role == FUNC_GLOB_ENTRY && spec->mandatory,
			false);
}

int func_discovery__add_extra(struct func_discovery *d, enum func_glob_role role, const char *name)
{
	return add_glob(d, role, name, NULL, false, true);
}

int func_discovery__add_names(struct func_discovery *d, enum func_glob_role role,
			      const char *const *names, size_t cnt, const char *origin)
{
	struct disc_names *ns;
	size_t i, j;

	ns = realloc(d->name_sets, (d->name_set_cnt + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	d->name_sets = ns;
	ns = &d->name_sets[d->name_set_cnt];
	memset(ns, 0, sizeof(*ns));
	ns->role = role;
	ns->origin = strdup(origin);
	ns->names = calloc(cnt ? cnt : 1, sizeof(*ns->names));
	if (!ns->origin || !ns->names)
		goto nomem;
	for (i = 0; i < cnt; i++)
		if (!(ns->names[i] = strdup(names[i])))
			goto nomem;
	ns->cnt = cnt;
	qsort(ns->names, cnt, sizeof(*ns->names), cmp_str_ptr);
	for (i = j = 0; i < cnt; i++) {
		if (j && strcmp(ns->names[j - 1], ns->names[i]) == 0)
			free(ns->names[i]);
		else
			ns->names[j++] = ns->names[i];
	}
	ns->cnt = j;
	d->name_set_cnt++;
	if (role != FUNC_GLOB_DENY)
		d->has_allow = true;
	return 0;
nomem:
	for (i = 0; ns->names && i < cnt; i++)
		free(ns->names[i]);
	free(ns->names);
	free(ns->origin);
	return -ENOMEM;
}

/* Build one class's index; @deny picks the class. */
static int build_index(struct func_discovery *d, struct disc_glob_index *ix, bool deny)
{
	size_t i, n = 0, pos[256];
	unsigned char c;

	memset(ix->off, 0, sizeof(ix->off));
	for (i = 0; i < d->glob_cnt; i++) {
		if ((d->globs[i].role == FUNC_GLOB_DENY) != deny)
			continue;
		ix->off[(unsigned char)d->globs[i].lead + 1]++;
		n++;
	}
	for (i = 1; i < 257; i++)
		ix->off[i] += ix->off[i - 1];
	free(ix->idx);
	ix->idx = malloc((n ? n : 1) * sizeof(*ix->idx));
	if (!ix->idx)
		return -ENOMEM;
	memcpy(pos, ix->off, sizeof(pos));
	for (i = 0; i < d->glob_cnt; i++) {
		if ((d->globs[i].role == FUNC_GLOB_DENY) != deny)
			continue;
		c = d->globs[i].lead;
		ix->idx[pos[c]++] = i;
	}
	return 0;
}

int func_discovery_globs__index(struct func_discovery *d)
{
	int err;

	err = build_index(d, &d->allow_idx, false);
	if (!err)
		err = build_index(d, &d->deny_idx, true);
	d->indexed_cnt = err ? 0 : d->glob_cnt;
	return err;
}

void func_discovery_globs__free_index(struct func_discovery *d)
{
	free(d->allow_idx.idx);
	free(d->deny_idx.idx);
	d->allow_idx.idx = d->deny_idx.idx = NULL;
	d->indexed_cnt = 0;
}

/*
 * Whether @g matches @name; *@len is the name's length, measured here the first time a
 * glob needs it (SIZE_MAX: not yet), so that the globs tested against one name measure it
 * once. A tail's last character is compared before the rest of it.
 */
static inline bool disc_glob_match(const struct disc_glob *g, const char *name, size_t *len,
				   const char *mod)
{
	if (g->tail_len) {
		if (*len == SIZE_MAX)
			*len = strlen(name);
		if (*len < g->tail_len || name[*len - 1] != g->tail[g->tail_len - 1] ||
		    memcmp(name + *len - g->tail_len, g->tail, g->tail_len - 1) != 0)
			return false;
	}
	return glob_spec__match(&g->spec, name, mod);
}

typedef bool (*glob_fn)(const struct func_discovery *d, size_t i, const char *name,
			size_t *len, const char *mod, void *ctx);

/*
 * Call @fn on each glob of @ix that may match @name (bucket 0 and the bucket of its first
 * character) until it returns true; without an index (globs added since), on every glob
 * of the class. True when @fn did. Written into each caller, so that @fn is too: this is
 * discovery's inner loop, run for each of tens of thousands of names, and the calls
 * through the pointer were most of its time (issue 25; 7.2's names, host callgrind: 26.4 M
 * instructions for a targeted discovery before, 14.8 M with the BTF walk's change).
 */
static inline __attribute__((always_inline)) bool
each_glob(const struct func_discovery *d, const struct disc_glob_index *ix, bool deny,
	  const char *name, const char *mod, glob_fn fn, void *ctx)
{
	unsigned char c = name[0];
	size_t i, len = SIZE_MAX;

	if (d->indexed_cnt != d->glob_cnt || !ix->idx) {
		for (i = 0; i < d->glob_cnt; i++)
			if ((d->globs[i].role == FUNC_GLOB_DENY) == deny &&
			    disc_glob__may_match(&d->globs[i], name) &&
			    fn(d, i, name, &len, mod, ctx))
				return true;
		return false;
	}
	for (i = ix->off[0]; i < ix->off[1]; i++)
		if (fn(d, ix->idx[i], name, &len, mod, ctx))
			return true;
	for (i = c ? ix->off[c] : 0; c && i < ix->off[c + 1]; i++)
		if (fn(d, ix->idx[i], name, &len, mod, ctx))
			return true;
	return false;
}

static inline bool glob_matches(const struct func_discovery *d, size_t i, const char *name,
				size_t *len, const char *mod, void *ctx)
{
	return disc_glob_match(&d->globs[i], name, len, mod);
}

/* @ctx: the discovery, writable, whose hit counts go up */
static bool count_hit(const struct func_discovery *d, size_t i, const char *name,
		      size_t *len, const char *mod, void *ctx)
{
	struct func_discovery *counted = ctx;

	if (disc_glob_match(&d->globs[i], name, len, mod))
		counted->globs[i].match_cnt++;
	return false;	/* every glob that matches counts */
}

bool func_discovery__is_allowed(const struct func_discovery *d, const char *name,
				const char *mod)
{
	bool allowed = !d->has_allow;
	size_t i;

	/*
	 * Allowed by something, then denied by nothing: the allow globs first, since a name
	 * that none allows (nearly all of them) then costs no deny glob at all.
	 */
	for (i = 0; i < d->name_set_cnt && !allowed; i++) {
		const struct disc_names *ns = &d->name_sets[i];

		if (ns->role != FUNC_GLOB_DENY && names_has(ns, name))
			allowed = true;
	}
	if (!allowed && !each_glob(d, &d->allow_idx, false, name, mod, glob_matches, NULL))
		return false;

	for (i = 0; i < d->name_set_cnt; i++) {
		const struct disc_names *ns = &d->name_sets[i];

		if (ns->role == FUNC_GLOB_DENY && names_has(ns, name))
			return false;
	}
	return !each_glob(d, &d->deny_idx, true, name, mod, glob_matches, NULL);
}

/* Count deny-glob hits of a rejected function, for -vv statistics. */
void func_discovery_globs__count_deny_hits(struct func_discovery *d, const char *name, const char *mod)
{
	size_t i;

	each_glob(d, &d->deny_idx, true, name, mod, count_hit, d);
	for (i = 0; i < d->name_set_cnt; i++) {
		if (d->name_sets[i].role == FUNC_GLOB_DENY && names_has(&d->name_sets[i], name))
			d->name_sets[i].match_cnt++;
	}
}

static const char *role_name(enum func_glob_role role)
{
	switch (role) {
	case FUNC_GLOB_ENTRY: return "Entry";
	case FUNC_GLOB_ALLOW: return "Allow";
	default: return "Deny";
	}
}

/* Mark entry functions, count glob hits and check mandatory entry globs. */
int func_discovery_globs__mark_entries(struct func_discovery *d)
{
	char buf[2 * GLOB_MAX_LEN + 8];
	size_t i, j;
	int err = 0;

	for (i = 0; i < d->func_cnt; i++) {
		struct func *f = &d->funcs[i];

		if (!f->module && hunt__is_syscall_entry(f->name))
			f->flags |= FUNC_SYSCALL |
				    (hunt__is_exit_syscall(f->name) ? FUNC_EXIT_SYSCALL : 0);
		for (j = 0; j < d->glob_cnt; j++) {
			struct disc_glob *g = &d->globs[j];

			if (g->role == FUNC_GLOB_DENY || !disc_glob__may_match(g, f->name) ||
			    !glob_spec__match(&g->spec, f->name, f->module))
				continue;
			g->match_cnt++;
			if (g->role == FUNC_GLOB_ENTRY)
				f->flags |= FUNC_IS_ENTRY;
		}
		for (j = 0; j < d->name_set_cnt; j++) {
			struct disc_names *ns = &d->name_sets[j];

			if (ns->role == FUNC_GLOB_DENY || !names_has(ns, f->name))
				continue;
			ns->match_cnt++;
			if (ns->role == FUNC_GLOB_ENTRY)
				f->flags |= FUNC_IS_ENTRY;
		}
	}
	for (j = 0; j < d->name_set_cnt; j++) {
		struct disc_names *ns = &d->name_sets[j];

		pr(d, 2, "%s glob ':%s' matched %zu functions.\n", role_name(ns->role), ns->origin,
		   ns->match_cnt);
		if (ns->role == FUNC_GLOB_ALLOW && ns->match_cnt == 0) {
			d->stats.idle_allow_cnt++;
			pr(d, 1, "WARNING: allow glob ':%s' doesn't match any traceable kernel function.\n",
			   ns->origin);
		}
	}
	for (j = 0; j < d->glob_cnt; j++) {
		struct disc_glob *g = &d->globs[j];

		pr(d, g->internal ? 3 : 2, "%s glob '%s' matched %zu functions.\n", role_name(g->role),
		   glob_spec__str(&g->spec, buf, sizeof(buf)), g->match_cnt);
		if (g->role == FUNC_GLOB_ALLOW && !g->internal && g->match_cnt == 0) {
			d->stats.idle_allow_cnt++;
			pr(d, 1, "WARNING: allow glob '%s' doesn't match any traceable kernel function.\n",
			   glob_spec__str(&g->spec, buf, sizeof(buf)));
		}
		if (g->spec.mandatory && g->match_cnt == 0 && !err) {
			pr(d, LOG_ERROR, "Entry glob '%s' doesn't match any kernel function!\n",
			   glob_spec__str(&g->spec, buf, sizeof(buf)));
			err = -ENOENT;
		}
	}
	/* one line each however many, -v has the details above */
	if (d->stats.idle_allow_cnt)
		pr(d, 0, "WARNING: %zu allow glob%s match%s no traceable kernel function (-v names %s).\n",
		   d->stats.idle_allow_cnt, d->stats.idle_allow_cnt > 1 ? "s" : "",
		   d->stats.idle_allow_cnt > 1 ? "" : "es",
		   d->stats.idle_allow_cnt > 1 ? "them" : "it");
	return err;
}
