/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The symbols object: answers the sample builder's questions about kernel addresses from
 * kallsyms (always) and, when a matching DWARF vmlinux is available, with source lines and
 * inlined frames; and about user-space addresses of the processes snapshotted with
 * symbolize__add_process() from their binaries and libraries (usyms.h). It owns the KASLR
 * translation and degrades to kallsyms on any DWARF trouble.
 */
#ifndef RETSNOOP_SYMBOLIZE_H
#define RETSNOOP_SYMBOLIZE_H

#include <stdbool.h>
#include "log.h"
#include "sym_resolver.h"
#include "usyms.h"

struct ksyms;
struct addr2line;
struct prog_ksym;

/* Source-level answers for link-time (non-KASLR) addresses; a DWARF backend provides it. */
struct src_backend {
	/*
	 * Frames for @file_addr, outermost first; count, 0 if unknown, -EINTR if cut short
	 * on purpose (the caller asked to hurry: this and every later lookup answer -EINTR,
	 * so the sample builder marks them), other negative errno if broken (no more
	 * lookups, kallsyms only, said once).
	 */
	int (*lookup)(void *ctx, __u64 file_addr, struct src_frame *frames, int max);
	void *ctx;
};

struct symbolize_opts {
	size_t sz;			/* sizeof(struct symbolize_opts) */
	/*
	 * Borrowed; NULL: load kallsyms_path (NULL: /proc/kallsyms) at the first lookup, which
	 * comes after attaching, so BPF trampolines and programs have their symbols.
	 */
	const struct ksyms *ksyms;
	const char *kallsyms_path;
	/*
	 * Borrowed, optional: kallsyms as read before any BPF program was loaded (function
	 * discovery's). Trusted for the kernel's own text, which never changes, so samples
	 * there don't wait for the fresh read; BPF programs, trampolines and modules come
	 * from the fresh one.
	 */
	const struct ksyms *early_ksyms;
	struct src_backend src;		/* .lookup NULL: kallsyms only */
	__u64 kaslr_offset;		/* runtime - link-time address */
	bool inlines;			/* keep inlined frames (-ss); else only the innermost */
	bool user_inlines;		/* the same for user-space addresses */
	bool no_user_lines;		/* -sn: user-space addresses get symbols only */
	log_print_fn print;		/* failures of kallsyms or the source backend */
	/*
	 * User space: the sidecar to open images in (borrowed; NULL: one is started when the
	 * first process is added), and where debug files are (NULL: /usr/lib/debug).
	 */
	struct addr2line *sidecar;
	const char *debug_root;
	const char *sidecar_path;	/* tests: run this sidecar binary */
	const char *proc_root;		/* tests: NULL: /proc */
};

struct symbolize;

struct symbolize *symbolize__new(const struct symbolize_opts *opts);
void symbolize__free(struct symbolize *s);

/*
 * True when the early table answers for the kernel's own text (it has _stext and _etext):
 * only other addresses need the fresh read.
 */
bool symbolize__early_text(const struct symbolize *s);

/*
 * Start reading kallsyms on a helper thread (no-op if given or already read); lookups
 * wait for it. Call after attaching. 0, or a negative errno (lookups then read it).
 */
int symbolize__prefetch(struct symbolize *s);

/*
 * A kernel symbol known without kallsyms: one of our own BPF programs (prog_ksym.h),
 * which a stack unwound from the task shows first; lookups in it never wait for the
 * kallsyms read. 0 or -ENOMEM.
 */
int symbolize__add_ksym(struct symbolize *s, const struct prog_ksym *k);

/*
 * Snapshot process @pid's executable mappings and open the files behind them now, so that
 * its addresses resolve even after it exits (usyms__add_process()). 0 or -errno.
 */
int symbolize__add_process(struct symbolize *s, __u32 pid, const struct user_mapping *maps,
			   size_t cnt);
/* The file behind @m of @pid held open now, while it lives (usyms__hold_file()). */
int symbolize__hold_file(struct symbolize *s, __u32 pid, const struct user_mapping *m);

/* The user-space part, NULL until the first process is added (for the unwinder). */
struct usyms *symbolize__usyms(struct symbolize *s);

/* The resolver to hand to the sample builder; valid while @s lives. */
struct sym_resolver symbolize__resolver(struct symbolize *s);

/* True once the source backend failed and lookups fell back to kallsyms only. */
bool symbolize__degraded(const struct symbolize *s);

#endif
