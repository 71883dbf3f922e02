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

typedef int (*view_fn)(FILE *out, const struct sample *s, const struct view_opts *v);

/*
 * Build a sample from @r with @b and render it with @view (NULL: the whole sample), both as
 * @b->view says: a live run decodes and shows one view.
 */
static inline char *harness_render(const struct sess_recs *r, const struct sample_build_opts *b,
				   view_fn view)
{
	struct sample *s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(sample__build(r, b, &s), 0);
	if (view)
		assert_int_equal(view(f, s, &b->view), 0);
	else
		assert_int_equal(render_text__sample(f, s, &b->view), 0);
	sample__free(s);
	fclose(f);
	return buf;
}

#endif
