/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The argument of the "unwind" request (PROTOCOL.md) parsed into an unwinder input. The
 * stack bytes and maps come from the traced process: untrusted, every field checked.
 */
#ifndef __SIDECAR_UNWIND_REQ_H
#define __SIDECAR_UNWIND_REQ_H

#include <stddef.h>
#include "unwind.h"

/* Longest "unwind" request: a 32 KiB window in hex and a large process's maps. */
#define MAX_UNWIND_REQ_LEN (4u << 20)

struct unwind_req {
	struct unwind_input in;		/* points into the fields below */
	uint64_t regs[34];
	uint8_t *stack;
	struct unwind_map *maps;
	size_t maps_owned;		/* maps[] entries whose paths are ours (in may change) */
};

/* Parse @len bytes of @arg. 0 with *out set (unwind_req__free() it), -EINVAL, -ENOMEM. */
int unwind_req__parse(const char *arg, size_t len, struct unwind_req **out);
void unwind_req__free(struct unwind_req *r);

#endif /* __SIDECAR_UNWIND_REQ_H */
