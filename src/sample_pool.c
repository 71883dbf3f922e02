// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>
#include <string.h>
#include "sample_pool.h"

#define CHUNK_SIZE	(16 * 1024)

struct chunk {
	struct chunk *next;
	size_t used, size;
	char data[];
};

struct sample_pool {
	struct chunk *head;
};

struct sample_pool *sample_pool__new(void)
{
	return calloc(1, sizeof(struct sample_pool));
}

void sample_pool__free(struct sample_pool *p)
{
	struct chunk *c, *next;

	if (!p)
		return;
	for (c = p->head; c; c = next) {
		next = c->next;
		free(c);
	}
	free(p);
}

void *sample_pool__alloc(struct sample_pool *p, size_t size)
{
	struct chunk *c = p->head;
	void *mem;

	size = (size + 7) & ~(size_t)7;
	if (!c || c->size - c->used < size) {
		size_t csize = size > CHUNK_SIZE ? size : CHUNK_SIZE;

		c = malloc(sizeof(*c) + csize);
		if (!c)
			return NULL;
		c->used = 0;
		c->size = csize;
		/* a big one-off array goes behind the current chunk, which keeps its room */
		if (p->head && csize > CHUNK_SIZE) {
			c->next = p->head->next;
			p->head->next = c;
		} else {
			c->next = p->head;
			p->head = c;
		}
	}
	mem = c->data + c->used;
	c->used += size;
	memset(mem, 0, size);
	return mem;
}

const char *sample_pool__strdup(struct sample_pool *p, const char *s)
{
	size_t len;
	char *d;

	if (!s)
		return NULL;
	len = strlen(s) + 1;
	d = sample_pool__alloc(p, len);
	if (d)
		memcpy(d, s, len);
	return d;
}
