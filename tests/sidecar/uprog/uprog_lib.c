// SPDX-License-Identifier: BSD-2-Clause
/*
 * The test program's shared library: reports a return address into its caller, and one
 * inside a helper inlined into it, so that a lookup has an inline chain to show.
 */
#include "uprog_lib.h"

__attribute__((noinline)) static void lib_mark(void (*out)(const char *what, void *addr))
{
	out("lib_inner_ret", __builtin_return_address(0));
	__asm__ volatile("" ::: "memory");
}

static inline __attribute__((always_inline)) void lib_inner(void (*out)(const char *, void *))
{
	lib_mark(out);
	/* keeps the call above from being a tail call: its return address stays in here */
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void uprog_lib_report(void (*out)(const char *what, void *addr))
{
	out("lib_ret", __builtin_return_address(0));
	lib_inner(out);
	__asm__ volatile("" ::: "memory");
}
