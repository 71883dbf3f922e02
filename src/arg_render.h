/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A traced call's captured arguments (struct sample_args) as text, shared by the text
 * views and the JSON sink: "name=value" items for compact mode, "name = value" items for
 * the "› " lines of multiline and verbose modes, each value cut to a width with "…".
 */
#ifndef RETSNOOP_ARG_RENDER_H
#define RETSNOOP_ARG_RENDER_H

#include <stdbool.h>
#include <stdio.h>
#include "arg_fmt.h"
#include "sample.h"

#define ARG_MISSING_TEXT "... data missing ..."

struct arg_render_opts {
	size_t sz;			/* sizeof(struct arg_render_opts) */
	enum args_fmt_mode mode;
	int max_width;			/* display columns per value, 0: no limit (verbose: none) */
	int indent;			/* verbose: the column the "›" line starts at */
};

/* Where argument @i's bytes are in its record. */
struct arg_piece {
	bool has_ptr;			/* @ptr holds the raw pointer value */
	__u64 ptr;
	int len;			/* bytes at @data, or -errno (see struct rec_fnargs) */
	const __u8 *data;
};

/* Argument @i of @a; -EINVAL if the record doesn't hold it (malformed or short). */
int arg_render__piece(const struct sample_args *a, int i, struct arg_piece *pc);

/*
 * How many of @a's arguments are shown: all planned ones, except that a printf-like
 * function shows as many varargs as its captured format string asks for.
 */
int arg_render__shown(const struct sample_args *a);

/* The value of argument @i, without name and width limit (verbose: over several lines). */
void arg_render__value(FILE *out, const struct sample_args *a, int i, bool verbose, int indent);

/*
 * One string per shown argument ("name=value", or "name = value" outside compact mode),
 * or the single "... data missing ..." for a lost record. *strs is malloc()ed, free it
 * with arg_render__free_strs(). 0 or -ENOMEM.
 */
int arg_render__strs(const struct sample_args *a, const struct arg_render_opts *o,
		     char ***strs, int *cnt);
void arg_render__free_strs(char **strs, int cnt);

/* Compact mode: all items joined by spaces; malloc()ed, NULL on -ENOMEM. */
char *arg_render__compact(const struct sample_args *a, const struct arg_render_opts *o);

/* Display columns of UTF-8 text @s (continuation bytes take none). */
int arg_render__cols(const char *s);

#endif
