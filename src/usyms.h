/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * User-space part of the symbols object (symbolize.h): processes' executable mappings as
 * snapshotted while they ran, and the binaries and libraries behind them, opened at that
 * moment and handed to the sidecar (addr2line.h) as descriptors, so a process that has
 * exited (or a file deleted since) is still symbolized. Each image gets its separate debug
 * file when it has no DWARF: DEBUG_ROOT/.build-id/xx/yyyy.debug, then its .gnu_debuglink
 * name next to it, in its .debug/ and under DEBUG_ROOT; one whose build ID does not match
 * is not used, and its frames say so.
 */
#ifndef RETSNOOP_USYMS_H
#define RETSNOOP_USYMS_H

#include <stddef.h>
#include "addr2line.h"
#include "log.h"
#include "sym_resolver.h"

/* One file-backed executable mapping of a process (a line of /proc/PID/maps). */
struct user_mapping {
	__u64 start, end;		/* [start, end) */
	__u64 file_off;			/* offset in the file of @start */
	const char *path;		/* as the maps file names it */
	/*
	 * The mapped file's inode and device (0: unknown). Once the process is gone its
	 * /proc entries can't open the file: @path is opened as is, if it is still this file.
	 */
	__u64 inode;
	__u32 dev_major, dev_minor;
};

struct usyms_opts {
	size_t sz;			/* sizeof(struct usyms_opts) */
	/*
	 * Borrowed sidecar to open images in (the kernel's, if there is one); NULL: one is
	 * started on first use (sidecar_path, as addr2line_opts.sidecar_path).
	 */
	struct addr2line *sidecar;
	const char *sidecar_path;
	const char *debug_root;		/* NULL: /usr/lib/debug */
	const char *proc_root;		/* NULL: /proc */
	log_print_fn print;		/* NULL: silent */
};

struct usyms;

/* NULL with errno set on failure; @opts may be NULL. */
struct usyms *usyms__new(const struct usyms_opts *opts);
void usyms__free(struct usyms *u);

/*
 * Snapshot process @pid's executable mappings (replacing an earlier snapshot): each file is
 * opened now, through /proc/PID/map_files (the very file mapped, even if deleted or in
 * another mount namespace), else by path under /proc/PID/root. Files that cannot be opened
 * leave their mappings with the path only. Debug files are looked for on the host's paths. 0, or a negative errno (-ENOMEM, or the sidecar's failure).
 */
int usyms__add_process(struct usyms *u, __u32 pid, const struct user_mapping *maps, size_t cnt);

/*
 * For requests of other kinds about a snapshot (the unwinder): the sidecar the images are
 * open in (NULL if it could not be started or died), and each mapping of @pid with the
 * sidecar's image id of its file (0: not opened). A non-zero return from @cb stops the walk
 * and is returned; -ESRCH if @pid was never added.
 */
/*
 * Hold the file behind @m of @pid open now, while the process lives (through /proc), for
 * its samples read after its exit, when the path it saw may name another file here, or
 * none (a chroot, another mount namespace): found by @m's device and inode, which it
 * needs. Only a descriptor: the image is opened when a sample needs it. 0 (held, or
 * known already), -EINVAL, -ESTALE (not the file @m names), -ENOSPC, -errno of open().
 */
int usyms__hold_file(struct usyms *u, __u32 pid, const struct user_mapping *m);
struct addr2line *usyms__sidecar(struct usyms *u);
typedef int (*usyms_map_cb)(void *ctx, const struct user_mapping *m, int image_id);
int usyms__for_each_mapping(struct usyms *u, __u32 pid, usyms_map_cb cb, void *ctx);

/*
 * struct sym_resolver's answers for ADDR_SPACE_USER addresses of a snapshotted process;
 * a mangled symbol (C++, Rust) is named as its source spells it (demangle.h).
 */
bool usyms__sym(struct usyms *u, __u32 pid, __u64 addr, struct sym_hit *hit);
int usyms__src(struct usyms *u, __u32 pid, __u64 addr, struct src_frame *frames, int max,
	       const char **note);

/*
 * Source frames of file offset @file_off of the ELF file at @path (a traced user
 * function's binary, named by its path rather than a process's mappings), as usyms__src().
 */
int usyms__image_src(struct usyms *u, const char *path, __u64 file_off,
		     struct src_frame *frames, int max, const char **note);

#endif
