/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared between the parts of the sample builder (sample_build.c, sample_stack.c). */
#ifndef RETSNOOP_SAMPLE_INTERNAL_H
#define RETSNOOP_SAMPLE_INTERNAL_H

#include "sample.h"
#include "sample_pool.h"

enum src_at {
	SRC_NONE,
	SRC_AT_ADDR,		/* an exact code address (function start, branch end) */
	SRC_AT_CALL,		/* a return address: the call instruction just before it */
};

/*
 * Fill @loc for @addr in address space @as: its image, its symbol and, when it has one,
 * the source frames @at says. -ENOMEM or 0.
 */
int sample__resolve(struct sample *s, const struct sample_build_opts *o,
		    const struct addr_space *as, struct code_loc *loc, __u64 addr, enum src_at at);
/* Source lines of @loc by its image path and file offset (traced user functions). */
int sample__resolve_image(struct sample *s, const struct sample_build_opts *o,
			  struct code_loc *loc);

/*
 * A recorded function id as the model keeps it: ids past the table (a corrupt or foreign
 * record) all become the table's size, which func__get() names "<unknown>".
 */
static inline int sample__func_id(const struct sample *s, __u32 id)
{
	return id < s->func_cnt ? (int)id : (int)s->func_cnt;
}

/* Build s->frames (and s->deepest) from the session's call stack and kernel stack. */
int sample__build_stack(struct sample *s, const struct rec_session_end *e,
			const struct sample_build_opts *o);

/* -A: attach each traced frame's and call-trace row's arguments (sample_args.c). */
int sample__build_args(struct sample *s, const struct sess_recs *r,
		       const struct sample_build_opts *o);

#endif
