/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A snapshot of one process's memory mappings (/proc/PID/maps), taken while the process is
 * alive so that its user-space addresses can still be resolved after it exits. The text is
 * parsed as untrusted input: every line is checked, nothing is assumed about its length.
 */
#ifndef RETSNOOP_PROC_MAPS_H
#define RETSNOOP_PROC_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

enum proc_map_prot {
	PROC_MAP_R = 0x1,
	PROC_MAP_W = 0x2,
	PROC_MAP_X = 0x4,
	PROC_MAP_SHARED = 0x8,		/* 's' instead of 'p' */
};

/* One line of the maps file. */
struct proc_map {
	__u64 start, end;		/* [start, end) */
	__u64 pgoff;			/* file offset of start */
	__u64 inode;
	__u32 dev_major, dev_minor;
	__u32 prot;			/* enum proc_map_prot */
	/*
	 * The file's path as the kernel printed it (newlines in names come escaped as
	 * \012), without a " (deleted)" suffix; a pseudo name such as "[vdso]" or "[stack]";
	 * NULL for an anonymous mapping.
	 */
	const char *path;
	bool deleted;			/* the file was unlinked after it was mapped */
};

struct proc_maps_opts {
	size_t sz;			/* sizeof(struct proc_maps_opts) */
	size_t max_entries;		/* more lines than this: -E2BIG (0: 1 << 20) */
	size_t max_bytes;		/* proc_maps__read(): a larger file is -E2BIG (0: 64 MiB) */
	const char *proc_root;		/* proc_maps__read(): "/proc" if NULL (tests) */
};

struct proc_maps;

/*
 * Parse maps text (@len bytes, no NUL needed). Lines must be in ascending, non-overlapping
 * order, as the kernel prints them. 0 with *out set, -EINVAL for a malformed line (none of
 * the text is kept), -E2BIG, -ENOMEM.
 */
int proc_maps__parse(const char *text, size_t len, const struct proc_maps_opts *opts,
		     struct proc_maps **out);
/* Read and parse /proc/@pid/maps: also -ENOENT (no such process), -EACCES, ... */
int proc_maps__read(int pid, const struct proc_maps_opts *opts, struct proc_maps **out);
void proc_maps__free(struct proc_maps *m);

/*
 * @m (NULL: no mappings) with @e mapped over it as mmap() does: what @e covers of older
 * mappings is cut away. @e NULL: a copy. A new snapshot in *@out, @m stays as it is.
 * 0, -EINVAL (an empty @e), -ENOMEM.
 */
int proc_maps__overlay(const struct proc_maps *m, const struct proc_map *e,
		       struct proc_maps **out);

size_t proc_maps__cnt(const struct proc_maps *m);
const struct proc_map *proc_maps__get(const struct proc_maps *m, size_t idx);
/* The mapping containing @addr, NULL if none. */
const struct proc_map *proc_maps__find(const struct proc_maps *m, __u64 addr);

#endif
