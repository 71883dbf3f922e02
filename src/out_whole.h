/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A record (a sample, a JSON line) written to an output in one write(2). The command
 * `retsnoop -- CMD` runs shares our standard output: stdio flushes a long line in
 * buffer-sized pieces, and CMD's output landed between them, inside a JSON line (a -T
 * sample's line is tens of kilobytes). One write of the whole record puts CMD's output
 * only between records, on a file or a terminal, whose writes the kernel doesn't interleave.
 */
#ifndef RETSNOOP_OUT_WHOLE_H
#define RETSNOOP_OUT_WHOLE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Write @len bytes of @buf to @out after what @out's buffer holds: one write(2) where @out
 * has a descriptor (more only if the kernel takes less), stdio where it has none (a memory
 * stream). 0 or a negative errno.
 */
int out_whole__write(FILE *out, const char *buf, size_t len);

#endif
