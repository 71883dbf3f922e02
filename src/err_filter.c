// SPDX-License-Identifier: BSD-2-Clause
#include "errnos.h"
#include "err_filter.h"
#include "result_fmt.h"

bool err_filter__pass(const struct err_filter *f, const struct sample *s)
{
	bool allowed = !f->allowed;
	size_t i;

	/* a probe's sample shows where the probe fired, whatever the errors */
	if (s->kind == SAMPLE_PROBE || !s->is_err || (!f->allowed && !f->denied))
		return true;
	for (i = 0; i < s->frame_cnt; i++) {
		const struct sample_frame *fr = &s->frames[i];
		__s64 res;
		int err;

		if (fr->func_id < 0 || !fr->failed)
			continue;
		res = result__normalize(fr->res, sample__func(s, fr->func_id)->flags);
		err = res == 0 ? 0 : (int)-res;
		if (err < 0 || err > ERRNO_NAME_MAX)
			continue;
		if (f->denied && f->denied[err])
			return false;
		if (f->allowed && f->allowed[err])
			allowed = true;
	}
	return allowed;
}
