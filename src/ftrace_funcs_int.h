/* SPDX-License-Identifier: BSD-2-Clause */
/* The function list's insides, for the image (ftrace_funcs_image.c) and the text parser. */
#ifndef RETSNOOP_FTRACE_FUNCS_INT_H
#define RETSNOOP_FTRACE_FUNCS_INT_H

#include <linux/types.h>
#include "ftrace_funcs.h"

/* An image's entry: offsets into its names */
struct aff_rec {
	__u32 name;
	__u32 module;	/* plus one; 0: vmlinux */
};

struct ftrace_funcs {
	char *buf;			/* parsed text: names and modules point into it */
	struct ftrace_func *funcs;
	size_t cnt;
	/*
	 * From an image (ftrace_funcs__open()): the file mapped, its records and names used
	 * where they are; an entry is made in cur when asked for. NULL for parsed text.
	 */
	void *map;
	size_t map_len;
	const struct aff_rec *recs;
	const char *names;
	struct ftrace_func cur;
};

/* Entry @idx (< cnt) of an image, made in ff->cur */
const struct ftrace_func *ftrace_funcs__image_entry(const struct ftrace_funcs *ff, size_t idx);

#endif
