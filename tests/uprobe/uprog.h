/* SPDX-License-Identifier: BSD-2-Clause */
/* The uprobe test program's shared library (libuprog.so). */
#ifndef UPROG_H
#define UPROG_H

/* open() @path read-only and close it: 0, or -1 with errno (ENOENT for a missing file) */
int uprog_lib_probe(const char *path);
/* an alias of uprog_lib_probe: aliases are traced once */
int uprog_lib_probe_alias(const char *path);

#endif
