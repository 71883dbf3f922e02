/* SPDX-License-Identifier: BSD-2-Clause */
/* How a traced function's raw 64-bit return value is shown: [-EINVAL], [NULL], [0x...], [5]. */
#ifndef RETSNOOP_RESULT_FMT_H
#define RETSNOOP_RESULT_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* Interpret @res as the function with FUNC_* @flags returned it (sign extension, typing). */
__s64 result__normalize(__s64 res, __u32 flags);

/* True if @res counts as a failure for a function with @flags. */
bool result__is_err(__s64 res, __u32 flags);

/* Render "[...]" for @res into @buf; returns the length snprintf() would have produced. */
int result__format(char *buf, size_t size, __s64 res, __u32 flags);
/*
 * The same with the errno of a syscall that failed inside a user-space function beside
 * its result ("[-1 ENOENT]"); @sys_err 0: as result__format().
 */
int result__format_sys(char *buf, size_t size, __s64 res, __u32 flags, int sys_err);

#endif
