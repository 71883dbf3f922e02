/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A stdio stream whose every write(2) is one message to a reader: a SOCK_SEQPACKET pair,
 * the writer's end fdopen()ed with a small stdio buffer (so stdio on its own would send a
 * long line in pieces). For tests of whole-record output (test_out_whole.c, the sinks').
 */
#ifndef RETSNOOP_TEST_SEQPACKET_OUT_H
#define RETSNOOP_TEST_SEQPACKET_OUT_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/socket.h>

struct seqpacket_out {
	FILE *out;
	int peer;
	char buf[64];		/* the stream's (glibc ignores a size without a buffer) */
};

static inline void seqpacket_out__open(struct seqpacket_out *sp, size_t bufsz)
{
	int sv[2], big = 1 << 20;

	/* a write to a closed peer must fail with EPIPE, not kill the test */
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	sp->out = fdopen(sv[0], "w");
	assert_non_null(sp->out);
	assert_true(bufsz <= sizeof(sp->buf));
	setvbuf(sp->out, sp->buf, _IOFBF, bufsz);
	sp->peer = sv[1];
}

/* The next message's length (0: none waiting), its bytes in @buf. */
static inline size_t seqpacket_out__next(struct seqpacket_out *sp, char *buf, size_t sz)
{
	ssize_t n = recv(sp->peer, buf, sz, MSG_DONTWAIT);

	if (n < 0 && errno == EAGAIN)
		return 0;
	assert_true(n >= 0);
	return n;
}

static inline void seqpacket_out__close(struct seqpacket_out *sp)
{
	if (sp->out)
		fclose(sp->out);
	if (sp->peer >= 0)
		close(sp->peer);
}

#endif
