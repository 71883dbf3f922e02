/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A user-space image's separate debug file (what a distribution's -dbgsym/-dbg package or
 * `objcopy --only-keep-debug` makes): its full symbol table and DWARF live there once the
 * binary is stripped. One place knows where such a file may be and when it belongs to the
 * image, for everything that wants it: function globs (the .symtab), source globs and
 * return types (the DWARF), and the sidecar's symbolization of user frames.
 *
 * Where, in the order gdb and elfutils look: /usr/lib/debug/.build-id/XX/REST.debug for the
 * image's GNU build ID, then the .gnu_debuglink name next to the image, in its .debug/
 * directory, and under /usr/lib/debug/ followed by the image's directory.
 */
#ifndef RETSNOOP_DEBUG_FILE_H
#define RETSNOOP_DEBUG_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

struct debug_file_opts {
	size_t sz;
	const char *root;	/* NULL: /usr/lib/debug */
	/*
	 * The image's owner. retsnoop runs as root and opens names next to a binary that user
	 * controls (a symlink there could point anywhere): a candidate that neither everyone
	 * nor that owner can read is skipped. Only read when owner_set; else the image's file
	 * is stat()ed for it.
	 */
	uid_t owner;
	bool owner_set;
};

/*
 * Called with each candidate that exists, is a regular file and passes the owner rule,
 * opened read-only as @fd (closed after the call) at @path. Return 0 to go on, anything
 * else to stop with that value.
 */
typedef int (*debug_file_fn)(int fd, const char *path, void *ctx);

/*
 * Offer the candidates of image @image (its path; @build_id as lower-case hex or NULL,
 * @debuglink its .gnu_debuglink name or NULL) to @cb in order. Returns @cb's first
 * non-zero result, 0 if it took none, -EINVAL for bad opts.
 */
int debug_file__for_each(const char *image, const char *build_id, const char *debuglink,
			 debug_file_fn cb, void *ctx, const struct debug_file_opts *opts);

/*
 * The first candidate that belongs to the image: the same build ID, or for an image
 * without one, the CRC its .gnu_debuglink records (@crc). Its path goes to @out. 0,
 * -ENOENT if there was none, -ESTALE if every one found belongs to another build.
 */
int debug_file__find(const char *image, const char *build_id, const char *debuglink,
		     __u32 crc, char *out, size_t out_sz, const struct debug_file_opts *opts);

/*
 * One image's debug file, looked for once by whoever needs it first: function globs want
 * a stripped image's .symtab, return types and source globs its DWARF, and each lookup
 * reads every candidate's build ID. Zero-initialize; debug_file_cache__free() at the end.
 */
struct debug_file_cache {
	bool looked;
	int err;		/* debug_file__find()'s result */
	char *path;		/* found (err 0): the file */
	unsigned int lookups;	/* how many lookups ran: at most one */
};

/*
 * debug_file__find() for @c's image, run only the first time: the same result and path
 * (@path, valid until debug_file_cache__free(); NULL on error) every time. -ENOMEM is
 * not kept: a later call looks again.
 */
int debug_file__cached(struct debug_file_cache *c, const char *image, const char *build_id,
		       const char *debuglink, __u32 crc, const struct debug_file_opts *opts,
		       const char **path);
void debug_file_cache__free(struct debug_file_cache *c);

#endif
