/* SPDX-License-Identifier: BSD-2-Clause */
/* Kernel errno names: the table retsnoop renders results with and parses -x/-X values from. */
#ifndef RETSNOOP_ERRNOS_H
#define RETSNOOP_ERRNOS_H

/* Largest errno with a name (ERECALLCONFLICT). */
#define ERRNO_NAME_MAX 530

/*
 * Name of positive errno @err ("EINVAL"), or NULL when the kernel has no name for it.
 * errno__name(0) is "NULL": retsnoop uses 0 for "returned a NULL pointer".
 */
const char *errno__name(int err);

/*
 * Parse an error name as given to -x/-X: "EINVAL", "-EINVAL" or "NULL" (case-sensitive).
 * Returns the positive errno (0 for NULL) or -ENOENT for an unknown name.
 */
int errno__parse(const char *name);

#endif
