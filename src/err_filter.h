/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * -x/-X: which error samples are reported. Looks at the errors the sample's traced frames
 * returned (only frames that failed: a length of 5 is not EIO).
 */
#ifndef RETSNOOP_ERR_FILTER_H
#define RETSNOOP_ERR_FILTER_H

#include <stdbool.h>
#include "sample.h"

struct err_filter {
	const bool *allowed;	/* -x: indexed by errno 0..ERRNO_NAME_MAX (0 = NULL); NULL: all */
	const bool *denied;	/* -X: same indexing; NULL: none */
};

/*
 * True if @s is to be reported: non-error samples and -I probe samples always are (the
 * success policy is BPF's), error samples when no frame's error is denied and, with -x,
 * one is allowed.
 */
bool err_filter__pass(const struct err_filter *f, const struct sample *s);

#endif
