/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tracer's state, shared by its parts: tracer.c (set-up, attach, detach),
 * tracer_records.c (reading the records), tracer_maps.c, tracer_drops.c, tracer_ksyms.c.
 */
#ifndef __RETSNOOP_TRACER_INT_H
#define __RETSNOOP_TRACER_INT_H

#include "retsnoop.skel.h"
#include "sample.h"
#include "tracer.h"

struct lbr;
struct prog_prune;
struct session_store;
struct ringbuf_reader;

struct tracer {
	struct tracer_opts o;
	size_t sample_cnt;		/* samples handed to the sink */
	struct retsnoop *skel;
	struct mass_attacher *att;	/* NULL: no kernel function or probe */
	struct uprobe_attacher *uatt;	/* NULL: no user-space function */
	struct bpf_link *sys_exit_link;	/* with user functions: failed syscalls' errnos */
	struct bpf_link *exec_link;	/* with user functions: sessions an exec() ends */
	struct lbr *lbr;
	struct session_store *store;
	struct ringbuf_reader *rb;
	struct sample_build_opts bopts;
	bool draining;
	bool stopped;
	/*
	 * -U: samples (END and interim records, copies) held until the ring buffer has been
	 * read dry, so that each process's mappings are read (ustack__note_*) before the slow
	 * unwinding of earlier samples, while the processes are more likely still alive
	 */
	void *pending[256];
	size_t pending_sz[256];
	size_t pending_cnt;
	long last_drop_check, last_drop_report;
	struct drop_report reported;	/* what the sink was told while running */
	/* the cap on concurrent sessions (table slots, hash map size; 0: task storage) */
	__u32 session_slots;
	bool slots_in_table;		/* ... the session table's: bpf.session-table */
	struct bpf_link *fork_link, *exit_link, *free_link;	/* the traced set's tracepoints */
	/* the program exit_link runs (exit_cut.bpf.h: thread_exit, session_table_exit[_open]) */
	struct bpf_program *exit_prog;
	/*
	 * The program last pruned for the load (tracer_prune.c): libbpf loads it after the
	 * hook returns, with its records, freed at the next program's hook or the load's end
	 */
	struct prog_prune *pruned;
	int rodata_fd;			/* while loading: .rodata's, -1 until found */
	/* programs verified on helper threads during the load (tracer_prune.c) */
#define TRACER_OFFLOADS 4
	struct prog_offload *offloads[TRACER_OFFLOADS];
	size_t offload_cnt;
};

#define pr(t, level, ...) log_msg((t)->o.print, level, __VA_ARGS__)

/* Where sessions live, set in the BPF object before its load (tracer_maps.c): 0 or -errno. */
int tracer__plan_sessions(struct tracer *t, const struct kernel_features *feat);

/*
 * Pruning of the big programs at load (tracer_prune.c): the libbpf hooks, registered once
 * per process before the object is opened; begin and end around the object's load.
 */
void tracer__prune_register(void);
void tracer__prune_begin(struct tracer *t);
/* After the object's load: the offloaded programs in their stubs' place, 0 or -errno */
int tracer__offload_finish(struct tracer *t);
void tracer__prune_end(struct tracer *t);

/* The maps' contents, after the load (tracer_maps.c): 0 or a negative errno. */
int tracer__fill_maps(struct tracer *t);

/* Tell the sink when samples were lost since it last heard (rate-limited). */
void tracer_drops__check(struct tracer *t);

#endif /* __RETSNOOP_TRACER_INT_H */
