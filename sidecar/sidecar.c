// SPDX-License-Identifier: BSD-2-Clause
/*
 * retsnoop-sidecar: answers symbolization requests, one line per request on stdin, one
 * reply per request on stdout (PROTOCOL.md). stdin may be a Unix socket carrying file
 * descriptors (SCM_RIGHTS) for the requests that take one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include "sandbox.h"
#include "server.h"

/* Descriptors one read may bring; more than that in one go are a confused client. */
#define MAX_FDS_PER_READ 4

struct input {
	char *p;
	size_t len, pos, cap;
	bool plain;		/* not a socket: read() */
	bool eof;
};

static void usage(void)
{
	fprintf(stderr, "usage: retsnoop-sidecar [-v] [-S] [ELF]\n"
		"  -v  statistics on exit\n"
		"  -S  no sandbox (debugging)\n");
	exit(2);
}

/* Take the descriptors of a received message into @q; close what doesn't fit. */
static void take_fds(struct msghdr *mh, struct fd_queue *q)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		int *fds = (int *)CMSG_DATA(c);
		size_t i, n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			if (fd_queue__push(q, fds[i]))
				close(fds[i]);
		}
	}
}

/* More input into @in; 0, or -1 at EOF or on an error. */
static int fill(struct input *in, struct fd_queue *q)
{
	union {
		char buf[CMSG_SPACE(MAX_FDS_PER_READ * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov;
	struct msghdr mh = {};
	ssize_t n;

	if (in->pos) {
		memmove(in->p, in->p + in->pos, in->len - in->pos);
		in->len -= in->pos;
		in->pos = 0;
	}
	if (in->cap - in->len < 4096) {
		size_t ncap = in->cap ? in->cap * 2 : 8192;
		char *np = realloc(in->p, ncap);

		if (!np)
			return -1;
		in->p = np;
		in->cap = ncap;
	}
	for (;;) {
		if (in->plain) {
			n = read(0, in->p + in->len, in->cap - in->len);
		} else {
			iov = (struct iovec){ in->p + in->len, in->cap - in->len };
			mh = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1,
					      .msg_control = ctl.buf,
					      .msg_controllen = sizeof(ctl.buf) };
			n = recvmsg(0, &mh, MSG_CMSG_CLOEXEC);
			if (n < 0 && errno == ENOTSOCK) {
				in->plain = true;	/* by hand: a pipe or a terminal */
				continue;
			}
			if (n >= 0)
				take_fds(&mh, q);
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		in->len += n;
		return 0;
	}
}

/* Longest line accepted before giving up on the client (the server rejects > 4 KiB). */
#define MAX_LINE (1 << 20)

/* The next request line (terminators cut, NUL-terminated in place); -1 at the end. */
static int next_line(struct input *in, struct fd_queue *q, char **line, size_t *len)
{
	for (;;) {
		char *nl = NULL;

		if (in->len > in->pos)
			nl = memchr(in->p + in->pos, '\n', in->len - in->pos);

		if (nl) {
			*line = in->p + in->pos;
			*len = nl - *line;
			in->pos = nl - in->p + 1;
			*nl = '\0';
			while (*len && (*line)[*len - 1] == '\r')
				(*line)[--*len] = '\0';
			return 0;
		}
		if (in->eof || in->len - in->pos > MAX_LINE)
			return -1;
		if (fill(in, q)) {
			/* a last line without its newline still counts; fill() left room */
			in->eof = true;
			if (in->len == in->pos || in->len == in->cap)
				return -1;
			in->p[in->len++] = '\n';
		}
	}
}

int main(int argc, char **argv)
{
	struct reply_buf out = {};
	struct input in = {};
	struct fd_queue fds = {};
	int verbose = 0, sandbox = 1, opt, ret = 0, err;
	const char *path;
	struct server *srv;
	size_t len;
	char *line;

	while ((opt = getopt(argc, argv, "vS")) != -1) {
		if (opt == 'v')
			verbose++;
		else if (opt == 'S')
			sandbox = 0;
		else
			usage();
	}
	if (optind < argc - 1)
		usage();
	path = optind < argc ? argv[optind] : NULL;
	/* exec'ed from a memfd, the process would otherwise be named after the fd number */
	prctl(PR_SET_NAME, "retsnoop-sidec");

	srv = server__new(path, NULL);
	if (!srv)
		return 1;
	if (server__open_err(srv) && verbose)
		fprintf(stderr, "retsnoop-sidecar: %s: %s\n", path, strerror(-server__open_err(srv)));
	/*
	 * Everything it reads from now on may be hostile (any user's binaries): no privileges,
	 * only the system calls serving requests need. The command line's file is open already.
	 */
	if (sandbox) {
		err = sandbox__enter();
		if (err) {
			fprintf(stderr, "retsnoop-sidecar: cannot drop privileges: %s\n",
				strerror(-err));
			return 1;
		}
	}

	while (ret != 1 && !next_line(&in, &fds, &line, &len)) {
		out.len = 0;
		ret = server__handle(srv, line, len, &fds, &out);
		if (ret < 0)
			return 1;
		/* replies go out at once: the client waits for each one (lock-step) */
		if (fwrite(out.p, 1, out.len, stdout) != out.len || fflush(stdout))
			return 1;
	}
	free(in.p);
	free(out.p);
	if (verbose && server__symbolizer(srv)) {
		const struct symb_stats *st = symbolizer__stats(server__symbolizer(srv));

		fprintf(stderr, "retsnoop-sidecar: %llu CUs indexed in %.1f ms, line tables %.1f ms\n",
			(unsigned long long)st->cus_indexed, st->index_ns / 1e6, st->lines_ns / 1e6);
	}
	server__free(srv);
	return 0;
}
