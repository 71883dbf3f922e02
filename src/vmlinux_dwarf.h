/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The DWARF side of symbolization for one run: find the vmlinux (or take -k), make sure it
 * is the running kernel's, start the addr2line sidecar on it, expand ":path" globs into
 * function names, and translate runtime addresses (KASLR) for source lookups.
 */
#ifndef RETSNOOP_VMLINUX_DWARF_H
#define RETSNOOP_VMLINUX_DWARF_H

#include <signal.h>
#include <stdbool.h>
#include "log.h"
#include "func_discovery.h"
#include "symbolize.h"

struct ksyms;
struct vmlinux_dwarf;

/* How much source-level detail symbolization gives (-s/-ss/-sn, -C stacks.symb-mode). */
enum symb_mode {
	SYMB_AUTO,		/* line info and inlines if a DWARF vmlinux is found */
	SYMB_NONE,		/* -sn: kallsyms only */
	SYMB_LINENUM,		/* -s */
	SYMB_INLINES,		/* -ss */
};

struct vmlinux_dwarf_opts {
	size_t sz;			/* sizeof(struct vmlinux_dwarf_opts) */
	const char *path;		/* -k; NULL: search the standard places */
	enum symb_mode mode;		/* -s/-ss/-sn or auto */
	bool need_src_globs;		/* some -e/-a/-d :PATH glob was given */
	int verbose;
	const char *sidecar_path;	/* tests: run this sidecar instead of the embedded one */
	/*
	 * A flag a signal handler changes (e.g. SIGINT's): a source lookup waiting on the
	 * sidecar then returns promptly without source lines (addr2line_opts.cancel).
	 */
	const volatile sig_atomic_t *cancel;
	log_print_fn print;		/* -v/-vv details */
	/* out: the image looked at (empty if none was found), for the caller's messages */
	char *image;
	size_t image_sz;
};

/*
 * Find the DWARF image and start its sidecar. NULL with errno set otherwise, for the caller
 * to word: ENODATA DWARF is off (SYMB_NONE and no :PATH globs), ENOENT no image found,
 * ESTALE the image is another kernel's, another errno from reading it or starting the
 * sidecar. Whether such a failure ends the run is vmlinux_dwarf__required()'s answer.
 */
struct vmlinux_dwarf *vmlinux_dwarf__open(const struct vmlinux_dwarf_opts *opts);
/* Do @opts need DWARF (a path, :PATH globs, linenum/inlines mode)? false for invalid opts. */
bool vmlinux_dwarf__required(const struct vmlinux_dwarf_opts *opts);
void vmlinux_dwarf__free(struct vmlinux_dwarf *vd);

/* Resolve ":PATH" @spec into the functions defined there and add them to @d with @role. */
int vmlinux_dwarf__add_src_glob(struct vmlinux_dwarf *vd, struct func_discovery *d,
				enum func_glob_role role, const struct glob_spec *spec);

/* KASLR offset from kallsyms' _stext and the image's .text; 0 or negative errno. */
int vmlinux_dwarf__set_kaslr(struct vmlinux_dwarf *vd, const struct ksyms *ks);

/* Options for the symbolize stage: the source backend, KASLR offset, inline frames. */
void vmlinux_dwarf__symbolize_opts(struct vmlinux_dwarf *vd, struct symbolize_opts *so);

/*
 * PIDs of the processes this module started (the sidecar; it runs no threads and starts no
 * children), up to @max of them into @pids; returns how many there are. Tracing should
 * leave them out: retsnoop's own symbolizing would otherwise show up in its output.
 */
int vmlinux_dwarf__pids(const struct vmlinux_dwarf *vd, int *pids, int max);

/*
 * At -vv, print the sidecar's statistics in one line (call it before the final "DONE"
 * line: the sidecar itself prints nothing). Nothing at lower verbosity.
 */
void vmlinux_dwarf__print_stats(struct vmlinux_dwarf *vd);

#endif
