/* SPDX-License-Identifier: BSD-2-Clause */
/* From a parsed command line and discovered functions to a tracing run. */
#ifndef RETSNOOP_TRACE_CMD_H
#define RETSNOOP_TRACE_CMD_H

#include "env.h"

struct func_discovery;

struct kernel_features;

/* Feature detection plus retsnoop's hard requirement (ringbuf); 0 or a negative errno. */
int trace_cmd__detect(struct kernel_features *feat);

struct vmlinux_dwarf;

/*
 * Trace the functions @d found, as @env asks, until SIGINT/SIGTERM; 0 or negative errno.
 * @vd (may be NULL: kallsyms only) adds source lines and inlined frames.
 */
int trace_cmd__run(const struct env *env, const struct func_discovery *d,
		   const struct kernel_features *feat, struct vmlinux_dwarf *vd);

#endif
