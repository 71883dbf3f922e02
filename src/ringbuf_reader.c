// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include "ringbuf_reader.h"

struct ringbuf_reader {
	ringbuf_sample_fn fn;
	void *ctx;
	unsigned long *consumer_pos;	/* the one page we may write */
	const unsigned long *producer_pos;
	const __u8 *data;
	size_t mask;			/* data size - 1 */
	/* a record that wraps around the end of the data area, copied into one piece */
	void *bounce;
	size_t bounce_sz;
	/* ringbuf_reader__new(): our mappings and the epoll set; else -1 and NULL */
	int epoll_fd;
	void *cons_map, *prod_map;
	size_t page_sz, prod_map_sz;
};

/* A reader of a @size-byte data area (a power of 2, as the kernel makes them); errno set. */
static struct ringbuf_reader *alloc_reader(ringbuf_sample_fn fn, void *ctx, size_t size)
{
	struct ringbuf_reader *r;

	if (!size || (size & (size - 1))) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
	r->fn = fn;
	r->ctx = ctx;
	r->mask = size - 1;
	r->epoll_fd = -1;
	return r;
}

struct ringbuf_reader *ringbuf_reader__new_mem(unsigned long *consumer_pos,
					       const unsigned long *producer_pos,
					       const void *data, size_t size,
					       ringbuf_sample_fn fn, void *ctx)
{
	struct ringbuf_reader *r = alloc_reader(fn, ctx, size);

	if (!r)
		return NULL;
	r->consumer_pos = consumer_pos;
	r->producer_pos = producer_pos;
	r->data = data;
	return r;
}

struct ringbuf_reader *ringbuf_reader__new(int map_fd, ringbuf_sample_fn fn, void *ctx)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	struct epoll_event ev = { .events = EPOLLIN };
	struct ringbuf_reader *r;
	void *p;
	int err;

	memset(&info, 0, sizeof(info));
	if (bpf_map_get_info_by_fd(map_fd, &info, &len))
		return NULL;
	if (info.type != BPF_MAP_TYPE_RINGBUF) {
		errno = EINVAL;
		return NULL;
	}
	r = alloc_reader(fn, ctx, info.max_entries);
	if (!r)
		return NULL;
	r->page_sz = sysconf(_SC_PAGESIZE);
	/* the consumer position: the only page the kernel lets us write */
	p = mmap(NULL, r->page_sz, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (p == MAP_FAILED)
		goto err_out;
	r->cons_map = p;
	r->consumer_pos = p;
	/*
	 * The producer position's page and the data pages, once: the kernel accepts any
	 * read-only mapping that stays inside the buffer (libbpf asks for the data twice).
	 */
	r->prod_map_sz = r->page_sz + info.max_entries;
	p = mmap(NULL, r->prod_map_sz, PROT_READ, MAP_SHARED, map_fd, r->page_sz);
	if (p == MAP_FAILED)
		goto err_out;
	r->prod_map = p;
	r->producer_pos = p;
	r->data = (const __u8 *)p + r->page_sz;
	r->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epoll_fd < 0 || epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, map_fd, &ev))
		goto err_out;
	return r;
err_out:
	err = errno;
	ringbuf_reader__free(r);
	errno = err;
	return NULL;
}

void ringbuf_reader__free(struct ringbuf_reader *r)
{
	if (!r)
		return;
	if (r->epoll_fd >= 0)
		close(r->epoll_fd);
	if (r->prod_map)
		munmap(r->prod_map, r->prod_map_sz);
	if (r->cons_map)
		munmap(r->cons_map, r->page_sz);
	free(r->bounce);
	free(r);
}

/* The record's @len bytes at data offset @off, in one piece. NULL: out of memory. */
static void *record_at(struct ringbuf_reader *r, size_t off, size_t len)
{
	size_t size = r->mask + 1, first;

	if (off + len <= size)
		return (void *)(r->data + off);
	if (r->bounce_sz < len) {
		void *b = realloc(r->bounce, len);

		if (!b)
			return NULL;
		r->bounce = b;
		r->bounce_sz = len;
	}
	first = size - off;
	memcpy(r->bounce, r->data + off, first);
	memcpy((__u8 *)r->bounce + first, r->data, len - first);
	return r->bounce;
}

int ringbuf_reader__consume(struct ringbuf_reader *r)
{
	unsigned long cons = __atomic_load_n(r->consumer_pos, __ATOMIC_ACQUIRE), prod;
	long cnt = 0;
	bool more;

	/* as libbpf does: read until a pass finds nothing new */
	do {
		more = false;
		prod = __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE);
		while (cons < prod) {
			const __u32 *hdr = (const __u32 *)(r->data + (cons & r->mask));
			__u32 raw = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);
			__u32 len = raw & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
			size_t size;
			void *rec;
			int err;

			/* the producer has reserved but not committed it yet */
			if (raw & BPF_RINGBUF_BUSY_BIT)
				goto out;
			more = true;
			/* headers are 8-byte aligned in a page-multiple area: they never wrap */
			size = ((size_t)len + BPF_RINGBUF_HDR_SZ + 7) & ~(size_t)7;
			if (!(raw & BPF_RINGBUF_DISCARD_BIT)) {
				rec = record_at(r, (cons + BPF_RINGBUF_HDR_SZ) & r->mask, len);
				err = rec ? r->fn(r->ctx, rec, len) : -ENOMEM;
				if (err < 0) {
					/* the record the callback failed on is consumed, as in libbpf */
					__atomic_store_n(r->consumer_pos, cons + size, __ATOMIC_RELEASE);
					return err;
				}
				cnt++;
			}
			cons += size;
			__atomic_store_n(r->consumer_pos, cons, __ATOMIC_RELEASE);
		}
	} while (more);
out:
	return cnt > INT_MAX ? INT_MAX : (int)cnt;
}

int ringbuf_reader__poll(struct ringbuf_reader *r, int timeout_ms)
{
	struct epoll_event ev;
	int n;

	if (r->epoll_fd >= 0) {
		n = epoll_wait(r->epoll_fd, &ev, 1, timeout_ms);
		if (n < 0)
			return -errno;
	}
	return ringbuf_reader__consume(r);
}
