// SPDX-License-Identifier: BSD-2-Clause
/* Request parsing and reply formatting of the sidecar (server.h, PROTOCOL.md). */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "../src/hex.h"
#include "server_int.h"
#include "unwind_req.h"

#define PROTO_VERSION 2
/*
 * Reply cache: repeated stack addresses are the common case for retsnoop. It starts small
 * (a short-lived server does not pay for a big one) and doubles up to CACHE_SLOTS.
 */
#define CACHE_MIN_SLOTS (1 << 10)
#define CACHE_SLOTS (1 << 16)

static int buf_vprintf(struct reply_buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	for (;;) {
		va_copy(aq, ap);
		n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, aq);
		va_end(aq);
		if (n < 0)
			return -EINVAL;
		if (b->p && b->len + n < b->cap) {
			b->len += n;
			return 0;
		}
		size_t ncap = b->cap ? b->cap * 2 : 4096;
		while (ncap < b->len + n + 1)
			ncap *= 2;
		char *np = realloc(b->p, ncap);
		if (!np)
			return -ENOMEM;
		b->p = np;
		b->cap = ncap;
	}
}

int buf_printf(struct reply_buf *b, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return err;
}

/*
 * Append a name or path from the file: corrupt DWARF can put tabs or newlines in it, which
 * would break the reply's framing, so control characters become '?'.
 */
int buf_field(struct reply_buf *b, const char *s)
{
	size_t len = strlen(s), i;
	int err = buf_printf(b, "%s", s);

	if (err)
		return err;
	for (i = b->len - len; i < b->len; i++) {
		if ((unsigned char)b->p[i] < 0x20 || b->p[i] == 0x7f)
			b->p[i] = '?';
	}
	return 0;
}

/* "err E MESSAGE": E positive, the message kept to one line whatever it holds. */
int reply_err(struct reply_buf *b, int err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (i = 0; msg[i]; i++) {
		if (msg[i] == '\n' || msg[i] == '\r')
			msg[i] = ' ';
	}
	return buf_printf(b, "err %d %s\n", err < 0 ? -err : err, msg);
}

int parse_addr(const char *s, uint64_t *addr)
{
	uint64_t v = 0;
	int digits = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s; s++, digits++) {
		int d = hex_digit(*s);

		if (d < 0)
			return -EINVAL;
		if (v >> 60)
			return -ERANGE;
		v = v << 4 | d;
	}
	if (!digits)
		return -EINVAL;
	*addr = v;
	return 0;
}

static size_t cache_slot(uint64_t addr, size_t cap)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 40) & (cap - 1);
}

static struct cache_ent *cache_find(struct server *srv, uint64_t addr)
{
	size_t i, mask = srv->cache_cap - 1;

	if (!srv->cache)
		return NULL;
	for (i = cache_slot(addr, srv->cache_cap); srv->cache[i].reply; i = (i + 1) & mask) {
		if (srv->cache[i].addr == addr)
			return &srv->cache[i];
	}
	return NULL;
}

static void cache_clear(struct server *srv)
{
	size_t i;

	for (i = 0; srv->cache && i < srv->cache_cap; i++) {
		free(srv->cache[i].reply);
		srv->cache[i].reply = NULL;
	}
	srv->cache_cnt = 0;
}

/* Room for one more entry: a bigger table while allowed, else start over. */
static bool cache_make_room(struct server *srv)
{
	size_t ncap = srv->cache_cap ? srv->cache_cap * 2 : CACHE_MIN_SLOTS, i, k;
	struct cache_ent *nt;

	if (srv->cache && srv->cache_cnt < srv->cache_cap / 4 * 3)
		return true;
	if (srv->cache && ncap > CACHE_SLOTS) {
		/* bounded memory: start over rather than evict one by one */
		cache_clear(srv);
		return true;
	}
	nt = calloc(ncap, sizeof(*nt));
	if (!nt)
		return false;
	for (i = 0; i < srv->cache_cap; i++) {
		if (!srv->cache[i].reply)
			continue;
		for (k = cache_slot(srv->cache[i].addr, ncap); nt[k].reply; k = (k + 1) & (ncap - 1))
			;
		nt[k] = srv->cache[i];
	}
	free(srv->cache);
	srv->cache = nt;
	srv->cache_cap = ncap;
	return true;
}

/* Remember a copy of a reply; nothing happens if there is no memory for it. */
static void cache_put(struct server *srv, uint64_t addr, const char *reply, size_t len)
{
	char *copy;
	size_t i;

	if (!cache_make_room(srv))
		return;
	copy = malloc(len + 1);
	if (!copy)
		return;
	memcpy(copy, reply, len);
	copy[len] = '\0';
	for (i = cache_slot(addr, srv->cache_cap); srv->cache[i].reply;
	     i = (i + 1) & (srv->cache_cap - 1))
		;
	srv->cache[i] = (struct cache_ent){ addr, copy, len };
	srv->cache_cnt++;
}

static int do_sym(struct server *srv, const char *arg, int fd, struct reply_buf *b)
{
	struct src_frame frames[SYMB_MAX_FRAMES];
	size_t start = b->len;
	struct cache_ent *ce;
	uint64_t addr;
	int n, err;

	if (!srv->symb)
		return reply_err(b, -ENOENT, "no file given on the command line");
	err = parse_addr(arg, &addr);
	if (err)
		return reply_err(b, err, "bad address '%.64s'", arg);
	srv->requests++;
	ce = cache_find(srv, addr);
	if (ce) {
		srv->cache_hits++;
		return buf_printf(b, "%s", ce->reply);
	}
	n = symbolizer__symbolize(srv->symb, addr, frames, SYMB_MAX_FRAMES);
	if (n == -ERANGE)
		return reply_err(b, n, "address 0x%llx is not in an executable section",
				 (unsigned long long)addr);
	if (n < 0)
		return reply_err(b, n, "cannot symbolize 0x%llx: %s", (unsigned long long)addr,
				 strerror(-n));
	err = reply_frames(b, frames, n);
	if (err)
		return err;
	cache_put(srv, addr, b->p + start, b->len - start);
	return 0;
}

struct glob_ctx {
	struct reply_buf b;
	int n;
};

static int glob_cb(void *ctx, const char *func, uint64_t addr, const char *cu_path)
{
	struct glob_ctx *g = ctx;

	g->n++;
	return buf_printf(&g->b, "0x%llx\t", (unsigned long long)addr) ?: buf_field(&g->b, func) ?:
	       buf_printf(&g->b, "\t") ?: buf_field(&g->b, cu_path) ?: buf_printf(&g->b, "\n");
}

int reply_frames(struct reply_buf *b, const struct src_frame *frames, int n)
{
	int i, err = buf_printf(b, "ok %d\n", n);

	for (i = 0; i < n && !err; i++) {
		err = buf_field(b, frames[i].func ?: "??") ?: buf_printf(b, "\t") ?:
		      buf_field(b, frames[i].file ?: "??") ?:
		      buf_printf(b, "\t%d\t%d\n", frames[i].line, frames[i].col);
	}
	return err;
}

static int do_glob(struct server *srv, const char *pattern, int fd, struct reply_buf *b)
{
	struct glob_ctx g = {};
	int err;

	if (!srv->symb)
		return reply_err(b, -ENOENT, "no file given on the command line");
	if (!*pattern)
		return reply_err(b, -EINVAL, "empty glob");
	err = symbolizer__for_each_func_in(srv->symb, pattern, glob_cb, &g);
	if (err) {
		free(g.b.p);
		if (err == -ENOMEM)
			return err;
		return reply_err(b, err, "glob '%.64s' failed: %s", pattern,
				 err == -ENODATA ? "no DWARF in the file" : strerror(-err));
	}
	err = buf_printf(b, "ok %d\n", g.n);
	if (!err && g.b.len)
		err = buf_printf(b, "%.*s", (int)g.b.len, g.b.p);
	free(g.b.p);
	return err;
}

static int do_info(struct server *srv, const char *arg, int fd, struct reply_buf *b)
{
	if (!srv->symb)
		return buf_printf(b, "ok 4\nversion\t%d\nfile\t-\nkernel\t0\ncus\t0\n",
				  PROTO_VERSION);
	return buf_printf(b, "ok 4\nversion\t%d\nfile\t", PROTO_VERSION) ?:
	       buf_field(b, srv->elf_path) ?:
	       buf_printf(b, "\nkernel\t%d\ncus\t%zu\n", symbolizer__is_kernel(srv->symb),
			  symbolizer__cu_count(srv->symb));
}

static int do_stats(struct server *srv, const char *arg, int fd, struct reply_buf *b)
{
	static const struct symb_stats none;
	const struct symb_stats *st = srv->symb ? symbolizer__stats(srv->symb) : &none;

	return buf_printf(b, "ok 5\ncus_indexed\t%llu\nindex_ms\t%.1f\nlines_ms\t%.1f\n"
			  "requests\t%llu\ncache_hits\t%llu\n",
			  (unsigned long long)st->cus_indexed, st->index_ns / 1e6,
			  st->lines_ns / 1e6, (unsigned long long)srv->requests,
			  (unsigned long long)srv->cache_hits);
}

static int do_quit(struct server *srv, const char *arg, int fd, struct reply_buf *b)
{
	return buf_printf(b, "ok 0\n") ?: 1;
}

/*
 * Every request verb. A new verb is one row here and its handler (in a file of its own
 * for a new concern, declared in server_int.h); the dispatcher does the argument and
 * descriptor checks the flags ask for.
 */
static const struct verb verbs[] = {
	{ "quit", do_quit, 0 },
	{ "sym", do_sym, VERB_FILE },
	{ "glob", do_glob, VERB_FILE },
	{ "info", do_info, VERB_FILE | VERB_NO_ARG },
	{ "stats", do_stats, VERB_FILE | VERB_NO_ARG },
	{ "open", do_open, VERB_FD },
	{ "debug", do_debug, VERB_FD },
	{ "fsym", do_fsym, 0 },
	{ "fline", do_fline, 0 },
	{ "close", do_close, 0 },
};

static int dispatch(struct server *srv, const char *line, size_t len, struct fd_queue *fds,
		    struct reply_buf *out)
{
	char req[MAX_REQ_LEN + 1], *arg, *sp;
	const struct verb *v = NULL;
	size_t i;
	int fd;

	/* the one request that carries data: a stack window and the maps */
	if (len > 7 && !memcmp(line, "unwind ", 7)) {
		if (len - 7 > MAX_UNWIND_REQ_LEN)
			return reply_err(out, -E2BIG, "unwind request longer than %u bytes",
					 MAX_UNWIND_REQ_LEN);
		if (memchr(line, '\0', len))
			return reply_err(out, -EINVAL, "NUL byte in request");
		return do_unwind(srv, line + 7, len - 7, out);
	}
	if (len > MAX_REQ_LEN)
		return reply_err(out, -E2BIG, "request longer than %d bytes", MAX_REQ_LEN);
	if (memchr(line, '\0', len))
		return reply_err(out, -EINVAL, "NUL byte in request");
	memcpy(req, line, len);
	req[len] = '\0';
	/* "verb arg": the argument starts after the spaces following the verb */
	sp = strchr(req, ' ');
	arg = req + len;
	if (sp) {
		*sp++ = '\0';
		while (*sp == ' ')
			sp++;
		arg = sp;
	}
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		if (strcmp(req, verbs[i].name) == 0) {
			v = &verbs[i];
			break;
		}
	}
	/* a descriptor sent with a request is taken by it, whatever the outcome */
	fd = v && (v->flags & VERB_FD) ? fd_queue__take(fds) : -1;
	if (v && (v->flags & VERB_FD) && fd < 0)
		return reply_err(out, -EBADF, "'%s' needs a file descriptor sent with it", req);
	/* the file named on the command line could not be opened: say why each time */
	if (v && (v->flags & VERB_FILE) && srv->open_err) {
		if (fd >= 0)
			close(fd);
		return reply_err(out, srv->open_err, "cannot open '%s': %s", srv->elf_path,
				 strerror(-srv->open_err));
	}
	if (!v || ((v->flags & VERB_NO_ARG) && *arg)) {
		if (fd >= 0)
			close(fd);
		return reply_err(out, -EINVAL, "unknown request '%.32s'", req);
	}
	return v->handle(srv, arg, fd, out);
}

int server__handle(struct server *srv, const char *line, size_t len, struct fd_queue *fds,
		   struct reply_buf *out)
{
	size_t start = out->len;
	int ret = dispatch(srv, line, len, fds, out);

	if (ret != -ENOMEM)
		return ret;
	/* whatever part of the reply was written goes: the error is the whole reply */
	out->len = start;
	return reply_err(out, -ENOMEM, "out of memory");
}

struct server *server__new(const char *elf_path, const struct symbolizer_opts *opts)
{
	struct server *srv = calloc(1, sizeof(*srv));
	int err;

	if (!srv)
		return NULL;
	srv->images = images__new(opts);
	srv->elf_path = elf_path ? strdup(elf_path) : NULL;
	if (!srv->images || (elf_path && !srv->elf_path)) {
		err = srv->images ? ENOMEM : errno;
		server__free(srv);
		return errno = err, NULL;
	}
	if (elf_path) {
		srv->symb = symbolizer__open(elf_path, opts);
		srv->open_err = srv->symb ? 0 : -errno;
	}
	return srv;
}

void server__free(struct server *srv)
{
	if (!srv)
		return;
	cache_clear(srv);
	free(srv->cache);
	symbolizer__close(srv->symb);
	server_unwind__free(srv);
	images__free(srv->images);
	free(srv->elf_path);
	free(srv);
}

struct images *server__images(const struct server *srv)
{
	return srv->images;
}

int fd_queue__push(struct fd_queue *q, int fd)
{
	if (q->cnt == MAX_QUEUED_FDS)
		return -EMFILE;
	q->fds[(q->head + q->cnt++) % MAX_QUEUED_FDS] = fd;
	return 0;
}

int fd_queue__take(struct fd_queue *q)
{
	int fd;

	if (!q || !q->cnt)
		return -1;
	fd = q->fds[q->head];
	q->head = (q->head + 1) % MAX_QUEUED_FDS;
	q->cnt--;
	return fd;
}

int server__open_err(const struct server *srv)
{
	return srv->open_err;
}

struct symbolizer *server__symbolizer(const struct server *srv)
{
	return srv->symb;
}
