/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel's own account of processes' mappings: perf's MMAP2, COMM (exec), FORK and
 * EXIT records from a dummy software event on every CPU, either inherited by every thread
 * and process the watched one starts afterwards, or of every process on the system (perf
 * record's way of knowing the maps of processes that are gone by the time their samples
 * are read).
 *
 * Each record is written by the kernel in the process's own mmap(), exec() or fork(), so
 * it is there even when the process has exited before /proc/PID/maps could be read: a
 * short-lived `retsnoop -- CMD` whose user stack is unwound after its end.
 */
#ifndef RETSNOOP_MMAP_WATCH_H
#define RETSNOOP_MMAP_WATCH_H

#include <stddef.h>
#include <linux/types.h>
#include "proc_maps.h"

struct mmap_watch_opts {
	size_t sz;			/* sizeof(struct mmap_watch_opts) */
	/*
	 * Required: the process to watch, and what it starts after this call (its events
	 * inherited); -1: every process on the system (a CPU-wide event per CPU; processes
	 * that mapped before this call are known only by what they map from then on).
	 */
	int pid;
	size_t pages;			/* data pages per CPU, a power of 2 (0: 16) */
	/*
	 * The rings' descriptors report readable after a few records (2 kB), not only when
	 * half full: a reader that opens a process's files as it maps them (through /proc,
	 * while it lives) gets to them before a short-lived one exits. For a process tree,
	 * not every process's records.
	 */
	bool wake_early;
};

enum mmap_watch_kind {
	MMAP_WATCH_MAP,			/* @map was mapped into @tgid (over what was there) */
	MMAP_WATCH_EXEC,		/* @tgid exec'd: its mappings are gone */
	MMAP_WATCH_FORK,		/* @tgid was forked by @parent: a copy of its mappings */
	MMAP_WATCH_EXIT,		/* @tgid's main thread exited (its process, mostly) */
};

/* How the kernel names a mapping of an anonymous inode's file: "anon_inode:[io_uring]" */
#define ANON_INODE_PREFIX	"anon_inode:"

struct mmap_watch_event {
	enum mmap_watch_kind kind;
	__u32 tgid;
	__u32 parent;			/* MMAP_WATCH_FORK */
	__u64 time_ns;			/* perf's clock: orders events across CPUs */
	/* MMAP_WATCH_MAP; path NULL for anonymous memory, valid during the callback only */
	struct proc_map map;
};

struct mmap_watch;

/* Start watching @opts->pid: 0, -EPERM, -EACCES, -ENOENT (no such process), -ENOMEM... */
int mmap_watch__new(const struct mmap_watch_opts *opts, struct mmap_watch **out);
void mmap_watch__free(struct mmap_watch *w);

typedef void (*mmap_watch_cb)(void *ctx, const struct mmap_watch_event *e);

/*
 * Hand every record the kernel wrote since the last call to @cb, oldest first across
 * CPUs. Returns how many, or -ENOMEM (this call's records are lost).
 */
int mmap_watch__drain(struct mmap_watch *w, mmap_watch_cb cb, void *ctx);

/* Records the kernel could not write (a full buffer): the model may miss mappings. */
__u64 mmap_watch__lost(const struct mmap_watch *w);
/* Records handed to a drain's callback so far (what watching costs). */
__u64 mmap_watch__count(const struct mmap_watch *w);

/*
 * The rings' descriptors, one per CPU (@i below mmap_watch__fd_cnt()): each reports
 * readable (poll's POLLIN) when its ring is half full since that was last reported, the
 * time to drain; a watch of a process tree reports POLLHUP once the tree is gone. -EINVAL
 * for an @i out of range.
 */
size_t mmap_watch__fd_cnt(const struct mmap_watch *w);
int mmap_watch__fd(const struct mmap_watch *w, size_t i);

/*
 * One perf record (@len bytes, struct perf_event_header first, PERF_SAMPLE_TID|TIME
 * trailer) as an event: 1 if it is one, 0 for a record of no interest, -EINVAL if
 * malformed. *@lost grows by a LOST record's count. @e's path points into @rec, whose
 * " (deleted)" suffix is cut off in place (e->map.deleted says it).
 */
int mmap_watch__parse(void *rec, size_t len, struct mmap_watch_event *e, __u64 *lost);

#endif
