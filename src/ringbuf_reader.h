/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The consumer side of a BPF ring buffer map, through a window of its data area.
 *
 * The kernel maps every page of a ring buffer mapping at mmap() time, so whatever we map
 * of it counts in full towards our resident set: libbpf's ring_buffer maps the data area
 * twice in a row (16 MB for the default 8 MB buffer), one mapping of it is 8 MB, most of
 * a run's peak RSS once the buffer is mapped, though a run's records seldom fill more than
 * a corner of it. Here only a window that moves with the consumer position is mapped
 * (256 kB by default, more for a record larger than that): the kernel lays the data area
 * out twice in a row in its own address space and lets a read-only mapping start at any
 * page of it, so a window that runs past the area's end reads on at its start, and a
 * record that wraps reads as one piece.
 * Same contract as ring_buffer__poll()/__consume(): a callback's negative return stops
 * the read and is returned, its record counted as consumed.
 */
#ifndef RETSNOOP_RINGBUF_READER_H
#define RETSNOOP_RINGBUF_READER_H

#include <stddef.h>
#include <stdint.h>

typedef int (*ringbuf_sample_fn)(void *ctx, void *data, size_t size);

struct ringbuf_reader;

struct ringbuf_reader_opts {
	size_t sz;
	/* bytes of the data area mapped at a time (rounded up to pages); 0: 256 kB */
	size_t window_sz;
};

/*
 * Reader of the BPF_MAP_TYPE_RINGBUF map @map_fd, which must outlive it; @opts may be
 * NULL. NULL with errno set on failure.
 */
struct ringbuf_reader *ringbuf_reader__new(int map_fd, ringbuf_sample_fn fn, void *ctx,
					   const struct ringbuf_reader_opts *opts);
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
/*
 * Also end a poll's wait when @fd becomes readable, once (a command's pidfd: its exit);
 * the caller keeps @fd open while the reader lives. 0, or a negative errno (-EINVAL for a
 * reader of memory).
 */
int ringbuf_reader__wake_once_on(struct ringbuf_reader *r, int fd);
/*
 * Also end a poll's wait each time @fd reports readable, until it hangs up (then it is
 * dropped from the wait): a descriptor whose readiness clears as it is reported, such as
 * a perf event's ring past its watermark. The caller keeps @fd open while the reader
 * lives. 0, or a negative errno (-EINVAL for a reader of memory).
 */
int ringbuf_reader__wake_on(struct ringbuf_reader *r, int fd);
void ringbuf_reader__free(struct ringbuf_reader *r);
/* How many times the window was mapped, for the tests: 0 for a reader of memory. */
uint64_t ringbuf_reader__window_maps(const struct ringbuf_reader *r);

#endif
