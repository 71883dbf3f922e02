/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sidecar's "unwind" request (sidecar/PROTOCOL.md), written from a captured user stack
 * (struct rec_ustack) and the process's maps snapshot, and its reply read back into
 * user frames. Pure formatting and parsing: the transport is addr2line.c's.
 */
#ifndef RETSNOOP_USTACK_REQ_H
#define RETSNOOP_USTACK_REQ_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "records.h"

struct proc_maps;

/*
 * The request line (no newline) for @r, @stack_len bytes of stack following it, and @maps;
 * @image_ids[i] is the sidecar's image of mapping i's file (0: none; @image_ids NULL: none
 * at all). 0 with *out malloc()ed, -EINVAL for a record that can't be unwound (no
 * registers, an unknown architecture), -ENOMEM.
 */
int ustack_req__format(const struct rec_ustack *r, size_t stack_len, const struct proc_maps *maps,
		       const int *image_ids, char **out);

/* One frame of the reply, innermost first. Strings point into the parsed line. */
struct ustack_req_frame {
	__u64 pc;
	bool activation;	/* the interrupted instruction, not a return address */
	bool guessed;		/* a return address found by a frame-pointer guess */
	__u64 vaddr;		/* pc in the binary's ELF addresses */
	__u64 file_off;		/* pc's offset in the mapped file */
	const char *build_id;	/* hex, "" if none */
	const char *module;	/* "" if no binary covers pc */
	const char *sym;	/* "" if none */
	__u64 sym_off;
	const char *file;	/* "" if no line */
	int line, col;
	const char *no_lines;	/* why there is no line, "" if there is one */
};

/*
 * Parse one reply line in place (TABs become NULs): 1 and @f filled for a "frame" line, 0
 * and *stop set for a "stop" line, -EINVAL for anything else.
 */
int ustack_req__parse_line(char *line, struct ustack_req_frame *f, const char **stop);

#endif
