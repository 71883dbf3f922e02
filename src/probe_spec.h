/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Injected probes (-J): one spec names a kernel point whose hits are placed inside the
 * session's call trace. Four kinds:
 *
 *   kprobe:NAME[+OFF]	a kprobe at function NAME (plus OFF bytes, any C integer)
 *   kretprobe:NAME	the return of function NAME
 *   tp:CATEGORY:NAME	a tracepoint (trace event)
 *   rawtp:NAME		a raw tracepoint
 *
 * Plain data: parsing and naming only. A probe's id is its index in the run's list.
 */
#ifndef RETSNOOP_PROBE_SPEC_H
#define RETSNOOP_PROBE_SPEC_H

#include <stddef.h>

enum probe_kind {
	PROBE_KPROBE,
	PROBE_KRETPROBE,
	PROBE_TP,
	PROBE_RAWTP,
};

#define PROBE_KIND_CNT 4

struct probe_spec {
	enum probe_kind kind;
	char *spec;		/* as given */
	char *category;		/* tp: the event's category (system), else NULL */
	char *name;		/* function (kprobes) or tracepoint name */
	unsigned long offset;	/* kprobe: bytes into the function */
	/* the trace table's name: "kprobe:NAME+0xOFF", "kretprobe:NAME", "tp:CAT:NAME", ... */
	char *display;
};

/* What every valid spec looks like, for error messages. */
#define PROBE_SPEC_FORMATS "kprobe:NAME[+OFF], kretprobe:NAME, rawtp:NAME or tp:CATEGORY:NAME"

/*
 * Parse @s into @out (probe_spec__free() it). 0, -EINVAL for anything but the four forms
 * (empty or badly spelled names included), -ENOMEM. @out is untouched on failure.
 */
int probe_spec__parse(const char *s, struct probe_spec *out);
void probe_spec__free(struct probe_spec *p);

/* "kprobe", "kretprobe", "tp", "rawtp". */
const char *probe_kind__str(enum probe_kind kind);

/* Probe @id of a list of @cnt: its display name, or "<unknown probe>". */
const char *probe_spec__display(const struct probe_spec *probes, size_t cnt, int id);

#endif
