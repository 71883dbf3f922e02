/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The DWARF vmlinux behind symbolization: where to find it, whether it is the image of the
 * running kernel (GNU build ID), and where its .text was linked (for the KASLR offset).
 */
#ifndef RETSNOOP_KERNEL_IMAGE_H
#define RETSNOOP_KERNEL_IMAGE_H

#include <stddef.h>
#include <linux/types.h>
#include "log.h"

#define BUILD_ID_MAX 64

/*
 * Search the standard locations for kernel @release (uname -r); 0 and @path filled, or
 * -ENOENT. With @verbose, print each candidate that is missing.
 */
int kernel_image__find(const char *release, char *path, size_t path_sz, log_print_fn print);

/* GNU build ID of an ELF file; returns its length or a negative errno (-ENOENT: none). */
int kernel_image__build_id(const char *path, unsigned char *id, size_t id_sz);

/* GNU build ID inside an ELF notes blob such as /sys/kernel/notes; length or -ENOENT. */
int kernel_image__notes_build_id(const void *notes, size_t len, unsigned char *id, size_t id_sz);

/* Build ID of the running kernel, from /sys/kernel/notes. */
int kernel_image__running_build_id(unsigned char *id, size_t id_sz);

/* Link-time address of the .text section; 0 or negative errno. */
int kernel_image__text_addr(const char *path, __u64 *addr);

#endif
