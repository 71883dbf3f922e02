// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "mono_clock.h"
#include "probe_fds.h"
#include "detach_child.h"

/* How often the wait looks at the child: the latency of "done" and of a deadline. */
#define POLL_NS 5000000L

/*
 * Written by the child, read here. @stage is one of the release code's string constants:
 * after a fork it lies at the same address in both processes.
 */
struct detach_shared {
	const char *stage;
	size_t done;
	size_t total;
};

struct detach_child {
	pid_t pid;
	int go_fd;			/* the pipe's write end; -1 once go was said */
	bool reaped;
	struct detach_shared *sh;	/* a shared anonymous page */
};


static __attribute__((noreturn)) void child_main(struct detach_child *dc, int go_fd,
						 pid_t parent,
						 void (*release)(struct detach_child *dc, void *ctx),
						 void *ctx)
{
	struct timespec ms = { .tv_nsec = 1000000 };
	sigset_t all;
	ssize_t n;
	char c;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	setsid();
	probe_fds__keep_only(go_fd);
	do
		n = read(go_fd, &c, 1);
	while (n < 0 && errno == EINTR);
	/*
	 * EOF: retsnoop exits without a go, its references dropped only when its last thread
	 * is gone, which is when this child gets another parent.
	 */
	if (n != 1)
		while (getppid() == parent)
			nanosleep(&ms, NULL);
	close(go_fd);
	release(dc, ctx);
	_exit(0);
}

struct detach_child *detach_child__start(void (*release)(struct detach_child *dc, void *ctx),
					 void *ctx)
{
	struct detach_child *dc = calloc(1, sizeof(*dc));
	pid_t parent = getpid();
	int p[2], err;

	if (!dc)
		return NULL;
	dc->go_fd = -1;
	dc->sh = mmap(NULL, sizeof(*dc->sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	if (dc->sh == MAP_FAILED) {
		err = errno;
		free(dc);
		errno = err;
		return NULL;
	}
	if (pipe2(p, O_CLOEXEC)) {
		err = errno;
		goto fail;
	}
	dc->pid = fork();
	if (dc->pid == 0) {
		close(p[1]);
		/* its copy of dc: the same shared page */
		child_main(dc, p[0], parent, release, ctx);
	}
	err = errno;
	close(p[0]);
	if (dc->pid < 0) {
		close(p[1]);
		goto fail;
	}
	dc->go_fd = p[1];
	return dc;
fail:
	munmap(dc->sh, sizeof(*dc->sh));
	free(dc);
	errno = err;
	return NULL;
}

void detach_child__go(struct detach_child *dc)
{
	ssize_t n;

	if (dc->go_fd < 0)
		return;
	do
		n = write(dc->go_fd, "g", 1);
	while (n < 0 && errno == EINTR);
	/* not written: the EOF below still lets it begin, once this process is gone */
	close(dc->go_fd);
	dc->go_fd = -1;
}

int detach_child__wait(struct detach_child *dc, long deadline_ms,
		       const volatile sig_atomic_t *cancel, progress_fn progress, void *ctx)
{
	struct timespec step = { .tv_nsec = POLL_NS };

	while (!dc->reaped) {
		pid_t r = waitpid(dc->pid, NULL, WNOHANG);
		const char *stage;

		/* ECHILD: reaped by the kernel already (SIGCHLD ignored) */
		if (r == dc->pid || (r < 0 && errno == ECHILD)) {
			dc->reaped = true;
			break;
		}
		stage = __atomic_load_n(&dc->sh->stage, __ATOMIC_ACQUIRE);
		if (progress && stage)
			progress(ctx, stage, __atomic_load_n(&dc->sh->done, __ATOMIC_RELAXED),
				 __atomic_load_n(&dc->sh->total, __ATOMIC_RELAXED));
		if (deadline_ms && now_ms() >= deadline_ms)
			return -ETIMEDOUT;
		if (cancel && *cancel)
			return -ECANCELED;
		/* a signal cuts the sleep short: its handler decides whether to wait on */
		nanosleep(&step, NULL);
	}
	return 0;
}

pid_t detach_child__pid(const struct detach_child *dc)
{
	return dc->pid;
}

void detach_child__progress(void *ctx, const char *stage, size_t done, size_t total)
{
	struct detach_child *dc = ctx;

	__atomic_store_n(&dc->sh->done, done, __ATOMIC_RELAXED);
	__atomic_store_n(&dc->sh->total, total, __ATOMIC_RELAXED);
	__atomic_store_n(&dc->sh->stage, stage, __ATOMIC_RELEASE);
}

void detach_child__free(struct detach_child *dc)
{
	if (!dc)
		return;
	/* never told to go: it begins once this process is gone */
	if (dc->go_fd >= 0)
		close(dc->go_fd);
	munmap(dc->sh, sizeof(*dc->sh));
	free(dc);
}
