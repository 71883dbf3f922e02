/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The context of injected probes (-J with -T -A): what a probe's hit shows next to its
 * row, planned once per probe from the kernel's BTF like a function's arguments are
 * (struct func_arg_plan), every piece read from the probe's context at the hit
 * (FNARG_CTX, FNARG_CTX_DATALOC):
 *
 *   kprobe, kretprobe	the whole struct pt_regs, as "regs";
 *   tp:		the fields of the event's record (struct trace_event_raw_<class>)
 *			after the common header, up to the variable-size tail, bitfields
 *			left out; __data_loc fields as the strings they locate;
 *   rawtp:		the tracepoint's arguments, named as __traceiter_<name> names
 *			them (else "arg").
 *
 * A tracepoint's class is found by name (trace_event_raw_<name>) or else as the record
 * struct whose fields are the event's, name and offset, as tracefs describes them.
 */
#ifndef RETSNOOP_PROBE_CTX_H
#define RETSNOOP_PROBE_CTX_H

#include <stddef.h>
#include "arg_plan.h"
#include "probe_spec.h"

struct btf;

/*
 * Plan probe @p's context from @btf (vmlinux). 0, or -ENOENT when @btf doesn't describe
 * it (no context is captured then: @out has no pieces).
 */
int probe_ctx__plan(const struct probe_spec *p, const struct btf *btf,
		    const struct arg_limits *lim, struct func_arg_plan *out);

/*
 * The plans of a run's probes, by probe id; a probe @btf doesn't describe has an empty
 * plan. The plans point into @btf, which must outlive them. NULL with errno set.
 */
struct arg_plans *probe_ctx__plans(const struct probe_spec *probes, size_t cnt,
				   const struct btf *btf, const struct arg_limits *lim);

#endif
