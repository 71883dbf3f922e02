/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * -x/-X between the tracer and the run's real sink: the samples the error filter rejects
 * stop here, everything else goes on as is. The tracer and the text and JSON sinks then
 * know nothing of -x/-X; the rule itself is err_filter's.
 */
#ifndef RETSNOOP_SINK_FILTER_H
#define RETSNOOP_SINK_FILTER_H

#include "err_filter.h"
#include "sink.h"

/*
 * A sink that hands @inner the samples @f passes and every lifecycle call. @inner is
 * borrowed: the caller frees it, after this one (it made it, and frees it alone if this
 * fails). @f is copied, not the tables it points to: they must outlive the sink. NULL on
 * failure (errno set).
 */
struct sink *filter_sink__new(struct sink *inner, const struct err_filter *f);

#endif
