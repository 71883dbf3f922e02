// SPDX-License-Identifier: BSD-2-Clause
/* Parsing the "unwind" request's argument (unwind_req.h, PROTOCOL.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../src/hex.h"
#include "unwind_req.h"

#define MAX_STACK	(1u << 20)

/* The request, consumed left to right. */
struct cursor {
	const char *p, *end;
};

/* A number in @base (10 or 16), at most 64 bits, ended by anything not a digit. */
static int take_num(struct cursor *c, int base, uint64_t *v)
{
	int n = 0, d;

	*v = 0;
	for (; c->p < c->end && (d = hex_digit(*c->p)) >= 0 && d < base; c->p++, n++) {
		if (*v > (UINT64_MAX - d) / base)
			return -EINVAL;
		*v = *v * base + d;
	}
	return n ? 0 : -EINVAL;
}

static int take(struct cursor *c, char ch)
{
	if (c->p >= c->end || *c->p != ch)
		return -EINVAL;
	c->p++;
	return 0;
}

static int take_word(struct cursor *c, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n))
		return -EINVAL;
	c->p += n;
	return 0;
}

/* Hex bytes up to the next separator into a new buffer (@len bytes), "-" for none. */
static int take_bytes(struct cursor *c, size_t max, uint8_t **out, size_t *len)
{
	const char *s = c->p;
	size_t n = 0, i;
	uint8_t *b;

	if (c->p < c->end && *c->p == '-') {
		c->p++;
		*out = NULL;
		*len = 0;
		return 0;
	}
	while (s + n < c->end && hex_digit(s[n]) >= 0)
		n++;
	if (!n || n % 2 || n / 2 > max)
		return -EINVAL;
	b = malloc(n / 2 + 1);
	if (!b)
		return -ENOMEM;
	for (i = 0; i < n / 2; i++)
		b[i] = hex_digit(s[2 * i]) << 4 | hex_digit(s[2 * i + 1]);
	c->p += n;
	*out = b;
	*len = n / 2;
	return 0;
}

static int take_maps(struct cursor *c, struct unwind_req *r)
{
	size_t cap = 0, cnt = 0;
	uint64_t v[8];
	int err;

	while (c->p < c->end && *c->p != '-') {
		struct unwind_map *m;
		uint8_t *path;
		size_t plen;

		if (take_num(c, 16, &v[0]) || take(c, '-') || take_num(c, 16, &v[1]) ||
		    take(c, ':') || take_num(c, 16, &v[2]) || take(c, ':') ||
		    take_num(c, 16, &v[3]) || take(c, ':') || take_num(c, 16, &v[4]) ||
		    take(c, ':') || take_num(c, 16, &v[5]) || take(c, ':') ||
		    take_num(c, 10, &v[6]) || take(c, ':') || take_num(c, 10, &v[7]) ||
		    v[7] > 0x7fffffff || take(c, ':'))
			return -EINVAL;
		err = take_bytes(c, 4096, &path, &plen);
		if (err)
			return err;
		/* no path ('-'): code with no file (JIT-compiled), no image of its own */
		if ((!path && (!(v[3] & 4) || v[7])) || (path && memchr(path, '\0', plen)) ||
		    take(c, ',') || v[0] >= v[1] || v[4] > UINT32_MAX || v[5] > UINT32_MAX ||
		    (cnt && v[0] < r->maps[cnt - 1].end)) {
			free(path);
			return -EINVAL;
		}
		if (cnt == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			void *tmp = ncap <= (1u << 20) ? realloc(r->maps, ncap * sizeof(*r->maps)) : NULL;

			if (!tmp) {
				free(path);
				return ncap <= (1u << 20) ? -ENOMEM : -EINVAL;
			}
			r->maps = tmp;
			cap = ncap;
		}
		if (path)
			path[plen] = '\0';
		m = &r->maps[cnt++];
		r->in.map_cnt = r->maps_owned = cnt;	/* freed by unwind_req__free() */
		*m = (struct unwind_map){
			.start = v[0], .end = v[1], .pgoff = v[2], .exec = v[3] & 4,
			.dev_major = v[4], .dev_minor = v[5], .inode = v[6],
			.image_id = v[7], .path = (char *)path,
		};
	}
	return take(c, '-');
}

int unwind_req__parse(const char *arg, size_t len, struct unwind_req **out)
{
	struct cursor c = { arg, arg + len };
	struct unwind_req *r;
	uint64_t pid, holes;
	size_t n, i;
	int err;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	if (!take_word(&c, "x86_64")) {
		r->in.arch = UNWIND_ARCH_X86_64;
		n = 21;
	} else if (!take_word(&c, "arm64")) {
		r->in.arch = UNWIND_ARCH_ARM64;
		n = 34;
	} else {
		err = -EINVAL;
		goto err;
	}
	err = -EINVAL;
	if (take(&c, ' ') || take_num(&c, 10, &pid) || pid == 0 || pid > 0x7fffffff ||
	    take(&c, ' ') || take_num(&c, 16, &r->in.sp) || take(&c, ' '))
		goto err;
	for (i = 0; i < n; i++) {
		if ((i && take(&c, ',')) || take_num(&c, 16, &r->regs[i]))
			goto err;
	}
	if (take(&c, ' '))
		goto err;
	err = take_bytes(&c, MAX_STACK, &r->stack, &r->in.stack_len);
	if (err)
		goto err;
	err = -EINVAL;
	if (r->in.stack_len > UINT64_MAX - r->in.sp || take(&c, ' ') ||
	    take_num(&c, 16, &holes) || holes > UINT32_MAX || take(&c, ' '))
		goto err;
	r->in.holes = holes;
	err = take_maps(&c, r);
	if (err)
		goto err;
	if (c.p != c.end) {
		err = -EINVAL;
		goto err;
	}
	r->in.pid = pid;
	r->in.regs = r->regs;
	r->in.reg_cnt = n;
	r->in.stack = r->stack;
	r->in.maps = r->maps;
	*out = r;
	return 0;
err:
	unwind_req__free(r);
	return err;
}

void unwind_req__free(struct unwind_req *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->maps_owned; i++)
		free((char *)r->maps[i].path);
	free(r->maps);
	free(r->stack);
	free(r);
}
