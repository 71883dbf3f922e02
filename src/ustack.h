/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * -U: from a captured user stack (struct rec_ustack) to user-space return addresses. Keeps
 * a maps snapshot of every traced process, taken when it is first seen and again when a
 * capture of it arrives (so a process that has exited by the time its sample is
 * decoded is still resolved); where the process was gone by then, the mappings the kernel
 * recorded in its exec, fork and mmap calls (mmap_watch.h) stand in. Each snapshot goes
 * to the symbols object (symbolize.h,
 * which opens the files behind it), and has the sidecar unwind the capture over those
 * images (the binaries are the traced process's: untrusted). Symbols and source lines are
 * not this module's: each frame's address goes through the symbols object like every
 * other address, so debug files (.gnu_debuglink, /usr/lib/debug/.build-id/) serve them.
 */
#ifndef RETSNOOP_USTACK_H
#define RETSNOOP_USTACK_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "code_loc.h"
#include "log.h"
#include "records.h"

struct symbolize;
struct mmap_watch;

struct ustack_opts {
	size_t sz;			/* sizeof(struct ustack_opts) */
	/*
	 * Borrowed, required: the symbols object every snapshot is added to; its sidecar
	 * (symbolize__usyms()) unwinds. Start it early to keep that sidecar out of tracing.
	 */
	struct symbolize *syms;
	const char *proc_root;		/* "/proc" if NULL (tests) */
	/*
	 * Borrowed, optional: the kernel's mapping records of the traced process tree. Its
	 * mappings stand in for a process that exited before its maps could be read again
	 * (a short-lived command); read before each capture and unwinding.
	 */
	struct mmap_watch *watch;
	/*
	 * The records (@watch, or ustack__set_watch()) of only these processes and of those
	 * they fork from now on are followed (-p), each snapshotted now; NULL: of every
	 * process the records name (a system-wide run, or the command's tree).
	 */
	const int *watch_tgids;
	size_t watch_tgid_cnt;
	size_t max_procs;		/* snapshots kept (0: 4096); past it they start over */
	/*
	 * With @watch: processes whose exit was recorded keep their mappings for samples
	 * not read yet, the most recent this many (0: 1024); older ones are let go.
	 */
	size_t max_exited;
	/*
	 * With @watch: the files of the followed processes' code are opened as their mapping
	 * records arrive, while the processes most likely live (the command's tree, -p's), so
	 * that one which exits before its samples are read is still unwound where its maps
	 * name its files as it saw them (a chroot, another mount namespace). Not for every
	 * process of a system-wide run.
	 */
	bool open_early;
};

struct ustack;

int ustack__new(const struct ustack_opts *opts, struct ustack **out);
void ustack__free(struct ustack *u);

/*
 * Read what @opts->watch recorded since the last look (every call below does too): call
 * it often enough for the kernel's buffers not to fill up between samples.
 */
void ustack__sync(struct ustack *u);
/* @w (borrowed) as opts->watch from now on (NULL: none): started after attaching. */
void ustack__set_watch(struct ustack *u, struct mmap_watch *w);

struct ustack_stats {
	size_t procs;			/* processes whose mappings are kept now */
	size_t procs_peak;
	__u64 exited_let_go;		/* exited processes' mappings let go (max_exited) */
	/* processes that mapped an io_uring instance's rings, and the first one */
	size_t io_uring_procs;
	__u32 io_uring_tgid;
};

void ustack__stats(const struct ustack *u, struct ustack_stats *st);

/* Process @tgid was seen: snapshot its maps now, unless a snapshot is kept already. */
void ustack__note_process(struct ustack *u, __u32 tgid);

/*
 * A capture arrived: read the process's mappings again now (libraries mapped since the
 * first snapshot: ld.so's start-up, dlopen, exec), while it is more likely to be alive
 * than when the sample is decoded; if it has exited, the older snapshot stays.
 */
void ustack__note_capture(struct ustack *u, const struct rec_ustack *r);

/* One unwound frame: an address of process @tgid, for the symbols object to resolve. */
struct ustack_frame {
	__u32 tgid;
	__u64 pc;
	/*
	 * The instruction the thread was at (the innermost frame): look it up as is. Else
	 * a return address, whose call is the instruction before it.
	 */
	bool activation;
	/* found by following the frame pointer, without unwind information: maybe no caller */
	bool guessed;
	/* the mapped file as the unwinder saw it (path NULL: none covers pc) */
	struct code_image image;
	/* no file, but code: anonymous executable memory (a JIT's: a JVM's, V8's) */
	bool anon_code;
};

/*
 * One frame, innermost first; @f's strings are valid during the call only.
 * Return non-zero to stop (returned by ustack__unwind()).
 */
typedef int (*ustack_frame_cb)(void *ctx, const struct ustack_frame *f);

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
