// SPDX-License-Identifier: BSD-2-Clause
/*
 * Sessions that the thread's exit cuts short (tests/uprobe/run.sh): traced functions that
 * call exit() or pthread_exit() and so never return.
 *
 *   uexit PATH          main -> do_work -> fail_and_exit: open_config fails on PATH,
 *                       log_failure (void) says so, then exit(3)
 *   uexit --status      do_work -> status_exit: nothing fails, exit(4)
 *   uexit --ok          do_work -> ok_exit: nothing fails, exit(0)
 *   uexit --abort       do_work -> abort_work: nothing fails, then abort() (SIGABRT)
 *   uexit --segv        do_work -> segv_work: nothing fails, then a store through NULL
 *                       (SIGSEGV)
 *   uexit --term        do_work -> term_work: nothing fails, then raise(SIGTERM), which
 *                       kills without a core dump
 *   uexit --thread PATH a worker's thread_work fails open_config on PATH and calls
 *                       pthread_exit(); main goes on (do_work succeeds on /dev/null), starts
 *                       a second worker that waits in idle_work, then finish_work calls
 *                       exit(5) while that worker still runs
 *
 * noipa: every traced function keeps its own symbol and real calls.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int logged;

__attribute__((noipa)) int open_config(const char *path)
{
	return open(path, O_RDONLY | O_CLOEXEC);
}

__attribute__((noipa)) void log_failure(const char *path)
{
	logged++;
	fprintf(stderr, "uexit: cannot open %s\n", path);
}

__attribute__((noipa)) void fail_and_exit(const char *path)
{
	int fd = open_config(path);

	if (fd < 0) {
		log_failure(path);
		exit(3);
	}
	close(fd);
}

__attribute__((noipa)) void status_exit(void)
{
	int fd = open_config("/dev/null");

	close(fd);
	exit(4);
}

__attribute__((noipa)) void ok_exit(void)
{
	int fd = open_config("/dev/null");

	close(fd);
	exit(0);
}

/* volatile: the compiler can't see the NULL and turn the store into a trap (SIGILL) */
static int *volatile nowhere;

__attribute__((noipa)) void abort_work(void)
{
	close(open_config("/dev/null"));
	abort();
}

__attribute__((noipa)) void segv_work(void)
{
	close(open_config("/dev/null"));
	*nowhere = 1;
}

__attribute__((noipa)) void term_work(void)
{
	close(open_config("/dev/null"));
	raise(SIGTERM);
}

__attribute__((noipa)) int do_work(const char *mode, const char *path)
{
	if (strcmp(mode, "--status") == 0)
		status_exit();
	else if (strcmp(mode, "--ok") == 0)
		ok_exit();
	else if (strcmp(mode, "--abort") == 0)
		abort_work();
	else if (strcmp(mode, "--segv") == 0)
		segv_work();
	else if (strcmp(mode, "--term") == 0)
		term_work();
	else if (strcmp(mode, "--fail") == 0)
		fail_and_exit(path);
	else {
		int fd = open_config(path);

		if (fd < 0)
			return -1;
		close(fd);
	}
	return 0;
}

__attribute__((noipa)) void *thread_work(void *path)
{
	if (open_config(path) < 0)
		pthread_exit(NULL);
	return NULL;
}

static int idle_pipe[2];

__attribute__((noipa)) void *idle_work(void *arg)
{
	char c;

	(void)arg;
	/* blocks until the process exits: the pipe's other end is never written */
	return read(idle_pipe[0], &c, 1) > 0 ? arg : NULL;
}

__attribute__((noipa)) void finish_work(void)
{
	exit(5);
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 2 && strcmp(argv[1], "--thread") == 0) {
		if (pthread_create(&t, NULL, thread_work, argv[2]) || pthread_join(t, NULL))
			return 2;
		if (do_work("--open", "/dev/null") < 0 || pipe(idle_pipe) ||
		    pthread_create(&t, NULL, idle_work, NULL))
			return 2;
		usleep(100 * 1000);	/* idle_work is in read() by then */
		finish_work();
	}
	if (argc > 1 && argv[1][0] == '-')
		return do_work(argv[1], NULL);
	if (argc > 1)
		return do_work("--fail", argv[1]);
	fprintf(stderr, "usage: uexit PATH | --status | --ok | --abort | --segv | --term | --thread PATH\n");
	return 2;
}
