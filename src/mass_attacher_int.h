/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The mass attacher's parts, shared between its files; not part of its API. Injected
 * probes (mass_attacher_inject.c) are a small set of their own: a handful of perf-event
 * or raw-tracepoint links, attached before the traced functions and detached with them.
 */
#ifndef RETSNOOP_MASS_ATTACHER_INT_H
#define RETSNOOP_MASS_ATTACHER_INT_H

#include "mass_attacher.h"

struct ma_injects;

struct ma_injects *ma_injects__new(void);
void ma_injects__free(struct ma_injects *in);
int ma_injects__add(struct ma_injects *in, const struct probe_spec *spec, __u64 cookie);
size_t ma_injects__cnt(const struct ma_injects *in);
/* Can this kernel tell the probes apart (cookies)? -EOPNOTSUPP after a LOG_WARN message. */
int ma_injects__plan(const struct ma_injects *in, const struct mass_attacher_opts *o);
/* Load only the programs of the kinds used (the others may not even verify here). */
void ma_injects__prepare(const struct ma_injects *in, const struct mass_attacher_progs *p);
/* Attach every probe, in order; on failure one LOG_WARN line names it (the caller detaches). */
int ma_injects__attach(struct ma_injects *in, const struct mass_attacher_progs *p,
		       log_print_fn print);
void ma_injects__detach(struct ma_injects *in);

/* The kprobe PMU's perf event type and the config bit that makes it a kretprobe. */
int ma__kprobe_pmu(int *type, int *ret_bit);

#endif
