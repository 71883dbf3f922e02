/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One way for library-like modules to report: a levelled print callback the caller owns.
 * Levels follow -v counts: -1 errors and 0 warnings (both always shown), 1 -v, 2 -vv,
 * 3 -vvv. Errors and warnings are told apart only where output is machine-read (--json
 * makes each a record of its kind).
 * Modules never print on their own, and their messages don't name command-line flags
 * (only main knows them). A NULL callback is silent, in every module: where text goes is
 * the caller's choice, never a library's.
 */
#ifndef RETSNOOP_LOG_H
#define RETSNOOP_LOG_H

#include <stdarg.h>
#include <stddef.h>

enum log_level {
	LOG_ERROR = -1,		/* what makes the run fail */
	LOG_WARN = 0,		/* what the user should know: warnings, notes */
	LOG_INFO = 1,
	LOG_DEBUG = 2,
	LOG_EXTRA = 3,
};

typedef void (*log_print_fn)(int level, const char *fmt, va_list args);

/*
 * How far a long step is: @stage names it ("attaching", ...), @done of @total units
 * (@total 0: not countable). Called often; the receiver decides what to show and when.
 */
typedef void (*progress_fn)(void *ctx, const char *stage, size_t done, size_t total);

static inline __attribute__((format(printf, 3, 4)))
void log_msg(log_print_fn print, int level, const char *fmt, ...)
{
	va_list args;

	if (!print)
		return;
	va_start(args, fmt);
	print(level, fmt, args);
	va_end(args);
}

#endif
