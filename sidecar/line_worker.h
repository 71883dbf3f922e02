/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One helper thread that decodes a CU's line table while the caller scans the same CU's
 * DIEs: a cold CU then costs the longer of the two instead of their sum. Only the own
 * decoder (lines.c) runs on the thread; libdw stays on the caller's.
 */
#ifndef __SIDECAR_LINE_WORKER_H
#define __SIDECAR_LINE_WORKER_H

#include <stdint.h>

#include "lines.h"

struct line_worker;

/* NULL when no thread can be started; callers then decode in line. */
struct line_worker *line_worker__new(const struct line_sects *sec);
void line_worker__free(struct line_worker *w);

/* Start decoding the line program at @off into @lt; one job at a time. */
void line_worker__submit(struct line_worker *w, struct line_table *lt, uint64_t off);
/* Wait for the submitted job; line_table__load()'s result. */
int line_worker__wait(struct line_worker *w);

#endif /* __SIDECAR_LINE_WORKER_H */
