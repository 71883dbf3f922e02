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
#include "opts.h"
#include "ringbuf_reader.h"

#define DEFAULT_WINDOW_SZ (256 * 1024)

struct ringbuf_reader {
	ringbuf_sample_fn fn;
	void *ctx;
	unsigned long *consumer_pos;	/* the one page we may write */
	const unsigned long *producer_pos;
	size_t mask;			/* data size - 1 */
	/* ringbuf_reader__new_mem(): the whole data area; a wrapping record is copied out */
	const __u8 *data;
	void *bounce;
	size_t bounce_sz;
	/* ringbuf_reader__new(): the map, our mappings and the epoll set; else -1 and NULL */
	int map_fd, epoll_fd;
	void *cons_map, *prod_map;
	size_t page_sz;
	/* the data area's bytes [win_off, win_off + win_len) at win (past its end: its start) */
	const __u8 *win;
	size_t win_off, win_len, window_sz;
	uint64_t win_maps;
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
	r->map_fd = -1;
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

struct ringbuf_reader *ringbuf_reader__new(int map_fd, ringbuf_sample_fn fn, void *ctx,
					   const struct ringbuf_reader_opts *uopts)
{
	struct ringbuf_reader_opts opts;
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = map_fd };
	struct ringbuf_reader *r;
	void *p;
	int err;

	if (OPTS_COPY(&opts, uopts)) {
		errno = EINVAL;
		return NULL;
	}
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
	r->map_fd = map_fd;
	r->page_sz = sysconf(_SC_PAGESIZE);
	r->window_sz = opts.window_sz ?: DEFAULT_WINDOW_SZ;
	r->window_sz = (r->window_sz + r->page_sz - 1) & ~(r->page_sz - 1);
	/* the consumer position: the only page the kernel lets us write */
	p = mmap(NULL, r->page_sz, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (p == MAP_FAILED)
		goto err_out;
	r->cons_map = p;
	r->consumer_pos = p;
	/* the producer position; the data pages are mapped as records need them */
	p = mmap(NULL, r->page_sz, PROT_READ, MAP_SHARED, map_fd, r->page_sz);
	if (p == MAP_FAILED)
		goto err_out;
	r->prod_map = p;
	r->producer_pos = p;
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
	if (r->win)
		munmap((void *)r->win, r->win_len);
	if (r->prod_map)
		munmap(r->prod_map, r->page_sz);
	if (r->cons_map)
		munmap(r->cons_map, r->page_sz);
	free(r->bounce);
	free(r);
}

uint64_t ringbuf_reader__window_maps(const struct ringbuf_reader *r)
{
	return r->win_maps;
}

/*
 * The data area's @len bytes at @off (< its size; @len at most its size) in the window,
 * moved there first if they are not in it: from @off's page on, window_sz bytes or as
 * many as the record needs. NULL with errno set if the kernel refuses the mapping.
 */
static const void *window_at(struct ringbuf_reader *r, size_t off, size_t len)
{
	size_t size = r->mask + 1, rel, start, need, wlen;
	void *p;

	rel = (off - r->win_off) & r->mask;
	if (r->win && rel + len <= r->win_len)
		return r->win + rel;
	start = off & ~(r->page_sz - 1);
	need = (off - start + len + r->page_sz - 1) & ~(r->page_sz - 1);
	wlen = need > r->window_sz ? need : r->window_sz;
	/* the kernel's two copies in a row end at twice the size */
	if (start + wlen > 2 * size)
		wlen = 2 * size - start;
	/* the data area starts after the consumer and producer pages */
	p = mmap(NULL, wlen, PROT_READ, MAP_SHARED, r->map_fd, 2 * r->page_sz + start);
	if (p == MAP_FAILED)
		return NULL;
	if (r->win)
		munmap((void *)r->win, r->win_len);
	r->win = p;
	r->win_off = start;
	r->win_len = wlen;
	r->win_maps++;
	return r->win + (off - start);
}

/* The record's @len bytes at data offset @off, in one piece. NULL: errno says why. */
static const void *record_at(struct ringbuf_reader *r, size_t off, size_t len)
{
	size_t size = r->mask + 1, first;

	if (r->map_fd >= 0)
		return window_at(r, off, len);
	if (off + len <= size)
		return (void *)(r->data + off);
	if (r->bounce_sz < len) {
		void *b = realloc(r->bounce, len);

		if (!b) {
			errno = ENOMEM;
			return NULL;
		}
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
			/* headers are 8-byte aligned in a page-multiple area: they never wrap */
			const __u32 *hdr = record_at(r, cons & r->mask, BPF_RINGBUF_HDR_SZ);
			__u32 raw, len;
			const void *rec;
			size_t size;
			int err;

			if (!hdr)
				return -errno;
			raw = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);
			len = raw & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
			/* the producer has reserved but not committed it yet */
			if (raw & BPF_RINGBUF_BUSY_BIT)
				goto out;
			more = true;
			size = ((size_t)len + BPF_RINGBUF_HDR_SZ + 7) & ~(size_t)7;
			if (!(raw & BPF_RINGBUF_DISCARD_BIT)) {
				rec = record_at(r, (cons + BPF_RINGBUF_HDR_SZ) & r->mask, len);
				/* the callback may not keep it: the window moves on */
				err = rec ? r->fn(r->ctx, (void *)rec, len) : -errno;
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

/* @fd in the poll's wait set, with @events; never the ring's own descriptor */
static int add_waker(struct ringbuf_reader *r, int fd, __u32 events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	if (r->epoll_fd < 0 || fd < 0 || fd == r->map_fd)
		return -EINVAL;
	return epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int ringbuf_reader__wake_once_on(struct ringbuf_reader *r, int fd)
{
	/* one-shot: a descriptor left readable must not turn every later poll into a spin */
	return add_waker(r, fd, EPOLLIN | EPOLLONESHOT);
}

int ringbuf_reader__wake_on(struct ringbuf_reader *r, int fd)
{
	/* level-triggered: a perf ring's readiness clears as it is reported (ringbuf_reader.h) */
	return add_waker(r, fd, EPOLLIN);
}

int ringbuf_reader__poll(struct ringbuf_reader *r, int timeout_ms)
{
	struct epoll_event ev;
	int n;

	if (r->epoll_fd >= 0) {
		n = epoll_wait(r->epoll_fd, &ev, 1, timeout_ms);
		if (n < 0)
			return -errno;
		/* a hung-up descriptor stays ready: each later wait would return at once */
		if (n && ev.data.fd != r->map_fd && (ev.events & (EPOLLHUP | EPOLLERR)))
			epoll_ctl(r->epoll_fd, EPOLL_CTL_DEL, ev.data.fd, NULL);
	}
	return ringbuf_reader__consume(r);
}
