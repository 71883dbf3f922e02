/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unwinding of a captured user-space stack: registers as the kernel saved them at the
 * thread's kernel entry, a window of the stack from the stack pointer up, and the
 * process's mappings, all taken earlier by someone else (retsnoop's BPF side and its maps
 * snapshot). The live process is never touched: every memory read is answered from the
 * window. The call frame information comes from each mapped binary's .eh_frame or
 * .debug_frame (elfutils' libdwfl), so frame pointers are not needed.
 *
 * The binaries are whatever the traced process mapped: untrusted input, hence this lives
 * in the sidecar. Pure API: no printing, no global state.
 */
#ifndef __SIDECAR_UNWIND_H
#define __SIDECAR_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum unwind_arch {
	UNWIND_ARCH_X86_64 = 1,		/* regs: struct pt_regs order, r15 first (21 words) */
	UNWIND_ARCH_ARM64 = 2,		/* regs: struct user_pt_regs (34 words) */
};

/* One line of the process's maps. */
struct unwind_map {
	uint64_t start, end, pgoff;
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	bool exec;
	const char *path;		/* NULL: anonymous */
	int image_id;			/* the client's image of the file (open_image), 0: none */
};

#define UNWIND_PAGE	4096	/* the unit of unwind_input's holes */

struct unwind_input {
	enum unwind_arch arch;
	int pid;
	const uint64_t *regs;
	size_t reg_cnt;
	uint64_t sp;			/* address of stack[0] */
	const uint8_t *stack;
	size_t stack_len;
	/*
	 * Pages of the window that were not in memory when it was captured (bit i: the i-th
	 * UNWIND_PAGE-sized page from sp's): their bytes are no data, a read there fails.
	 */
	uint32_t holes;
	const struct unwind_map *maps;	/* ascending, as in /proc/PID/maps */
	size_t map_cnt;
};

struct unwind_opts {
	size_t sz;			/* sizeof(struct unwind_opts) */
	size_t max_frames;		/* 0: 128 */
	bool symbolize;			/* also func+off and file:line:col of each frame */
	/*
	 * A new descriptor of mapping @m's file (the unwinder owns it), -1 if none. NULL:
	 * open @m's path (tests; the sandboxed sidecar can't open files).
	 */
	int (*open_image)(void *ctx, const struct unwind_map *m);
	void *ctx;
};

struct unwind_frame {
	uint64_t pc;
	/*
	 * The pc is where the thread stopped (the innermost frame), not a return address:
	 * look it up as is. Otherwise the call is at pc - 1.
	 */
	bool activation;
	/*
	 * A return address found by following the frame pointer, because the frame below
	 * has no unwind information: code, but maybe no real caller.
	 */
	bool guessed;
	const char *module;		/* binary's path; NULL: no mapped file covers pc */
	char build_id[41];		/* hex, "" if none */
	uint64_t vaddr;			/* pc in the binary's own ELF addresses */
	uint64_t file_off;		/* pc's offset in the mapped file */
	const char *sym;		/* ELF symbol covering the call, NULL if none */
	uint64_t sym_off;
	const char *file;		/* DWARF line of the call; NULL if unknown */
	int line, col;
	const char *no_lines;		/* why there is no line: no DWARF found, ... */
};

struct unwind_result {
	struct unwind_frame *frames;	/* innermost first */
	size_t cnt;
	/* why unwinding stopped before the outermost frame; NULL: it reached it */
	const char *stop;
};

struct unwinder;

int unwinder__new(const struct unwind_opts *opts, struct unwinder **out);
void unwinder__free(struct unwinder *u);

/*
 * Unwind @in. 0 with @res filled (it may hold no frames and a stop reason), -EINVAL for
 * input that can't describe a stack, -ENOMEM. Everything @res points to belongs to the
 * unwinder and stays valid until its next run.
 */
int unwinder__run(struct unwinder *u, const struct unwind_input *in, struct unwind_result *res);

#endif /* __SIDECAR_UNWIND_H */
