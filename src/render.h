/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The text sink's views, each its own module over the decoded sample: the stack view
 * (render_stack.c), the -T call trace (render_trace.c) and the LBR records (render_lbr.c),
 * with the symbol and source cells they share (render_sym.c).
 */
#ifndef RETSNOOP_RENDER_H
#define RETSNOOP_RENDER_H

#include <stdio.h>
#include "sample.h"
#include "view.h"

/* "name+0xoff" (or "0xaddr"), with the raw address first under stacks.emit-addrs. */
void render__fmt_sym(char *buf, size_t sz, const struct code_loc *loc, bool filtered,
		     const struct view_opts *v);
/* "(file:line:col)", or "(func @ file:line:col)" when DWARF names another function. */
void render__fmt_loc(char *buf, size_t sz, const struct src_frame *f, const char *ksym);
/* The indent of an inline line's ". name" (wider under stacks.emit-addrs). */
const char *render__inline_indent(const struct view_opts *v);

/* Whole sample: header, views, drop warning, two blank lines. */
int render_text__sample(FILE *out, const struct sample *s, const struct view_opts *v);
int render_stack(FILE *out, const struct sample *s, const struct view_opts *v);
/* -U: the user frames alone, in the stack view's columns (the -T view's header) */
int render_ustack(FILE *out, const struct sample *s, const struct view_opts *v);
int render_trace(FILE *out, const struct sample *s, const struct view_opts *v);
int render_lbr(FILE *out, const struct sample *s, const struct view_opts *v);

#endif
