// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/close_range.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "addr2line.h"
#include "mono_clock.h"
#include "opts.h"
#include "sym_resolver.h"

/* sidecar/blob.S; weak so that binaries linking this module without the blob still link */
extern const char retsnoop_sidecar_start[] __attribute__((weak));
extern const char retsnoop_sidecar_end[] __attribute__((weak));
extern char **environ;

#define DEFAULT_TIMEOUT_MS 60000
/*
 * Longest sleep in one poll() while waiting for a reply: a signal that sets the cancel flag
 * just before poll() starts does not interrupt it, so the flag is looked at this often.
 */
#define CANCEL_POLL_MS 50

struct addr2line {
	int sock;
	pid_t pid;
	int err;		/* sticky: set once the sidecar is gone or out of sync */
	int timeout_ms;
	/* interruption: a change of *cancel or of intr since the call began */
	const volatile sig_atomic_t *cancel;
	volatile sig_atomic_t intr;
	sig_atomic_t cancel_seen, intr_seen;
	/* what interrupted calls left unread: whole replies, then lines of the current one */
	int unread;
	long unread_lines;
	/* receive buffer */
	char *rbuf;
	size_t rlen, rpos, rcap;
	/* the last reply's lines, NUL-separated; frames point into it */
	char *reply;
	size_t reply_len, reply_cap;
};

/*
 * The blob's pages of our executable, read once to copy it out: dropped from our mapping
 * again (2 MB, most of what starting the sidecar added to a run's peak RSS). They are
 * read-only file pages: a later read faults them back in from the file.
 */
static void drop_blob_pages(const char *p, size_t len)
{
	uintptr_t page = sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t hi = ((uintptr_t)p + len) & ~(page - 1);

	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* Write the embedded sidecar into an anonymous file; returns a read-only fd to exec. */
static int blob_fd(void)
{
	size_t len = retsnoop_sidecar_end - retsnoop_sidecar_start, off = 0;
	char proc_path[64];
	int fd, ro, err;

	if (!retsnoop_sidecar_start || !retsnoop_sidecar_end || !len)
		return -EOPNOTSUPP;
	fd = memfd_create("retsnoop-sidecar", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t n = write(fd, retsnoop_sidecar_start + off, len - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			close(fd);
			return err;
		}
		off += n;
	}
	drop_blob_pages(retsnoop_sidecar_start, len);
	/*
	 * exec refuses a file that is open for writing (ETXTBSY): reopen it
	 * read-only through /proc and drop the writable fd.
	 */
	snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", fd);
	ro = open(proc_path, O_RDONLY | O_CLOEXEC);
	if (ro < 0)
		return fd;	/* no /proc: try the writable fd, newer kernels allow it */
	close(fd);
	return ro;
}

/*
 * In the child before exec: nothing retsnoop has open reaches the sidecar (a traced
 * command's pipes, BPF objects) but stdin, stdout and stderr.
 */
static void close_inherited(void)
{
	int fd;

	if (!close_range(3, ~0U, CLOSE_RANGE_CLOEXEC))
		return;
	/* kernels before 5.11 */
	for (fd = 3; fd < 4096; fd++)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
}

static int spawn(struct addr2line *a, const char *elf_path, const struct addr2line_opts *opts)
{
	const char *path = opts->sidecar_path;
	char *argv[3];
	int sv[2], exe_fd = -1, argc = 0, err;
	pid_t pid, parent;

	if (!path)
		path = getenv("RETSNOOP_SIDECAR");
	if (!path) {
		exe_fd = blob_fd();
		if (exe_fd < 0)
			return exe_fd;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		err = -errno;
		goto cleanup;
	}
	argv[argc++] = "retsnoop-sidecar";
	if (elf_path)
		argv[argc++] = (char *)elf_path;
	argv[argc] = NULL;

	parent = getpid();
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(sv[0]);
		close(sv[1]);
		goto cleanup;
	}
	if (pid == 0) {
		sigset_t none;

		/*
		 * A session of its own: the terminal's Ctrl-C goes to retsnoop's process group
		 * only, and retsnoop decides when the sidecar ends (it still symbolizes what is
		 * drained after Ctrl-C). It must not outlive retsnoop either: killed when the
		 * starting thread dies, and gone at once if that already happened.
		 */
		setsid();
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(127);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* the socket becomes stdin and stdout (dup2 clears CLOEXEC) */
		if (dup2(sv[1], 0) < 0 || dup2(sv[1], 1) < 0)
			_exit(127);
		close_inherited();
		if (exe_fd >= 0)
			fexecve(exe_fd, argv, environ);
		else
			execve(path, argv, environ);
		fprintf(stderr, "retsnoop: cannot start the symbolization sidecar: %s\n",
			strerror(errno));
		_exit(127);
	}
	close(sv[1]);
	a->sock = sv[0];
	a->pid = pid;
	err = 0;
cleanup:
	if (exe_fd >= 0)
		close(exe_fd);
	return err;
}

static int send_req(struct addr2line *a, const char *req)
{
	size_t len = strlen(req), off = 0;

	while (off < len) {
		/* MSG_NOSIGNAL: a dead sidecar must not kill retsnoop with SIGPIPE */
		ssize_t n = send(a->sock, req + off, len - off, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return a->err = -EPIPE;
		}
		off += n;
	}
	return 0;
}

/* Send @req with descriptor @fd attached to its first byte (SCM_RIGHTS). */
static int send_req_fd(struct addr2line *a, const char *req, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl = {};
	struct iovec iov = { (void *)req, strlen(req) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	ssize_t n;

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	do {
		n = sendmsg(a->sock, &mh, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return a->err = -EPIPE;
	/* the descriptor went with the first byte; the rest is plain data */
	return (size_t)n == iov.iov_len ? 0 : send_req(a, req + n);
}


/* A public call begins: only interruptions from now on count for it. */
static void begin_call(struct addr2line *a)
{
	a->cancel_seen = a->cancel ? *a->cancel : 0;
	a->intr_seen = a->intr;
}

static bool interrupted(const struct addr2line *a)
{
	return (a->cancel && *a->cancel != a->cancel_seen) || a->intr != a->intr_seen;
}

/* Wait until the socket has data: 0, -EINTR (interrupted), -ETIMEDOUT or another error. */
static int wait_readable(struct addr2line *a)
{
	struct pollfd pfd = { .fd = a->sock, .events = POLLIN };
	long long deadline = now_ms() + a->timeout_ms;

	for (;;) {
		long long left;
		int r;

		if (interrupted(a))
			return -EINTR;	/* not sticky: the reply is skipped later */
		left = deadline - now_ms();
		if (left <= 0)
			return a->err = -ETIMEDOUT;	/* out of sync from now on */
		r = poll(&pfd, 1, left < CANCEL_POLL_MS ? left : CANCEL_POLL_MS);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return a->err = -errno;
	}
}

/* Next reply line, without its newline; valid until the next read. */
static int read_line(struct addr2line *a, char **line)
{
	for (;;) {
		char *nl = a->rpos < a->rlen ? memchr(a->rbuf + a->rpos, '\n', a->rlen - a->rpos) : NULL;
		ssize_t n;
		int err;

		if (nl) {
			*nl = '\0';
			*line = a->rbuf + a->rpos;
			a->rpos = nl - a->rbuf + 1;
			return 0;
		}
		/* compact, then make room */
		if (a->rpos) {
			memmove(a->rbuf, a->rbuf + a->rpos, a->rlen - a->rpos);
			a->rlen -= a->rpos;
			a->rpos = 0;
		}
		if (a->rcap - a->rlen < 4096) {
			size_t ncap = a->rcap ? a->rcap * 2 : 65536;
			char *nb = realloc(a->rbuf, ncap);

			if (!nb)
				return -ENOMEM;
			a->rbuf = nb;
			a->rcap = ncap;
		}
		err = wait_readable(a);
		if (err)
			return err;
		n = read(a->sock, a->rbuf + a->rlen, a->rcap - a->rlen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return a->err = -EPIPE;
		}
		if (n == 0)
			return a->err = -EPIPE;	/* sidecar exited */
		a->rlen += n;
	}
}

/*
 * The next reply's header into *reply: the line count of an "ok", or the errno of an "err".
 * Returns 0, or the error that kept it from being read.
 */
static int read_header(struct addr2line *a, int *reply)
{
	char *line, *end;
	long v;
	int err;

	err = read_line(a, &line);
	if (err)
		return err;
	a->unread--;
	if (strncmp(line, "ok ", 3) == 0) {
		errno = 0;
		v = strtol(line + 3, &end, 10);
		if (errno || *end || v < 0 || v > 100000000)
			return a->err = -EPROTO;
		a->unread_lines = v;
		*reply = v;
		return 0;
	}
	if (strncmp(line, "err ", 4) == 0) {
		v = strtol(line + 4, &end, 10);
		*reply = v > 0 && v < 4096 ? -v : -EPROTO;
		return 0;
	}
	return a->err = -EPROTO;
}

/* The next line of the reply whose header was read last. */
static int read_reply_line(struct addr2line *a, char **line)
{
	int err = read_line(a, line);

	if (!err)
		a->unread_lines--;
	return err;
}

/* Skip what interrupted calls left unread, so that the next reply read is our own. */
static int drain(struct addr2line *a)
{
	int reply, err;
	char *line;

	for (;;) {
		while (a->unread_lines > 0) {
			err = read_reply_line(a, &line);
			if (err)
				return err;
		}
		if (!a->unread)
			return 0;
		err = read_header(a, &reply);
		if (err)
			return err;
	}
}

/*
 * Send @req (with descriptor @fd unless it is -1) and read the reply header: the line count
 * of an "ok", or the errno of an "err".
 */
static int request_fd(struct addr2line *a, const char *req, int fd)
{
	int reply, err;

	if (a->err)
		return a->err;
	err = drain(a);
	if (err)
		return err;
	err = fd >= 0 ? send_req_fd(a, req, fd) : send_req(a, req);
	if (err)
		return err;
	a->unread++;
	err = read_header(a, &reply);
	return err ?: reply;
}

/* Read @n reply lines into a->reply, NUL-separated. */
static int read_reply_lines(struct addr2line *a, int n)
{
	int i, err;

	a->reply_len = 0;
	for (i = 0; i < n; i++) {
		char *line;
		size_t len;

		err = read_reply_line(a, &line);
		if (err)
			return err;
		len = strlen(line) + 1;
		if (a->reply_cap - a->reply_len < len) {
			size_t ncap = a->reply_cap ? a->reply_cap * 2 : 4096;
			char *nb;

			while (ncap - a->reply_len < len)
				ncap *= 2;
			nb = realloc(a->reply, ncap);
			if (!nb)
				return a->err = -ENOMEM;	/* rest of the reply unread: out of sync */
			a->reply = nb;
			a->reply_cap = ncap;
		}
		memcpy(a->reply + a->reply_len, line, len);
		a->reply_len += len;
	}
	return 0;
}

/* Split a reply line into up to @max tab-separated fields, in place. */
static int split_tabs(char *line, char **fields, int max)
{
	int n = 0;

	fields[n++] = line;
	while (n < max && (line = strchr(line, '\t'))) {
		*line++ = '\0';
		fields[n++] = line;
	}
	return n;
}

/*
 * The next reply line at *@p as exactly @cnt tab-separated fields (split in place); *@p moves
 * to the line after it. 0, or -EPROTO (and the client unusable) for a malformed line.
 */
static int next_fields(struct addr2line *a, char **p, char **f, int cnt)
{
	if (split_tabs(*p, f, cnt) != cnt)
		return a->err = -EPROTO;
	*p = f[cnt - 1] + strlen(f[cnt - 1]) + 1;
	return 0;
}

/*
 * One public call: send @req (with descriptor @fd unless it is -1) and read the whole reply
 * into a->reply. Returns its line count, or the sidecar's or the transport's negative errno.
 */
static int call(struct addr2line *a, const char *req, int fd)
{
	int n, err;

	begin_call(a);
	n = request_fd(a, req, fd);
	if (n < 0)
		return n;
	err = read_reply_lines(a, n);
	return err ?: n;
}

struct addr2line *addr2line__new(const char *elf_path, const struct addr2line_opts *opts)
{
	struct addr2line_opts o;
	struct addr2line *a;
	int n, err;

	if (OPTS_COPY(&o, opts))
		return errno = EINVAL, NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->sock = -1;
	a->timeout_ms = o.timeout_ms > 0 ? o.timeout_ms : DEFAULT_TIMEOUT_MS;
	a->cancel = o.cancel;
	err = spawn(a, elf_path, &o);
	if (err)
		goto cleanup;
	/* the handshake tells whether the sidecar could open the file */
	n = call(a, "info\n", -1);
	if (n < 0) {
		err = n;
		goto cleanup;
	}
	return a;

cleanup:
	addr2line__free(a);
	return errno = -err, NULL;
}

void addr2line__free(struct addr2line *a)
{
	if (!a)
		return;
	if (a->sock >= 0)
		close(a->sock);	/* EOF on its stdin makes the sidecar exit */
	if (a->pid > 0) {
		/* don't wait on a wedged sidecar, or on one still busy with an abandoned request */
		if (a->err == -ETIMEDOUT || a->unread || a->unread_lines)
			kill(a->pid, SIGKILL);
		while (waitpid(a->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	free(a->rbuf);
	free(a->reply);
	free(a);
}

int addr2line__pid(const struct addr2line *a)
{
	return a->pid;
}

void addr2line__interrupt(struct addr2line *a)
{
	a->intr++;
}

/*
 * A call whose reply is "key<TAB>value" lines: @cb sees each pair (pointing into a->reply).
 * 0 or a negative errno.
 */
static int call_kv(struct addr2line *a, const char *req, int fd,
		   void (*cb)(void *ctx, const char *key, const char *val), void *ctx)
{
	char *p, *f[2];
	int n, i, err;

	n = call(a, req, fd);
	if (n < 0)
		return n;
	for (i = 0, p = a->reply; i < n; i++) {
		err = next_fields(a, &p, f, 2);
		if (err)
			return err;
		cb(ctx, f[0], f[1]);
	}
	return 0;
}

static void stats_kv(void *ctx, const char *key, const char *val)
{
	struct addr2line_stats *st = ctx;

	/* unknown counters are skipped: newer sidecars may report more */
	if (strcmp(key, "cus_indexed") == 0)
		st->cus_indexed = strtoull(val, NULL, 10);
	else if (strcmp(key, "index_ms") == 0)
		st->index_ms = strtod(val, NULL);
	else if (strcmp(key, "lines_ms") == 0)
		st->lines_ms = strtod(val, NULL);
	else if (strcmp(key, "requests") == 0)
		st->requests = strtoull(val, NULL, 10);
	else if (strcmp(key, "cache_hits") == 0)
		st->cache_hits = strtoull(val, NULL, 10);
}

int addr2line__stats(struct addr2line *a, struct addr2line_stats *st)
{
	memset(st, 0, sizeof(*st));
	return call_kv(a, "stats\n", -1, stats_kv, st);
}

/* Send @req, whose reply is source frames; keep the innermost @max of them. */
static int read_frames(struct addr2line *a, const char *req, struct src_frame *frames, int max)
{
	char *p;
	int n, i, err;

	n = call(a, req, -1);
	if (n == -ERANGE)
		return 0;	/* not code: nothing to say, not a failure */
	if (n < 0)
		return n;
	/* the outermost frames come first; if there are too many, keep the innermost */
	p = a->reply;
	for (i = 0; i < n; i++) {
		char *f[4];
		int k = i - (n > max ? n - max : 0);

		err = next_fields(a, &p, f, 4);
		if (err)
			return err;
		if (k < 0)
			continue;
		frames[k].func = f[0];
		frames[k].file = f[1];
		frames[k].line = atoi(f[2]);
		frames[k].col = atoi(f[3]);
	}
	return n > max ? max : n;
}

int addr2line__symbolize(struct addr2line *a, __u64 addr, struct src_frame *frames, int max)
{
	char req[48];

	snprintf(req, sizeof(req), "sym %llx\n", (unsigned long long)addr);
	return read_frames(a, req, frames, max);
}

int addr2line__find_by_source_glob(struct addr2line *a, const char *glob, addr2line_func_cb cb,
				   void *ctx)
{
	char *req, *p;
	int n, i, err;

	if (!*glob || strpbrk(glob, "\n\r"))
		return -EINVAL;
	if (asprintf(&req, "glob %s\n", glob) < 0)
		return -ENOMEM;
	n = call(a, req, -1);
	free(req);
	if (n < 0)
		return n;
	p = a->reply;
	for (i = 0; i < n; i++) {
		unsigned long long addr;
		char *f[3], *end;

		err = next_fields(a, &p, f, 3);
		if (err)
			return err;
		errno = 0;
		addr = strtoull(f[0], &end, 16);
		if (errno || *end)
			return a->err = -EPROTO;
		err = cb(ctx, f[1], addr, f[2]);
		if (err)
			return err;
	}
	return 0;
}

int addr2line__src_lookup(void *ctx, __u64 addr, struct src_frame *frames, int max)
{
	return addr2line__symbolize(ctx, addr, frames, max);
}

static void image_kv(void *ctx, const char *key, const char *val)
{
	struct addr2line_image *img = ctx;

	/*
	 * The caller opens files by these names with its privileges: a sidecar that a
	 * hostile file took over must not steer it anywhere but a build-ID path or a
	 * plain name next to the binary.
	 */
	if (strcmp(key, "id") == 0)
		img->id = atoi(val);
	else if (strcmp(key, "build_id") == 0 && strcmp(val, "-") != 0 &&
		 strspn(val, "0123456789abcdef") == strlen(val))
		snprintf(img->build_id, sizeof(img->build_id), "%s", val);
	else if (strcmp(key, "debuglink") == 0 && strcmp(val, "-") != 0 &&
		 !strchr(val, '/') && strcmp(val, ".") && strcmp(val, ".."))
		img->debuglink = val;
	else if (strcmp(key, "dwarf") == 0)
		img->dwarf = atoi(val);
	else if (strcmp(key, "symtab") == 0)
		img->symtab = atoi(val);
}

int addr2line__open_image(struct addr2line *a, int fd, const char *label,
			  struct addr2line_image *img)
{
	char *req, *p;
	int err;

	memset(img, 0, sizeof(*img));
	/* the label only names the file in messages: one line, whatever the path holds */
	if (asprintf(&req, "open %.1024s\n", label) < 0)
		return -ENOMEM;
	for (p = req + 5; *p != '\n' || p[1]; p++)
		if (*p == '\n' || *p == '\r')
			*p = '?';
	err = call_kv(a, req, fd, image_kv, img);
	free(req);
	if (err)
		return err;
	return img->id > 0 ? 0 : (a->err = -EPROTO);
}

int addr2line__attach_debug(struct addr2line *a, int id, int fd)
{
	char req[48];
	int n;

	snprintf(req, sizeof(req), "debug %d\n", id);
	n = call(a, req, fd);
	return n < 0 ? n : 0;
}

int addr2line__close_image(struct addr2line *a, int id)
{
	char req[48];
	int n;

	snprintf(req, sizeof(req), "close %d\n", id);
	n = call(a, req, -1);
	return n < 0 ? n : 0;
}

int addr2line__image_sym(struct addr2line *a, int id, __u64 off, const char **name,
			 __u64 *delta, __u64 *size)
{
	char req[64], *f[3], *end;
	int n;

	*name = NULL;
	snprintf(req, sizeof(req), "fsym %d %llx\n", id, (unsigned long long)off);
	n = call(a, req, -1);
	if (n == -ERANGE)
		return 0;	/* not loaded from the file: no symbol, not a failure */
	if (n <= 0)
		return n;
	if (n != 1 || split_tabs(a->reply, f, 3) != 3)
		return a->err = -EPROTO;
	errno = 0;
	*delta = strtoull(f[1], &end, 16);
	if (errno || *end)
		return a->err = -EPROTO;
	*size = strtoull(f[2], &end, 10);
	if (errno || *end)
		return a->err = -EPROTO;
	*name = f[0];
	return 0;
}

int addr2line__image_lines(struct addr2line *a, int id, __u64 off, struct src_frame *frames,
			   int max)
{
	char req[64];

	snprintf(req, sizeof(req), "fline %d %llx\n", id, (unsigned long long)off);
	return read_frames(a, req, frames, max);
}

int addr2line__unwind(struct addr2line *a, const char *req, char **lines)
{
	int n, err;

	if (strncmp(req, "unwind ", 7) || strpbrk(req, "\n\r"))
		return -EINVAL;
	begin_call(a);
	if (a->err)
		return a->err;
	/* the request may be far longer than any other: sent in two writes, no copy */
	err = drain(a) ?: send_req(a, req) ?: send_req(a, "\n");
	if (err)
		return err;
	a->unread++;
	err = read_header(a, &n);
	if (err)
		return err;
	if (n < 0)
		return n;
	err = read_reply_lines(a, n);
	if (err)
		return err;
	*lines = a->reply;
	return n;
}
