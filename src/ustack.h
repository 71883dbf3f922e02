/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * -U: from a captured user stack (struct rec_ustack) to user-space code locations. Keeps a
 * maps snapshot of every traced process, taken when it is first seen (so a process that
 * has exited by the time its sample is decoded is still resolved), and has the sidecar
 * unwind and symbolize the capture (the binaries are the traced process's: untrusted).
 */
#ifndef RETSNOOP_USTACK_H
#define RETSNOOP_USTACK_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "code_loc.h"
#include "log.h"
#include "retsnoop.h"

struct ustack_opts {
	size_t sz;			/* sizeof(struct ustack_opts) */
	log_print_fn print;		/* the sidecar failing, at LOG_WARN once */
	const char *sidecar_path;	/* run this sidecar binary instead of the embedded one */
	const volatile sig_atomic_t *cancel;	/* see struct addr2line_opts */
	const char *proc_root;		/* "/proc" if NULL (tests) */
	size_t max_procs;		/* snapshots kept (0: 4096); past it they start over */
};

struct ustack;

int ustack__new(const struct ustack_opts *opts, struct ustack **out);
void ustack__free(struct ustack *u);

/* The sidecar's PID, to keep it out of tracing; 0 if none runs. */
int ustack__sidecar_pid(const struct ustack *u);

/* Process @tgid was seen: snapshot its maps now, unless a snapshot is kept already. */
void ustack__note_process(struct ustack *u, __u32 tgid);

/*
 * A capture arrived: if its pc is outside the process's snapshot (mapped since: dlopen,
 * exec), read the mappings again now, while the process is more likely to be alive than
 * when the sample is decoded.
 */
void ustack__note_capture(struct ustack *u, const struct rec_ustack *r);

/*
 * One frame, innermost first; @loc's strings are valid during the call only.
 * Return non-zero to stop (returned by ustack__unwind()).
 */
typedef int (*ustack_frame_cb)(void *ctx, const struct code_loc *loc);

/*
 * Unwind @r (@size bytes of record) and call @cb for each frame. *note: why the stack
 * ends before its outermost frame, or why there is none (static text or valid until the
 * next call), NULL if complete. Returns 0, @cb's value, or -ENOMEM.
 */
int ustack__unwind(struct ustack *u, const struct rec_ustack *r, size_t size, ustack_frame_cb cb,
		   void *ctx, const char **note);

/* The same, as the sample builder's seam (tests give their own). */
struct ustack_resolver {
	int (*unwind)(void *ctx, const struct rec_ustack *r, size_t size, ustack_frame_cb cb,
		      void *cb_ctx, const char **note);
	void *ctx;
};

struct ustack_resolver ustack__resolver(struct ustack *u);

#endif
