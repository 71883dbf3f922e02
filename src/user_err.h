/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * When a user-space function's result is an error: one definition for BPF
 * (src/err_chain.bpf.h) and user space (result__is_err()), so the stack view, -T and the
 * session's error chain can never disagree. Kernel functions have their own rule.
 *
 * By type (FUNC_* flags from DWARF): any negative number (-1 is the usual error, not
 * only -4095..-1), a pointer when NULL (no ERR_PTR() in user space), an 8-byte unsigned
 * number (size_t) in -4095..-1 as the kernel's unsigned long. By the glob's rule:
 * =errno-positive any non-zero int, =le0 zero or a negative int, =false zero (a whole
 * register for pointers, the low 32 bits otherwise). Without a type: negative as 64 bits,
 * or as 32 bits with the upper half zero (an int -1 in a zero-extended register), so a
 * pointer's low half never counts.
 */
#ifndef RETSNOOP_USER_ERR_H
#define RETSNOOP_USER_ERR_H

#include "records.h"

static inline __attribute__((always_inline)) bool user_err__is_err(__u32 flags, __s64 res)
{
	if (flags & FUNC_ERR_NONZERO)
		return (__s32)res != 0;
	if (flags & FUNC_ERR_LE0)
		return (__s32)res <= 0;
	if (flags & FUNC_ERR_ZERO)
		return (flags & FUNC_RET_PTR) ? res == 0 : (__u32)res == 0;
	if (flags & FUNC_ERR_GUESS)
		return res < 0 || ((__u64)res >> 32 == 0 && (__s32)res < 0);
	if (flags & FUNC_RET_PTR)
		return res == 0;
	if (flags & FUNC_NEEDS_SIGN_EXT)
		return (__s32)res < 0;
	if (flags & FUNC_ERR_RANGE)
		return res >= -MAX_ERRNO && res < 0;
	return res < 0;
}

#endif
