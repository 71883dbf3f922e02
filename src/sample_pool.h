/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The memory of one sample: arrays and strings the builder keeps, freed all at once with
 * the sample (resolver answers are only valid until the next lookup, so they are copied).
 */
#ifndef RETSNOOP_SAMPLE_POOL_H
#define RETSNOOP_SAMPLE_POOL_H

#include <stddef.h>

struct sample_pool;

struct sample_pool *sample_pool__new(void);
void sample_pool__free(struct sample_pool *p);
/* Zeroed, 8-byte aligned; NULL when out of memory. */
void *sample_pool__alloc(struct sample_pool *p, size_t size);
/* A copy of @s (NULL stays NULL); NULL when out of memory. */
const char *sample_pool__strdup(struct sample_pool *p, const char *s);

#endif
