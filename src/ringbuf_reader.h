/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The consumer side of a BPF ring buffer map, with its data pages mapped once.
 *
 * libbpf's ring_buffer maps the data area twice in a row so that a record wrapping
 * around the end reads as one piece; the kernel maps every page at mmap() time, so the
 * second copy counts in full towards our resident set (16 MB for the default 8 MB
 * buffer). Here the area is mapped once and the rare wrapping record is copied out.
 * Same contract as ring_buffer__poll()/__consume(): a callback's negative return stops
 * the read and is returned, its record counted as consumed.
 */
#ifndef RETSNOOP_RINGBUF_READER_H
#define RETSNOOP_RINGBUF_READER_H

#include <stddef.h>

typedef int (*ringbuf_sample_fn)(void *ctx, void *data, size_t size);

struct ringbuf_reader;

/* Reader of the BPF_MAP_TYPE_RINGBUF map @map_fd; NULL with errno set on failure. */
struct ringbuf_reader *ringbuf_reader__new(int map_fd, ringbuf_sample_fn fn, void *ctx);
/*
 * Reader of a ring laid out in memory the caller owns (the unit tests): @consumer_pos and
 * @producer_pos as the kernel's first two pages begin, @data of @size bytes (a power of
 * two). Polling it only consumes.
 */
struct ringbuf_reader *ringbuf_reader__new_mem(unsigned long *consumer_pos,
					       const unsigned long *producer_pos,
					       const void *data, size_t size,
					       ringbuf_sample_fn fn, void *ctx);
/*
 * Wait up to @timeout_ms (-1: forever) for records and read them all: how many were
 * passed on, or a negative errno (-EINTR when a signal cut the wait short).
 */
int ringbuf_reader__poll(struct ringbuf_reader *r, int timeout_ms);
/* Read what is there without waiting: how many records, or a negative errno. */
int ringbuf_reader__consume(struct ringbuf_reader *r);
void ringbuf_reader__free(struct ringbuf_reader *r);

#endif
