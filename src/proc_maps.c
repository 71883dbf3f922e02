// SPDX-License-Identifier: BSD-2-Clause
/* /proc/PID/maps snapshots (proc_maps.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hex.h"
#include "opts.h"
#include "proc_maps.h"

#define DEFAULT_MAX_ENTRIES	(1u << 20)
#define DEFAULT_MAX_BYTES	(64u << 20)
#define DELETED_SUFFIX		" (deleted)"

struct proc_maps {
	struct proc_map *maps;
	size_t cnt;
	char *strs;		/* every path, NUL-terminated, back to back */
};

/* Hex digits up to a delimiter; at most 16 of them. */
static int parse_hex(const char **p, const char *end, __u64 *out)
{
	const char *s = *p;
	__u64 v = 0;
	int n = 0;

	for (; s < end; s++, n++) {
		int d = hex_digit(*s);

		if (d < 0)
			break;
		if (n == 16)
			return -EINVAL;
		v = v << 4 | d;
	}
	if (!n)
		return -EINVAL;
	*p = s;
	*out = v;
	return 0;
}

static int parse_dec(const char **p, const char *end, __u64 *out)
{
	const char *s = *p;
	__u64 v = 0;
	int n = 0;

	for (; s < end && *s >= '0' && *s <= '9'; s++, n++) {
		if (v > (~0ULL - 9) / 10)
			return -EINVAL;
		v = v * 10 + (*s - '0');
	}
	if (!n)
		return -EINVAL;
	*p = s;
	*out = v;
	return 0;
}

static int expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return -EINVAL;
	(*p)++;
	return 0;
}

static int parse_prot(const char **p, const char *end, __u32 *prot)
{
	static const char yes[] = "rwx";
	const char *s = *p;
	int i;

	if (end - s < 4)
		return -EINVAL;
	*prot = 0;
	for (i = 0; i < 3; i++) {
		if (s[i] == yes[i])
			*prot |= 1u << i;
		else if (s[i] != '-')
			return -EINVAL;
	}
	if (s[3] == 's')
		*prot |= PROC_MAP_SHARED;
	else if (s[3] != 'p')
		return -EINVAL;
	*p = s + 4;
	return 0;
}

/*
 * "start-end perms offset major:minor inode [path]": fills @m except the path, whose
 * bounds go to @path/@path_len (0 length: anonymous).
 */
static int parse_line(const char *s, const char *end, struct proc_map *m, const char **path,
		      size_t *path_len)
{
	__u64 maj, min;

	if (parse_hex(&s, end, &m->start) || expect(&s, end, '-') ||
	    parse_hex(&s, end, &m->end) || expect(&s, end, ' ') ||
	    parse_prot(&s, end, &m->prot) || expect(&s, end, ' ') ||
	    parse_hex(&s, end, &m->pgoff) || expect(&s, end, ' ') ||
	    parse_hex(&s, end, &maj) || expect(&s, end, ':') ||
	    parse_hex(&s, end, &min) || expect(&s, end, ' ') ||
	    parse_dec(&s, end, &m->inode))
		return -EINVAL;
	if (m->start >= m->end || maj > 0xffffffff || min > 0xffffffff)
		return -EINVAL;
	m->dev_major = maj;
	m->dev_minor = min;
	/* the kernel pads to a column with spaces before the path */
	while (s < end && *s == ' ')
		s++;
	*path = s;
	*path_len = end - s;
	return 0;
}

int proc_maps__parse(const char *text, size_t len, const struct proc_maps_opts *opts,
		     struct proc_maps **out)
{
	struct proc_maps_opts o = { .sz = sizeof(o) };
	const char *p = text, *end = text + len;
	size_t cnt = 0, cap = 0, str_len = 0;
	struct proc_maps *m;
	int err;

	if (opts && OPTS_COPY(&o, opts))
		return -EINVAL;
	if (!text && len)
		return -EINVAL;
	if (!o.max_entries)
		o.max_entries = DEFAULT_MAX_ENTRIES;
	m = calloc(1, sizeof(*m));
	/* the paths can't need more than the text itself */
	if (!m || !(m->strs = malloc(len + 1))) {
		err = -ENOMEM;
		goto err;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *lend = nl ?: end, *path;
		struct proc_map pm = {};
		size_t plen;

		if (lend == p) {	/* an empty line only as the very last one */
			if (nl && nl + 1 < end) {
				err = -EINVAL;
				goto err;
			}
			break;
		}
		err = parse_line(p, lend, &pm, &path, &plen);
		if (err)
			goto err;
		if (cnt && pm.start < m->maps[cnt - 1].end) {
			err = -EINVAL;
			goto err;
		}
		if (cnt == o.max_entries) {
			err = -E2BIG;
			goto err;
		}
		if (cnt == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			void *tmp = realloc(m->maps, ncap * sizeof(*m->maps));

			if (!tmp) {
				err = -ENOMEM;
				goto err;
			}
			m->maps = tmp;
			cap = ncap;
		}
		if (plen >= sizeof(DELETED_SUFFIX) - 1 &&
		    !memcmp(path + plen - (sizeof(DELETED_SUFFIX) - 1), DELETED_SUFFIX,
			    sizeof(DELETED_SUFFIX) - 1)) {
			pm.deleted = true;
			plen -= sizeof(DELETED_SUFFIX) - 1;
		}
		if (plen && memchr(path, '\0', plen)) {
			err = -EINVAL;
			goto err;
		}
		/* strs was sized for the whole text up front: it never moves */
		if (plen) {
			pm.path = m->strs + str_len;
			memcpy(m->strs + str_len, path, plen);
			m->strs[str_len + plen] = '\0';
			str_len += plen + 1;
		}
		m->maps[cnt++] = pm;
		if (!nl)
			break;
		p = nl + 1;
	}
	m->cnt = cnt;
	*out = m;
	return 0;
err:
	proc_maps__free(m);
	return err;
}

static int read_all(int fd, size_t max, char **buf, size_t *len)
{
	size_t cap = 16384, n = 0;
	char *b = malloc(cap), *tmp;
	ssize_t r;

	if (!b)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			if (cap >= max) {
				free(b);
				return -E2BIG;
			}
			cap *= 2;
			tmp = realloc(b, cap);
			if (!tmp) {
				free(b);
				return -ENOMEM;
			}
			b = tmp;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = -errno;

			free(b);
			return err;
		}
		if (r == 0)
			break;
		n += r;
	}
	*buf = b;
	*len = n;
	return 0;
}

int proc_maps__read(int pid, const struct proc_maps_opts *opts, struct proc_maps **out)
{
	struct proc_maps_opts o = { .sz = sizeof(o) };
	char path[64], *buf = NULL;
	size_t len = 0;
	int fd, err;

	if (opts && OPTS_COPY(&o, opts))
		return -EINVAL;
	if (pid <= 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "%.32s/%d/maps", o.proc_root ?: "/proc", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = read_all(fd, o.max_bytes ?: DEFAULT_MAX_BYTES, &buf, &len);
	close(fd);
	if (err)
		return err;
	/* a process that has exited (a zombie) still has the file, with nothing in it */
	if (!len) {
		free(buf);
		return -ESRCH;
	}
	err = proc_maps__parse(buf, len, &o, out);
	free(buf);
	return err;
}

static int map_start_cmp(const void *a, const void *b)
{
	const struct proc_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int proc_maps__overlay(const struct proc_maps *m, const struct proc_map *e,
		       struct proc_maps **out)
{
	size_t cnt = proc_maps__cnt(m), i, n = 0, len = 0;
	struct proc_maps *r;
	struct proc_map *v;
	char *p;

	*out = NULL;
	if (e && e->end <= e->start)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	/* a mapping @e lands in the middle of leaves two pieces */
	v = calloc(2 * cnt + 1, sizeof(*v));
	if (!r || !v)
		goto nomem;
	for (i = 0; i < cnt; i++) {
		const struct proc_map *o = &m->maps[i];

		if (!e || o->end <= e->start || o->start >= e->end) {
			v[n++] = *o;
			continue;
		}
		if (o->start < e->start) {
			v[n] = *o;
			v[n++].end = e->start;
		}
		if (o->end > e->end) {
			v[n] = *o;
			v[n].start = e->end;
			v[n++].pgoff += e->end - o->start;
		}
	}
	if (e)
		v[n++] = *e;
	qsort(v, n, sizeof(*v), map_start_cmp);
	for (i = 0; i < n; i++)
		len += v[i].path ? strlen(v[i].path) + 1 : 0;
	r->strs = malloc(len ?: 1);
	if (!r->strs)
		goto nomem;
	for (i = 0, p = r->strs; i < n; i++) {
		if (!v[i].path)
			continue;
		len = strlen(v[i].path) + 1;
		memcpy(p, v[i].path, len);
		v[i].path = p;
		p += len;
	}
	r->maps = v;
	r->cnt = n;
	*out = r;
	return 0;
nomem:
	free(v);
	free(r);
	return -ENOMEM;
}

void proc_maps__free(struct proc_maps *m)
{
	if (!m)
		return;
	free(m->maps);
	free(m->strs);
	free(m);
}

size_t proc_maps__cnt(const struct proc_maps *m)
{
	return m ? m->cnt : 0;
}

const struct proc_map *proc_maps__get(const struct proc_maps *m, size_t idx)
{
	return m && idx < m->cnt ? &m->maps[idx] : NULL;
}

const struct proc_map *proc_maps__find(const struct proc_maps *m, __u64 addr)
{
	size_t lo = 0, hi = m ? m->cnt : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < m->maps[mid].start)
			hi = mid;
		else if (addr >= m->maps[mid].end)
			lo = mid + 1;
		else
			return &m->maps[mid];
	}
	return NULL;
}
