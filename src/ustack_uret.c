// SPDX-License-Identifier: BSD-2-Clause
/*
 * Putting traced calls' return addresses back into a user stack capture (ustack_uret.h).
 * A return probe's trampoline word belongs to the pending probe with the lowest stack
 * address at or above it: on x86-64 the word is at that address (the stack pointer at the
 * traced function's entry, where the call put its return address); on arm64 the link
 * register took it, and the function's frame record saved it somewhat below its entry
 * stack pointer, above the next traced callee's. Chained probes (a traced function
 * tail-called from another) share one word and carry the same original.
 */
#include <stdbool.h>
#include <string.h>
#include "ustack_uret.h"

#define ARM64_LR	30

static bool orig_for(const struct rec_ustack *r, __u64 addr, __u64 *orig)
{
	__u32 i, n = r->uret_cnt < USTACK_MAX_URETS ? r->uret_cnt : USTACK_MAX_URETS;
	bool found = false;
	__u64 best = 0;

	for (i = 0; i < n; i++) {
		if (r->uret[i].stack < addr || (found && r->uret[i].stack >= best))
			continue;
		best = r->uret[i].stack;
		*orig = r->uret[i].orig_ret;
		found = true;
	}
	return found;
}

size_t ustack_uret__restore(struct rec_ustack *r, size_t stack_len)
{
	__u64 w, orig, tramp = r->uret_tramp;
	size_t off, n = 0;

	if (!tramp || !r->uret_cnt)
		return 0;
	if (stack_len > r->stack_len)
		stack_len = r->stack_len;
	/* a leaf's (or a prologue's) return address still in the link register */
	if (r->arch == USTACK_ARCH_ARM64 && r->reg_cnt > ARM64_LR && r->regs[ARM64_LR] == tramp &&
	    orig_for(r, r->sp, &orig)) {
		r->regs[ARM64_LR] = orig;
		n++;
	}
	for (off = (8 - (r->sp & 7)) & 7; off + 8 <= stack_len; off += 8) {
		memcpy(&w, r->stack + off, 8);
		if (w != tramp || !orig_for(r, r->sp + off, &orig))
			continue;
		memcpy(r->stack + off, &orig, 8);
		n++;
	}
	return n;
}
