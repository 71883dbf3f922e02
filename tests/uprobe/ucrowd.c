// SPDX-License-Identifier: BSD-2-Clause
/*
 * Many sessions at once (tests/uprobe/run.sh, section 14): N threads are all inside
 * crowd_work at the same time (a barrier there), then each fails open_config on PATH and
 * crowd_work returns -1. With a session table smaller than N the sessions that find their
 * slots taken live in task storage: each still has its own sample.
 *
 *   ucrowd N PATH
 *
 * noipa: every traced function keeps its own symbol and real calls.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS 64

static pthread_barrier_t inside;
static const char *path;

__attribute__((noipa)) int open_config(const char *p)
{
	return open(p, O_RDONLY | O_CLOEXEC);
}

__attribute__((noipa)) int crowd_work(void)
{
	int fd;

	/* every thread's session is running before any of them ends */
	pthread_barrier_wait(&inside);
	fd = open_config(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static void *worker(void *arg)
{
	(void)arg;
	return (void *)(long)crowd_work();
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	int n, i, failed = 0;
	void *res;

	if (argc != 3 || (n = atoi(argv[1])) < 1 || n > MAX_THREADS) {
		fprintf(stderr, "usage: ucrowd N(1-%d) PATH\n", MAX_THREADS);
		return 2;
	}
	path = argv[2];
	pthread_barrier_init(&inside, NULL, n);
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, worker, NULL))
			return 1;
	for (i = 0; i < n; i++) {
		pthread_join(th[i], &res);
		failed += res != NULL;
	}
	printf("ucrowd: %d of %d failed\n", failed, n);
	return 0;
}
