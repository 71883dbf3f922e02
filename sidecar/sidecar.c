// SPDX-License-Identifier: BSD-2-Clause
/*
 * retsnoop-sidecar: answers symbolization requests about one ELF file, one
 * line per request on stdin, one reply per request on stdout (PROTOCOL.md).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>

#include "symbolizer.h"

#define PROTO_VERSION 1
#define MAX_REQ_LEN 4096
/* Reply cache: repeated stack addresses are the common case for retsnoop. */
#define CACHE_SLOTS (1 << 16)

struct buf {
	char *p;
	size_t len, cap;
};

struct cache_ent {
	uint64_t addr;
	char *reply;
};

static struct symbolizer *symb;
static int open_err;
static const char *elf_path;
static struct cache_ent *cache;
static size_t cache_cnt;

static int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
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

/*
 * Append a name or path from the file: corrupt DWARF can put tabs or newlines in it, which
 * would break the reply's framing, so control characters become '?'.
 */
static int buf_field(struct buf *b, const char *s)
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

static void send(const char *s, size_t len)
{
	/* replies go out at once: the client waits for each one (lock-step) */
	if (fwrite(s, 1, len, stdout) != len || fflush(stdout))
		exit(1);
}

static void send_err(int err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* keep the reply a single line whatever the message holds */
	for (n = 0; msg[n]; n++) {
		if (msg[n] == '\n' || msg[n] == '\r')
			msg[n] = ' ';
	}
	printf("err %d %s\n", err < 0 ? -err : err, msg);
	if (fflush(stdout))
		exit(1);
}

static int parse_addr(const char *s, uint64_t *addr)
{
	uint64_t v = 0;
	int digits = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s; s++, digits++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
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

static size_t cache_slot(uint64_t addr)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 48) & (CACHE_SLOTS - 1);
}

static struct cache_ent *cache_find(uint64_t addr)
{
	size_t i;

	if (!cache)
		return NULL;
	for (i = cache_slot(addr); cache[i].reply; i = (i + 1) & (CACHE_SLOTS - 1)) {
		if (cache[i].addr == addr)
			return &cache[i];
	}
	return NULL;
}

static void cache_put(uint64_t addr, char *reply)
{
	size_t i;

	if (!cache) {
		cache = calloc(CACHE_SLOTS, sizeof(*cache));
		if (!cache) {
			free(reply);
			return;
		}
	}
	/* bounded memory: start over rather than evict one by one */
	if (cache_cnt >= CACHE_SLOTS / 4 * 3) {
		for (i = 0; i < CACHE_SLOTS; i++) {
			free(cache[i].reply);
			cache[i].reply = NULL;
		}
		cache_cnt = 0;
	}
	for (i = cache_slot(addr); cache[i].reply; i = (i + 1) & (CACHE_SLOTS - 1))
		;
	cache[i].addr = addr;
	cache[i].reply = reply;
	cache_cnt++;
}

static void do_sym(const char *arg)
{
	struct symb_frame frames[SYMB_MAX_FRAMES];
	struct cache_ent *ce;
	struct buf b = {};
	uint64_t addr;
	int n, i, err;

	err = parse_addr(arg, &addr);
	if (err) {
		send_err(err, "bad address '%.64s'", arg);
		return;
	}
	ce = cache_find(addr);
	if (ce) {
		send(ce->reply, strlen(ce->reply));
		return;
	}
	n = symbolizer__symbolize(symb, addr, frames, SYMB_MAX_FRAMES);
	if (n == -ERANGE) {
		send_err(n, "address 0x%llx is not in an executable section", (unsigned long long)addr);
		return;
	}
	if (n < 0) {
		send_err(n, "cannot symbolize 0x%llx: %s", (unsigned long long)addr, strerror(-n));
		return;
	}
	err = buf_printf(&b, "ok %d\n", n);
	for (i = 0; i < n && !err; i++) {
		err = buf_field(&b, frames[i].func) ?: buf_printf(&b, "\t") ?:
		      buf_field(&b, frames[i].file) ?:
		      buf_printf(&b, "\t%d\t%d\n", frames[i].line, frames[i].col);
	}
	if (err) {
		free(b.p);
		send_err(err, "out of memory");
		return;
	}
	send(b.p, b.len);
	cache_put(addr, b.p);
}

struct glob_ctx {
	struct buf b;
	int n;
};

static int glob_cb(void *ctx, const char *func, uint64_t addr, const char *cu_path)
{
	struct glob_ctx *g = ctx;

	g->n++;
	return buf_printf(&g->b, "0x%llx\t", (unsigned long long)addr) ?: buf_field(&g->b, func) ?:
	       buf_printf(&g->b, "\t") ?: buf_field(&g->b, cu_path) ?: buf_printf(&g->b, "\n");
}

static void do_glob(const char *pattern)
{
	struct glob_ctx g = {};
	char hdr[32];
	int err;

	if (!*pattern) {
		send_err(-EINVAL, "empty glob");
		return;
	}
	err = symbolizer__for_each_func_in(symb, pattern, glob_cb, &g);
	if (err) {
		free(g.b.p);
		send_err(err, "glob '%.64s' failed: %s", pattern,
			 err == -ENODATA ? "no DWARF in the file" : strerror(-err));
		return;
	}
	snprintf(hdr, sizeof(hdr), "ok %d\n", g.n);
	send(hdr, strlen(hdr));
	if (g.b.len)
		send(g.b.p, g.b.len);
	free(g.b.p);
}

static void do_info(void)
{
	struct buf b = {};

	if (buf_printf(&b, "ok 4\nversion\t%d\nfile\t", PROTO_VERSION) || buf_field(&b, elf_path) ||
	    buf_printf(&b, "\nkernel\t%d\ncus\t%zu\n", symbolizer__is_kernel(symb),
		       symbolizer__cu_count(symb))) {
		free(b.p);
		send_err(-ENOMEM, "out of memory");
		return;
	}
	send(b.p, b.len);
	free(b.p);
}

/* Split "verb arg" in place; returns the argument ("" if none). */
static char *split_req(char *line)
{
	char *sp = strchr(line, ' ');

	if (!sp)
		return line + strlen(line);
	*sp++ = '\0';
	while (*sp == ' ')
		sp++;
	return sp;
}

static void usage(void)
{
	fprintf(stderr, "usage: retsnoop-sidecar [-v] ELF\n  -v  statistics on exit\n");
	exit(2);
}

int main(int argc, char **argv)
{
	char *line = NULL, *arg;
	size_t cap = 0;
	ssize_t len;
	int verbose = 0, opt;

	while ((opt = getopt(argc, argv, "v")) != -1) {
		if (opt == 'v')
			verbose++;
		else
			usage();
	}
	if (optind != argc - 1)
		usage();
	elf_path = argv[optind];
	/* exec'ed from a memfd, the process would otherwise be named after the fd number */
	prctl(PR_SET_NAME, "retsnoop-sidec");
	/* big buffer, explicit flush per reply */
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);

	open_err = symbolizer__open(elf_path, NULL, &symb);
	if (open_err && verbose)
		fprintf(stderr, "retsnoop-sidecar: %s: %s\n", elf_path, strerror(-open_err));

	while ((len = getline(&line, &cap, stdin)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len > MAX_REQ_LEN) {
			send_err(-E2BIG, "request longer than %d bytes", MAX_REQ_LEN);
			continue;
		}
		if (memchr(line, '\0', len)) {
			send_err(-EINVAL, "NUL byte in request");
			continue;
		}
		arg = split_req(line);
		if (strcmp(line, "quit") == 0) {
			printf("ok 0\n");
			fflush(stdout);
			break;
		}
		/* every request but quit needs the file; report why it is missing each time */
		if (open_err) {
			send_err(open_err, "cannot open '%s': %s", elf_path, strerror(-open_err));
			continue;
		}
		if (strcmp(line, "sym") == 0)
			do_sym(arg);
		else if (strcmp(line, "glob") == 0)
			do_glob(arg);
		else if (strcmp(line, "info") == 0 && !*arg)
			do_info();
		else
			send_err(-EINVAL, "unknown request '%.32s'", line);
	}
	free(line);
	if (verbose && symb) {
		const struct symb_stats *st = symbolizer__stats(symb);

		fprintf(stderr, "retsnoop-sidecar: %llu CUs indexed in %.1f ms, line tables %.1f ms\n",
			(unsigned long long)st->cus_indexed, st->index_ns / 1e6, st->lines_ns / 1e6);
	}
	if (cache) {
		for (size_t i = 0; i < CACHE_SLOTS; i++)
			free(cache[i].reply);
		free(cache);
	}
	symbolizer__close(symb);
	return 0;
}
