// SPDX-License-Identifier: BSD-2-Clause
/* perf's mapping records of a process tree (mmap_watch.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include "mmap_watch.h"
#include "opts.h"

/*
 * wake_early's watermark: some 15 records, a loader's first libraries. Not every record:
 * 20,000 mmap() calls in a burst lost more of them with a wakeup each (7,792 against
 * 3,600-4,300), and each wakeup is an interrupt in the mapping process.
 */
#define WAKE_EARLY_BYTES 2048
#define DEFAULT_PAGES	16
/* every record ends in the PERF_SAMPLE_TID | PERF_SAMPLE_TIME trailer (sample_id_all) */
#define TRAILER		16

struct cpu_ring {
	int fd;
	void *base;		/* the control page, then the data pages */
};

struct mmap_watch {
	struct cpu_ring *rings;
	size_t ring_cnt;
	size_t page_sz, data_sz;
	__u64 lost;
	__u64 count;
	/* one drain's records, copied out of the rings (a record may wrap around) */
	char *buf;
	size_t buf_len, buf_cap;
};

static int open_event(int pid, int cpu, size_t data_sz, bool wake_early)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.sample_id_all = 1,
		/*
		 * The records are ordered by time across CPUs (a child's fork on one, its exit
		 * on another): perf's default clock is each CPU's own, which may drift apart
		 * (an unstable TSC, a guest); CLOCK_MONOTONIC is one clock for all.
		 */
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
		/* every mapping, not only executable ones: the unwinder needs each image's base */
		.mmap = 1, .mmap2 = 1, .mmap_data = 1,
		.comm = 1, .comm_exec = 1,
		.task = 1,
		/* a process tree: what it starts too; a CPU-wide event sees every task anyway */
		.inherit = pid > 0,
		/*
		 * Readable (mmap_watch__fd()) once half the ring is written: a reader that
		 * waits for it drains a burst (a script's dozens of execs) before it overflows;
		 * or after WAKE_EARLY_BYTES (wake_early): a process's first few mappings
		 */
		.watermark = 1,
		.wakeup_watermark = wake_early ? WAKE_EARLY_BYTES : data_sz / 2,
	};

	return syscall(__NR_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int mmap_watch__new(const struct mmap_watch_opts *opts, struct mmap_watch **out)
{
	struct mmap_watch_opts o = {};
	struct mmap_watch *w;
	int ncpu, cpu, err = -ENODEV;
	size_t pages;

	*out = NULL;
	if (!opts || OPTS_COPY(&o, opts) || (o.pid <= 0 && o.pid != -1))
		return -EINVAL;
	pages = o.pages ?: DEFAULT_PAGES;
	if (pages & (pages - 1))
		return -EINVAL;
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return ncpu ?: -ENODEV;
	w = calloc(1, sizeof(*w));
	if (!w || !(w->rings = calloc(ncpu, sizeof(*w->rings)))) {
		free(w);
		return -ENOMEM;
	}
	w->page_sz = sysconf(_SC_PAGESIZE);
	w->data_sz = pages * w->page_sz;
	/*
	 * Per CPU: the kernel refuses to map an inherited event's buffer for any CPU (all
	 * children would write into one), as perf record does; every process: CPU-wide.
	 */
	for (cpu = 0; cpu < ncpu; cpu++) {
		struct cpu_ring *r = &w->rings[w->ring_cnt];

		r->fd = open_event(o.pid, cpu, w->data_sz, o.wake_early);
		if (r->fd < 0) {
			err = -errno;
			if (err == -ENODEV || err == -ENXIO)	/* an offline CPU */
				continue;
			goto fail;
		}
		r->base = mmap(NULL, w->page_sz + w->data_sz, PROT_READ | PROT_WRITE, MAP_SHARED,
			       r->fd, 0);
		if (r->base == MAP_FAILED) {
			err = -errno;
			close(r->fd);
			goto fail;
		}
		w->ring_cnt++;
	}
	if (!w->ring_cnt)
		goto fail;
	*out = w;
	return 0;
fail:
	mmap_watch__free(w);
	return err;
}

void mmap_watch__free(struct mmap_watch *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->ring_cnt; i++) {
		munmap(w->rings[i].base, w->page_sz + w->data_sz);
		close(w->rings[i].fd);
	}
	free(w->rings);
	free(w->buf);
	free(w);
}

__u64 mmap_watch__lost(const struct mmap_watch *w)
{
	return w ? w->lost : 0;
}

__u64 mmap_watch__count(const struct mmap_watch *w)
{
	return w ? w->count : 0;
}

size_t mmap_watch__fd_cnt(const struct mmap_watch *w)
{
	return w ? w->ring_cnt : 0;
}

int mmap_watch__fd(const struct mmap_watch *w, size_t i)
{
	return w && i < w->ring_cnt ? w->rings[i].fd : -EINVAL;
}

static __u32 get32(const char *p)
{
	__u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static __u64 get64(const char *p)
{
	__u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

#define DELETED_SUFFIX " (deleted)"

/* MMAP2: pid tid addr len pgoff maj min ino ino_gen prot flags filename[] */
static int parse_mmap2(char *p, size_t len, __u16 misc, struct mmap_watch_event *e)
{
	const size_t name_off = 8 + 8 + 24 + 24 + 8;
	char *path;
	size_t n, sl = strlen(DELETED_SUFFIX);

	if (len < name_off + 1 + TRAILER)
		return -EINVAL;
	n = strnlen(p + name_off, len - TRAILER - name_off);
	if (n == len - TRAILER - name_off)
		return -EINVAL;		/* no NUL before the trailer */
	e->kind = MMAP_WATCH_MAP;
	e->tgid = get32(p + 8);
	e->map.start = get64(p + 16);
	e->map.end = e->map.start + get64(p + 24);
	e->map.pgoff = get64(p + 32);
	if (e->map.end <= e->map.start)
		return -EINVAL;
	/* a build ID in the place of the device and inode: only when asked for, never here */
	if (!(misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
		e->map.dev_major = get32(p + 40);
		e->map.dev_minor = get32(p + 44);
		e->map.inode = get64(p + 48);
	}
	e->map.prot = get32(p + 64) & (PROC_MAP_R | PROC_MAP_W | PROC_MAP_X);
	if (get32(p + 68) & MAP_SHARED)
		e->map.prot |= PROC_MAP_SHARED;
	path = p + name_off;
	/*
	 * "//anon", "//anon_hugepage"...: no file; "[heap]" and the like: as in the maps file;
	 * "anon_inode:[io_uring]": a kernel object's file (no code, but which object it is)
	 */
	if (path[0] != '/' && path[0] != '[' &&
	    strncmp(path, ANON_INODE_PREFIX, sizeof(ANON_INODE_PREFIX) - 1))
		return -EINVAL;
	if (!strncmp(path, "//", 2))
		return 1;
	if (n > sl && !strcmp(path + n - sl, DELETED_SUFFIX)) {
		path[n - sl] = '\0';
		e->map.deleted = true;
	}
	e->map.path = path;
	return 1;
}

int mmap_watch__parse(void *rec, size_t len, struct mmap_watch_event *e, __u64 *lost)
{
	const struct perf_event_header *h = rec;
	char *p = rec;

	memset(e, 0, sizeof(*e));
	if (len < sizeof(*h) || h->size != len || len < sizeof(*h) + TRAILER || len % 8)
		return -EINVAL;
	e->time_ns = get64(p + len - 8);
	switch (h->type) {
	case PERF_RECORD_MMAP2:
		return parse_mmap2(p, len, h->misc, e);
	case PERF_RECORD_COMM:
		if (len < 8 + 8 + TRAILER)
			return -EINVAL;
		if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC))
			return 0;	/* a thread renamed itself */
		e->kind = MMAP_WATCH_EXEC;
		e->tgid = get32(p + 8);
		return 1;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		/*
		 * pid ppid tid ptid time, for both: a new or ended thread (pid != tid) is not
		 * the process's; only the main thread's end is the process's (mostly)
		 */
		if (len < 8 + 24 + TRAILER)
			return -EINVAL;
		if (get32(p + 8) != get32(p + 16))
			return 0;
		if (h->type == PERF_RECORD_FORK && get32(p + 8) == get32(p + 12))
			return 0;	/* a new thread of the same process */
		e->kind = h->type == PERF_RECORD_FORK ? MMAP_WATCH_FORK : MMAP_WATCH_EXIT;
		e->tgid = get32(p + 8);
		e->parent = get32(p + 12);
		return 1;
	case PERF_RECORD_LOST:
		if (len < 8 + 16 + TRAILER)
			return -EINVAL;
		*lost += get64(p + 16);
		return 0;
	}
	return 0;
}

static int buf_reserve(struct mmap_watch *w, size_t n)
{
	size_t cap = w->buf_cap ?: 4096;
	char *b;

	if (w->buf_len + n <= w->buf_cap)
		return 0;
	while (cap < w->buf_len + n)
		cap *= 2;
	b = realloc(w->buf, cap);
	if (!b)
		return -ENOMEM;
	w->buf = b;
	w->buf_cap = cap;
	return 0;
}

/* Copy one ring's new records to the buffer; its tail moves once all are copied. */
static int copy_ring(struct mmap_watch *w, struct cpu_ring *r)
{
	struct perf_event_mmap_page *ctl = r->base;
	const char *data = (const char *)r->base + w->page_sz;
	__u64 head = __atomic_load_n(&ctl->data_head, __ATOMIC_ACQUIRE);
	__u64 tail = ctl->data_tail;
	size_t mask = w->data_sz - 1, n, first;

	if (head - tail > w->data_sz)
		return -EINVAL;		/* never, unless the kernel's control page is corrupt */
	n = head - tail;
	if (!n)
		return 0;
	if (buf_reserve(w, n))
		return -ENOMEM;
	first = w->data_sz - (tail & mask);
	if (first > n)
		first = n;
	memcpy(w->buf + w->buf_len, data + (tail & mask), first);
	memcpy(w->buf + w->buf_len + first, data, n - first);
	w->buf_len += n;
	__atomic_store_n(&ctl->data_tail, head, __ATOMIC_RELEASE);
	return 0;
}

struct ev_ref {
	__u64 time;
	size_t off;	/* in the buffer */
};

static int ev_cmp(const void *a, const void *b)
{
	const struct ev_ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;	/* one CPU's order stays */
}

int mmap_watch__drain(struct mmap_watch *w, mmap_watch_cb cb, void *ctx)
{
	struct mmap_watch_event e;
	struct ev_ref *refs = NULL;
	size_t i, off, cnt = 0, cap = 0;
	int err = 0;

	w->buf_len = 0;
	for (i = 0; i < w->ring_cnt; i++) {
		err = copy_ring(w, &w->rings[i]);
		if (err)
			return err;
	}
	/* the records of interest, by time: a process's exec and mmaps may be on two CPUs */
	for (off = 0; off + sizeof(struct perf_event_header) <= w->buf_len;) {
		struct perf_event_header *h = (void *)(w->buf + off);

		if (h->size < sizeof(*h) || off + h->size > w->buf_len)
			break;
		if (mmap_watch__parse(h, h->size, &e, &w->lost) == 1) {
			if (cnt == cap) {
				struct ev_ref *v = realloc(refs, (cap = cap ? 2 * cap : 64) * sizeof(*v));

				if (!v) {
					free(refs);
					return -ENOMEM;
				}
				refs = v;
			}
			refs[cnt++] = (struct ev_ref){ e.time_ns, off };
		}
		off += h->size;
	}
	if (cnt)
		qsort(refs, cnt, sizeof(*refs), ev_cmp);
	for (i = 0; i < cnt; i++) {
		struct perf_event_header *h = (void *)(w->buf + refs[i].off);

		mmap_watch__parse(h, h->size, &e, &w->lost);
		cb(ctx, &e);
	}
	w->count += cnt;
	free(refs);
	return cnt;
}
