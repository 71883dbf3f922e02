/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Attaching the user-space functions of a run: an entry and a return probe on each, the
 * function's id in the BPF cookie. A uprobe session link (Linux 6.13+) where the kernel has
 * it: one program and one link per image, run at entry and at return, the return skipped
 * for calls whose entry said so; else uprobe.multi (Linux 6.6+): one entry and one return
 * link per image; else a uprobe and a uretprobe per function (without BPF cookies, before
 * Linux 5.15: an entry program per function, opts.id_clones). The kernel functions are
 * mass_attacher's; this one never touches them.
 *
 * Every error path detaches what was attached before returning: a failed attach leaves
 * nothing behind.
 */
#ifndef RETSNOOP_UPROBE_ATTACHER_H
#define RETSNOOP_UPROBE_ATTACHER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include "func.h"
#include "log.h"

struct bpf_program;

enum uprobe_mode {
	UPROBE_AUTO,		/* uprobe.multi, else single uprobes */
	UPROBE_MULTI,
	UPROBE_SINGLE,
	UPROBE_SESSION,		/* session links: opts.session, loaded for them */
};

struct uprobe_attacher_opts {
	size_t sz;
	enum uprobe_mode mode;
	log_print_fn print;
	progress_fn progress;	/* NULL: none */
	void *progress_ctx;
	/*
	 * The one running process traced (-p PID), 0: any. The kernel then puts breakpoints
	 * into that process only, instead of into every process mapping the image; the BPF
	 * programs filter by process all the same (uprobe.multi's own filter looked at one
	 * thread, not the process, before Linux 6.10: there it is not asked for).
	 */
	int pid;
	/*
	 * UPROBE_SESSION: the program each image's session link runs, loaded with that
	 * attach type (UPROBE_SESSION_ATTACH_TYPE); the entry and exit programs are unused.
	 */
	struct bpf_program *session;
	/*
	 * The kernel has no BPF cookies (before Linux 5.15): single uprobes only, the entry
	 * program loaded once more per function with the function's id written into it
	 * (prog_clones.h; the template itself for the first), the exit program one for all
	 * (it takes the session's innermost user frame, retsnoop.bpf.c). Set before the
	 * programs are loaded: new() marks the entry template.
	 */
	bool id_clones;
	/*
	 * Set (by a signal handler) to make attach give up between two images or single
	 * uprobes, and loading clones between two clones: it returns -EINTR with what it
	 * attached still attached, for the caller to detach or hand off (a single uprobe's
	 * release waits on the kernel). NULL: never.
	 */
	const volatile sig_atomic_t *stop;
};

struct uprobe_attacher;

/*
 * Plan attaching @entry and @exit to the user functions among @funcs[0, @cnt) (FUNC_USER
 * set; the others are skipped). An id is the function's index in @funcs. @funcs is
 * borrowed until free. NULL with errno set.
 */
struct uprobe_attacher *uprobe_attacher__new(struct bpf_program *entry, struct bpf_program *exit,
					     const struct func *funcs, size_t cnt,
					     const struct uprobe_attacher_opts *opts);
/* How many user functions there are to attach. */
size_t uprobe_attacher__func_cnt(const struct uprobe_attacher *att);
/*
 * Attach all, or nothing: returns 0, or a negative errno after a message at LOG_WARN that
 * names the image (and function) that failed, with everything detached again; or -EINTR,
 * silently, after a stop (opts.stop), with what was attached still attached.
 */
int uprobe_attacher__attach(struct uprobe_attacher *att);
/*
 * Functions the last attach skipped because the kernel can't probe their first
 * instruction (said once at LOG_WARN, each at LOG_INFO); attach fails only if that is all.
 */
size_t uprobe_attacher__skipped_cnt(const struct uprobe_attacher *att);
bool uprobe_attacher__func_skipped(const struct uprobe_attacher *att, size_t id);
/* The mode used by the last attach (UPROBE_SESSION, UPROBE_MULTI or UPROBE_SINGLE). */
enum uprobe_mode uprobe_attacher__mode(const struct uprobe_attacher *att);
const char *uprobe_attacher__mode_name(enum uprobe_mode mode);
/* Number of BPF links held now. */
size_t uprobe_attacher__link_cnt(const struct uprobe_attacher *att);
/* Detach everything; returns the milliseconds it took. */
long uprobe_attacher__detach(struct uprobe_attacher *att);
/* No release started after @deadline_ms (CLOCK_MONOTONIC): 0, or -ETIMEDOUT with some left. */
int uprobe_attacher__detach_by(struct uprobe_attacher *att, long deadline_ms);
void uprobe_attacher__free(struct uprobe_attacher *att);

#endif
