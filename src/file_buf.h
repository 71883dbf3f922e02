/* SPDX-License-Identifier: BSD-2-Clause */
/* Whole-file text buffers for the /proc and tracefs parsers. */
#ifndef RETSNOOP_FILE_BUF_H
#define RETSNOOP_FILE_BUF_H

#include <stddef.h>

/*
 * Read @path to EOF into a NUL-terminated buffer (proc and tracefs files report size 0,
 * so the size is never trusted). 0 with the buffer and its length set, or a negative errno.
 */
int file_buf__read(const char *path, char **buf, size_t *len);

/* NUL-terminated copy of @len bytes of @text, or NULL (errno ENOMEM). */
char *file_buf__dup(const char *text, size_t len);

#endif
