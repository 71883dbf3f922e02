/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Test helpers: records -> sample builder -> one text view, as a string. The records are
 * what BPF would send; the sample goes through the same code as in a live run.
 */
#ifndef RETSNOOP_SAMPLE_HARNESS_H
#define RETSNOOP_SAMPLE_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include "render.h"
#include "sample.h"

typedef int (*view_fn)(FILE *out, const struct sample *s, const struct text_sink_opts *o);

/* Build a sample from @r with @b and render it with @view (NULL: the whole sample). */
static inline char *harness_render(const struct sess_recs *r, const struct sample_build_opts *b,
				   const struct text_sink_opts *t, view_fn view)
{
	struct sample *s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(sample__build(r, b, &s), 0);
	if (view)
		assert_int_equal(view(f, s, t), 0);
	else
		assert_int_equal(render_text__sample(f, s, t), 0);
	sample__free(s);
	fclose(f);
	return buf;
}

/* A session with only an end record (and empty start). */
static inline char *harness_render_end(const struct func *funcs, size_t func_cnt,
				       struct sym_resolver syms,
				       const struct rec_session_end *e,
				       const struct text_sink_opts *t, view_fn view)
{
	struct rec_session_start st = {};
	struct sess_recs r = { .start = &st, .end = e };
	struct sample_build_opts b = {
		.sz = sizeof(b), .funcs = funcs, .func_cnt = func_cnt, .syms = syms,
		.trace = t->func_trace, .lbr = t->lbr,
	};

	return harness_render(&r, &b, t, view);
}

#endif
