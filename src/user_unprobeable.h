/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * User-space functions a probe breaks. By name: their entry's stack slot (arm64: the link
 * register) holds no return address, or they return a second time through the one they
 * saved; the kernel puts its return trampoline's address there, and the program crashes
 * (or quietly goes wrong) when the function uses or returns through it again. By code: a
 * first instruction the kernel's uprobes execute wrongly, or one every kernel tried refuses.
 */
#ifndef RETSNOOP_USER_UNPROBEABLE_H
#define RETSNOOP_USER_UNPROBEABLE_H

#include <stddef.h>

/* Why function @name can't take a return probe, or NULL when it can. */
const char *user_unprobeable__why(const char *name);

/*
 * Why a function whose first @len bytes of code are @code can't take a probe at its
 * entry (the kernel steps that instruction out of line and gets it wrong), or NULL.
 * Code of the machine retsnoop runs on.
 */
#define USER_UNPROBEABLE_CODE_LEN 16	/* the longest x86 instruction, and then some */
const char *user_unprobeable__code_why(const unsigned char *code, size_t len);

/*
 * Why the kernel will refuse a probe on a function whose first @len bytes of code are
 * @code (uprobe registration fails with ENOTSUPP), or NULL when it may take it. Only
 * what it refuses for certain: anything else is left to its own verdict at attach time.
 */
const char *user_unprobeable__code_refused(const unsigned char *code, size_t len);

#endif
