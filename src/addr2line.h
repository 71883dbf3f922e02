/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Client of the symbolization sidecar (sidecar/PROTOCOL.md): starts the copy of
 * retsnoop-sidecar embedded in this binary from memory and talks to it over a
 * socket pair. Addresses are link-time (KASLR already subtracted by the caller).
 * Every function returns a negative errno on failure; once the sidecar is gone
 * (-EPIPE), every later call fails fast the same way so the caller can degrade.
 *
 * The sidecar lives exactly as long as its client decides: it runs in a session of its
 * own (a Ctrl-C on the terminal does not reach it, so samples drained after one still get
 * source lines), exits when the client closes the connection (addr2line__free()) and is
 * killed by the kernel when the thread that started it dies (PR_SET_PDEATHSIG), so it
 * never outlives retsnoop.
 */
#ifndef RETSNOOP_ADDR2LINE_H
#define RETSNOOP_ADDR2LINE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct addr2line;
#include "code_loc.h"

struct addr2line_opts {
	size_t sz;			/* sizeof(struct addr2line_opts) */
	const char *sidecar_path;	/* run this binary instead of the embedded one */
	int timeout_ms;			/* per reply; 0 = 60 s (cold vmlinux in a slow VM) */
	/*
	 * Interrupts a call waiting for a reply: when *cancel changes value during the wait
	 * (a signal handler sets or increments it), the call returns -EINTR within 50 ms, at
	 * once if the signal interrupted the wait. Only a change during the call counts, so
	 * a flag that stays set does not fail later calls; those first skip the interrupted
	 * reply. NULL: only addr2line__interrupt() interrupts.
	 */
	const volatile sig_atomic_t *cancel;
};

struct addr2line_stats {
	unsigned long long cus_indexed;	/* compile units indexed so far */
	double index_ms;		/* indexing them (DIE scans) */
	double lines_ms;		/* line-table lookups, including decoding */
	unsigned long long requests;	/* symbolization requests served */
	unsigned long long cache_hits;	/* of those, answered from its reply cache */
};

/*
 * Start the sidecar on @elf_path (a DWARF vmlinux, or any ELF; NULL: none, for images
 * only). NULL with errno set on failure: the sidecar's own errno when it cannot open the
 * file (ENOENT, ENOEXEC, ...), EOPNOTSUPP when no sidecar is embedded and none is given. The
 * sidecar drops root and capabilities and runs under a seccomp filter before its first
 * request (sidecar/sandbox.h): it reads only what is handed to it.
 */
struct addr2line *addr2line__new(const char *elf_path, const struct addr2line_opts *opts);
void addr2line__free(struct addr2line *a);

/* PID of the sidecar process (for "-v" output, and to keep it out of tracing). */
int addr2line__pid(const struct addr2line *a);

/*
 * Make the call waiting for a reply on @a (if any) return -EINTR promptly, as a change of
 * opts.cancel does. Async-signal-safe: meant for a signal handler.
 */
void addr2line__interrupt(struct addr2line *a);

/* The sidecar's counters so far. */
int addr2line__stats(struct addr2line *a, struct addr2line_stats *st);

/*
 * Frames of @addr, outermost first; the last is where @addr itself is. Returns
 * the count (0 when nothing is known, or @addr is outside the image's code).
 * Strings stay valid until the next call on @a.
 */
int addr2line__symbolize(struct addr2line *a, __u64 addr, struct src_frame *frames, int max);

/* A binary or library opened in the sidecar (addr2line__open_image()). */
struct addr2line_image {
	int id;				/* >= 1 */
	char build_id[129];		/* lowercase hex, "" if none */
	const char *debuglink;		/* .gnu_debuglink name, NULL if none; valid until the next call */
	bool dwarf;			/* DWARF of its own */
	bool symtab;			/* a full .symtab, not only .dynsym */
};

/*
 * Hand the open file @fd (an ELF binary or library; the caller keeps its own copy) to the
 * sidecar as a new image. @label names it in messages. Fails with the sidecar's errno
 * (-ENOEXEC: not ELF, -EMFILE: too many images, ...).
 */
int addr2line__open_image(struct addr2line *a, int fd, const char *label,
			  struct addr2line_image *img);
/*
 * Attach @fd as image @id's separate debug file. -ESTALE: its build ID (or debuglink CRC)
 * does not match, so it is not used; -ENOKEY: nothing to check it against; -ENODATA: no
 * DWARF in it.
 */
int addr2line__attach_debug(struct addr2line *a, int id, int fd);
int addr2line__close_image(struct addr2line *a, int id);
/*
 * The ELF function symbol covering file offset @off of image @id: *name (NULL if none;
 * valid until the next call), how far into it @off's code is and its size (0: unknown).
 */
int addr2line__image_sym(struct addr2line *a, int id, __u64 off, const char **name,
			 __u64 *delta, __u64 *size);
/* Source frames of file offset @off of image @id, as addr2line__symbolize(). */
int addr2line__image_lines(struct addr2line *a, int id, __u64 off, struct src_frame *frames,
			   int max);

typedef int (*addr2line_func_cb)(void *ctx, const char *func, __u64 addr, const char *file);

/*
 * Call @cb for every function defined in a compile unit whose path matches
 * @glob (fnmatch(3) without FNM_PATHNAME: '*' also crosses '/'). A non-zero
 * return from @cb stops the walk and is returned.
 */
int addr2line__find_by_source_glob(struct addr2line *a, const char *glob, addr2line_func_cb cb,
				   void *ctx);

/*
 * Send an "unwind" request line (ustack_req.h; no newline) to a sidecar started with
 * elf_path "-" (or any other). Returns the reply's line count with *lines pointing at the
 * lines, NUL-separated, valid until the next call; a negative errno from the sidecar's
 * "err" reply or the transport.
 */
int addr2line__unwind(struct addr2line *a, const char *req, char **lines);

/* Adapter for struct src_backend.lookup (symbolize.h): ctx is the struct addr2line. */
int addr2line__src_lookup(void *ctx, __u64 addr, struct src_frame *frames, int max);

#endif
