/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mass_attacher: attach one pair of entry/exit BPF programs to many kernel functions at
 * once, by kprobe.multi (the pair, or one session program where the kernel has them),
 * single kprobes or fentry/fexit clones, and detach them all.
 *
 * Lifecycle: new(funcs) -> [add_inject...] -> prepare (plan: mode per function, templates,
 * map sizes) -> [caller loads its BPF object] -> load (fill ip_to_id) -> attach ->
 * detach/free. Injected probes (kprobes, tracepoints) ride along: attached first, by
 * their own programs, with the cookie the caller chose.
 * It knows nothing about what the programs record or how retsnoop prints it.
 */
#ifndef RETSNOOP_MASS_ATTACHER_H
#define RETSNOOP_MASS_ATTACHER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "func.h"
#include "log.h"
#include "probe_spec.h"

struct bpf_program;
struct bpf_map;

enum attach_mode {
	ATTACH_AUTO,		/* kprobe.multi if the kernel has it, else single kprobes */
	ATTACH_KPROBE_MULTI,	/* -M */
	ATTACH_KPROBE_SINGLE,	/* -K */
	ATTACH_FENTRY,		/* -F; functions fentry can't attach to get kprobes instead */
};

/* How one function ends up attached. */
enum func_attach {
	FUNC_ATTACH_KPROBE_MULTI,
	FUNC_ATTACH_KPROBE,
	FUNC_ATTACH_FENTRY,
};

#define MA_FEXIT_TMPLS 7	/* fexit templates for 0..6 arguments */

/* The caller's BPF programs and maps the attacher drives. */
struct mass_attacher_progs {
	struct bpf_program *kentry, *kexit;
	/* kprobe.multi session program (kprobe_session.h) standing for both; NULL: none */
	struct bpf_program *ksession;
	struct bpf_program *fentry;
	struct bpf_program *fexit[MA_FEXIT_TMPLS];
	struct bpf_program *fexit_void;
	/* fsession templates (entry and return in one, any argument count), NULL: none */
	struct bpf_program *fsession, *fsession_void;
	/*
	 * the fsession program for a tracing multi-link (tracing_multi.h; its id and void
	 * flag from the cookie, FMULTI_COOKIE_VOID), in a section libbpf doesn't know and
	 * unloaded until prepare says otherwise; NULL: none
	 */
	struct bpf_program *fsession_multi;
	struct bpf_map *ip_to_id;	/* __u64 ip -> __u32 id, used when cookies can't be */
	/* kprobe.multi: the ip -> id table of ip_slots.h (NULL: none, BPF asks the cookie) */
	struct bpf_map *ip_slots;
	/* injected probes: one program per enum probe_kind, NULL if the caller has none */
	struct bpf_program *inject[PROBE_KIND_CNT];
};

struct mass_attacher_opts {
	size_t sz;			/* sizeof(struct mass_attacher_opts) */
	enum attach_mode mode;
	log_print_fn print;		/* NULL: silent */
	bool has_kprobe_multi;		/* kernel features, from feature detection */
	/*
	 * Non-zero: kprobe.multi attaches with one session link (progs.ksession) instead of
	 * the pair, its return-run test calling the kfunc of this BTF id (kernel_features'
	 * session_kfunc_id when has_kprobe_session). 0: the pair.
	 */
	__u32 session_kfunc_id;
	__u32 session_cookie_kfunc_id;	/* bpf_session_cookie's, with session_kfunc_id */
	bool has_cookies;
	bool has_rawtp_cookies;		/* raw tracepoint links take a cookie (6.10+) */
	bool has_func_ip;
	bool has_fentry;		/* trampolines attach to kernel functions */
	int kret_ip_off;		/* kretprobes can name their function without the above */
	progress_fn progress;		/* NULL: none; "attaching"/"detaching" functions */
	void *progress_ctx;
	/*
	 * Set (by a signal handler, say) to make attach give up between two functions: it
	 * then detaches what it attached and returns -EINTR, saying nothing. NULL: never.
	 */
	const volatile sig_atomic_t *stop;
	/* threads releasing kprobe links at once in detach (their waits overlap); 0: default */
	int detach_threads;
	/*
	 * Non-zero: -F attaches one fsession program per function (progs.fsession, Linux
	 * 7.0+) instead of the fentry/fexit pair, its return-run test calling the kfunc of
	 * this BTF id (bpf_session_is_return). 0: the pair.
	 */
	__u32 fsession_kfunc_id;
	/*
	 * With fsession_kfunc_id: the fentry functions share one fsession program
	 * (progs.fsession_multi), loaded once and linked to all of vmlinux's with one
	 * tracing multi-link (7.x x86-64, kernel_features' has_fsession_multi), and a clone
	 * of it and a link for each module's functions.
	 */
	bool fsession_multi;
};

struct mass_attacher;

/*
 * @funcs (borrowed, must outlive the attacher): the functions to trace; a function's id
 * is its index. NULL with errno set on failure.
 */
struct mass_attacher *mass_attacher__new(const struct mass_attacher_progs *progs,
					 const struct func *funcs, size_t cnt,
					 const struct mass_attacher_opts *opts);
void mass_attacher__free(struct mass_attacher *att);

/*
 * Inject a probe at @spec (borrowed, must outlive the attacher), attached with
 * progs.inject[spec->kind] and BPF cookie @cookie. Before plan/prepare. Probes need
 * cookies: plan fails with -EOPNOTSUPP on kernels without them. An unknown target fails
 * attach, after one LOG_WARN line, with nothing left attached.
 */
int mass_attacher__add_inject(struct mass_attacher *att, const struct probe_spec *spec,
			      __u64 cookie);

/*
 * Plan the attachment, touching no BPF object: resolve ATTACH_AUTO, choose each function's
 * way of attaching (mass_attacher__func_attach()) and the fentry/fexit templates. Fails
 * with -ENOENT (no functions) or -EOPNOTSUPP (the kernel lacks what the mode needs, or
 * can't tell kprobes' functions apart), after a message at LOG_WARN.
 */
int mass_attacher__plan(struct mass_attacher *att);
/* Plan (if not done) and apply it to the programs: autoload, attach targets, map sizes. */
int mass_attacher__prepare(struct mass_attacher *att);
/* After the caller's BPF object is loaded: fill ip_to_id or the ip_slots table. */
int mass_attacher__load(struct mass_attacher *att);
/* 0 or a negative errno; on an error but -EINTR (a stop) nothing is left attached */
int mass_attacher__attach(struct mass_attacher *att);
/*
 * Detach everything now (also done by free), releasing kprobe links from several threads:
 * most of a link's release is the kernel waiting for RCU grace periods, which concurrent
 * releases share where the kernel's locks allow (for kprobes, not for trampolines).
 * Returns milliseconds spent.
 */
long mass_attacher__detach(struct mass_attacher *att);
/*
 * The same, but no release is started after @deadline_ms (CLOCK_MONOTONIC, as now_ms()):
 * 0 once everything is released, -ETIMEDOUT with the rest still attached (a later detach
 * or free releases it; a process handing it to another first makes that quick).
 */
int mass_attacher__detach_by(struct mass_attacher *att, long deadline_ms);

enum attach_mode mass_attacher__mode(const struct mass_attacher *att);
const char *mass_attacher__mode_name(enum attach_mode mode);
enum func_attach mass_attacher__func_attach(const struct mass_attacher *att, __u32 id);
/* Some functions are attached with kprobe.multi links. */
bool mass_attacher__kprobe_multi_used(const struct mass_attacher *att);
/* The kprobe.multi functions are attached with session links (progs.ksession). */
bool mass_attacher__kprobe_session_used(const struct mass_attacher *att);
/* -F with one fsession program per function (opts.fsession_kfunc_id), not the pair. */
bool mass_attacher__fsession_used(const struct mass_attacher *att);
/* How many functions are on fsession multi-links (opts.fsession_multi); 0: none. */
size_t mass_attacher__fsession_multi_cnt(const struct mass_attacher *att);
/*
 * The object's own multi-link program (progs.fsession_multi, vmlinux's functions) is the
 * only program of the templates' and the injected probes' kind this run loads: no module's
 * clone of it, no clone per function, no injected probe. The kernel then keeps it from
 * running inside itself on a CPU (its recursion check, counted as the program's misses),
 * which is what their shared per-CPU guard does between programs.
 */
bool mass_attacher__sole_tracing_prog(const struct mass_attacher *att);
/* Functions attached with kprobes although the mode is fentry/fexit. */
size_t mass_attacher__fallback_cnt(const struct mass_attacher *att);
/* fentry/fexit: the template slot (0..6 arguments, MA_FEXIT_TMPLS for void) of @id. */
int mass_attacher__fexit_slot(const struct mass_attacher *att, __u32 id);
/* The function the fexit template of @slot is loaded for, -1 if that template is unused. */
int mass_attacher__fexit_tmpl_func(const struct mass_attacher *att, int slot);
/*
 * Where in template @prog (fentry, fexit, fsession) the function id is written, -1 when it
 * is not one or has none; after its instructions are rewritten before the load (pruned),
 * set it to where that instruction went: clones write their own id there. 0 or -ENOENT.
 */
int mass_attacher__tmpl_id_insn(const struct mass_attacher *att, const struct bpf_program *prog);
int mass_attacher__set_tmpl_id_insn(struct mass_attacher *att, const struct bpf_program *prog,
				    int idx);
/* Entries the ip -> id map needs. */
size_t mass_attacher__ip_slots(const struct mass_attacher *att);
/*
 * Functions left out at attach: the kernel refused kprobes on them (its kprobe blacklist,
 * -EINVAL); their count, and whether function @id is one.
 */
size_t mass_attacher__refused_cnt(const struct mass_attacher *att);
bool mass_attacher__func_refused(const struct mass_attacher *att, __u32 id);
/* True if BPF gets the function id from the cookie (else from ip_to_id). */
bool mass_attacher__uses_cookies(const struct mass_attacher *att);
/*
 * log2 of the ip_slots table's size (ip_slots.h) if BPF should look a kprobe.multi
 * function's id up there before asking the cookie; 0: no table. Known after prepare.
 */
__u32 mass_attacher__ip_slot_bits(const struct mass_attacher *att);

#endif
