// SPDX-License-Identifier: BSD-2-Clause
/*
 * The uprobe test program: main -> do_work -> open_config -> open() on a path that does
 * not exist, then the library's uprog_lib_probe() on it. Built at test time with -O2 -g
 * as a PIE (and non-PIE, stripped copies); noipa keeps each traced function a real call
 * with a symbol of its own.
 *
 *   uprog [PATH [COUNT]]   do the work COUNT times (default 1) on PATH
 *   uprog --bench N        call bench_leaf() N times (per-call cost of tracing it)
 *   uprog --wait           as the first form, but only after a line on stdin (-p tests)
 *   uprog --wait-twice     the same, and it exits only at the next line or stdin's end
 *   uprog --args NAME      call check_args() once with NAME among arguments of many kinds
 *   uprog --fork PATH      fork_work(): fork inside a traced function, both sides fail on PATH
 *   uprog --exec PATH      exec_work(): exec this program on PATH inside a traced function
 *   uprog --kill PATH      kill_work(): fail on PATH, then SIGKILL itself inside it
 *   uprog --nested-cleanup nc_top(): three failed calls wait for cleanup at once
 *   uprog --nested-lost    nc_lost(): the same, where the innermost one is the chain's origin
 *   uprog --deep           deep(70): 71 nested calls, the innermost failing
 *   uprog --passed-on      pt_top(): an error handed to a callee that passes it on, then
 *                          pt_control(): the same error made on its own
 *   uprog --passed-stale   pt_stale(): pt_top()'s chain, dealt with, then pt_walk's own
 *   uprog --sizes PATH     sz_work(): size_t results, (size_t)-1 from sz_file() on PATH
 *   uprog --dlopen NAME    dl_work(): dlopen() of NAME, which fails in the loader (longjmp)
 *   uprog --fresh-stack PATH  fresh_work() in a new thread: do_work(PATH) under an 8 KiB
 *                          local buffer the thread never touched (pages not in memory yet)
 *   uprog --maps N PATH    map this program's file N times (a burst of mmap records that no
 *                          small perf buffer holds), then do_work(PATH)
 */
#include <dlfcn.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "uprog.h"

#define DEFAULT_PATH "/nonexistent/retsnoop-uprog.conf"

__attribute__((noipa)) int open_config(const char *path)
{
	return open(path, O_RDONLY | O_CLOEXEC);
}

__attribute__((noipa)) int do_work(const char *path)
{
	int fd = open_config(path);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* a second name for do_work: globbing either traces it once */
int do_work_alias(const char *path) __attribute__((alias("do_work")));

struct uprog_pt {
	int x, y;
};

struct uprog_cfg {
	const char *name;
	long limit;
};

/*
 * -A: arguments of every kind the plan places (x86-64: n..name and u7 in registers, the
 * double in xmm0, s8 on the stack; the struct by value in one register). Fails (-1).
 */
__attribute__((noipa)) long check_args(int n, long neg, struct uprog_pt pt,
				       const struct uprog_cfg *cfg, const char *name,
				       double ratio, unsigned short u7, int s8)
{
	return n + neg + pt.x + pt.y + cfg->limit + (long)strlen(name) + (long)ratio + u7 + s8 >
	       0 ? -1 : 0;
}

/* Lifecycle: a process forking, exec'ing or killed inside a traced function. */
__attribute__((noipa)) int fork_work(const char *path)
{
	pid_t pid = fork();
	int r = open_config(path);

	if (pid == 0)
		_exit(r < 0 ? 0 : 1);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return r;
}

__attribute__((noipa)) int exec_work(const char *path)
{
	open_config(path);
	execl("/proc/self/exe", "uprog", path, (char *)NULL);
	return -1;
}

__attribute__((noipa)) int kill_work(const char *path)
{
	open_config(path);
	raise(SIGKILL);
	return -1;
}

/*
 * Failed calls waiting, nested, for their callers' cleanup: nc_top's callee failed and it
 * goes on to clean up, whose own callee failed before more cleanup, whose callee failed
 * too before still more: three chains kept aside at once, one more than a session keeps.
 */
static volatile int nc_sink;

__attribute__((noipa)) int nc_fail(int e)
{
	return -e;
}

__attribute__((noipa)) void nc_tidy(void)
{
	nc_sink++;
}

__attribute__((noipa)) void nc_cleanup2(void)
{
	nc_fail(5);
	nc_tidy();
}

__attribute__((noipa)) void nc_cleanup1(void)
{
	nc_fail(3);
	nc_cleanup2();
}

__attribute__((noipa)) int nc_top(void)
{
	int r = nc_fail(2);

	nc_cleanup1();
	return r;
}

/*
 * path_lookupat()'s idiom: pt_last()'s error is handed to pt_walk(), which returns it at
 * once (a long here: a user-space function's negative result fails, where the kernel's
 * would be an ERR_PTR()). In pt_control() pt_walk() fails with the same error on its own.
 */
__attribute__((noipa)) long pt_last(int e)
{
	nc_sink++;
	return -e;
}

__attribute__((noipa)) long pt_walk(long name)
{
	if (name < 0)
		return name;	/* an error handed in: passed on */
	nc_sink++;
	return name == 7 ? -2 : 0;	/* its own failure */
}

__attribute__((noipa)) long pt_top(void)
{
	long s = 1, err;

	while (!(err = pt_walk(s)) && (s = pt_last(2)) != 0)
		;
	return err;
}

__attribute__((noipa)) long pt_control(void)
{
	pt_last(2);
	return pt_walk(7);
}

/*
 * Three failed calls waiting at once again, but the innermost cleanup returns its failed
 * callee's error and so do its callers: the chain that could not be kept aside is the
 * sample's own (nc_lost -> nc_mid -> nc_inner -> nc_fail(5)).
 */
__attribute__((noipa)) int nc_inner(void)
{
	int r = nc_fail(5);

	nc_tidy();
	return r;
}

__attribute__((noipa)) int nc_mid(void)
{
	int r;

	nc_fail(3);
	r = nc_inner();
	nc_sink++;	/* not a tail call */
	return r;
}

__attribute__((noipa)) int nc_lost(void)
{
	int r;

	nc_fail(2);
	r = nc_mid();
	nc_sink++;
	return r;
}

/* pt_top()'s error is dealt with (a call that could fail succeeds), then one made anew */
__attribute__((noipa)) long pt_stale(void)
{
	long r;

	pt_top();
	pt_walk(1);
	r = pt_walk(7);
	nc_sink++;	/* not a tail call */
	return r;
}

/* Calls nested deeper than a session records (MAX_FSTACK_DEPTH, 64): the innermost fails */
__attribute__((noipa)) int deep(int n)
{
	int r = n ? deep(n - 1) : -1;

	nc_sink++;	/* after the call: not a tail call, every level a frame */
	return r;
}

__attribute__((noipa)) int bench_leaf(int x)
{
	return x & 1;
}

/*
 * --sizes: size_t results in iconv()'s convention. sz_file() fails with (size_t)-1 (and
 * stat()'s errno); sz_huge()'s (size_t)-4096, just outside -4095..-1, is a size; an
 * unsigned int of all ones is no error.
 */
__attribute__((noipa)) size_t sz_file(const char *path)
{
	struct stat st;

	return stat(path, &st) ? (size_t)-1 : (size_t)st.st_size;
}

__attribute__((noipa)) size_t sz_huge(void)
{
	return (size_t)-4096;
}

__attribute__((noipa)) unsigned int sz_u32(void)
{
	return ~0u;
}

__attribute__((noipa)) int sz_work(const char *path)
{
	size_t huge = sz_huge();
	unsigned int u32 = sz_u32();

	if (huge + u32 == 0)
		return 0;
	return sz_file(path) == (size_t)-1 ? -1 : 0;
}

/* --dlopen: the loader's error path, through functions a return probe would break */
__attribute__((noipa)) int dl_work(const char *name)
{
	void *h = dlopen(name, RTLD_NOW);

	if (!h)
		return -1;
	dlclose(h);
	return 0;
}

/*
 * --fresh-stack: a new thread's stack is fresh memory, so the pages of this frame's buffer
 * (above the call's return address, below this function's own) have never been touched
 * when do_work() fails: BPF's reads of the user stack can't fault them in, and the
 * unwinder needs the return address above them (tests/uprobe/run.sh, -U).
 */
__attribute__((noipa)) void *fresh_work(void *path)
{
	volatile char buf[8192];
	long ret;

	/* the lowest byte only: its page is the one the call's return address goes to */
	buf[0] = 1;
	ret = do_work(path);
	return (void *)(ret + buf[0] - 1);
}

static int fresh_stack(const char *path)
{
	pthread_t t;
	void *ret;

	if (pthread_create(&t, NULL, fresh_work, (void *)path) || pthread_join(t, &ret))
		return 1;
	return ret == (void *)-1L ? 0 : 1;
}

/*
 * --maps: each mmap() of a file is a perf MMAP2 record with its path, written at once
 * (@self, this program, where there is no /proc: in a chroot)
 */
static int map_burst(long n, const char *path, const char *self)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	long i;

	if (fd < 0)
		fd = open(self, O_RDONLY);
	if (fd < 0)
		return 1;
	for (i = 0; i < n; i++) {
		void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED)
			break;
		munmap(p, 4096);
	}
	close(fd);
	return i == n && do_work(path) == -1 ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *path = DEFAULT_PATH;
	long i, n = 1, sum = 0;
	bool wait = false;
	char line[16];

	if (argc > 2 && strcmp(argv[1], "--bench") == 0) {
		n = atol(argv[2]);
		for (i = 0; i < n; i++)
			sum += bench_leaf(i);
		return sum == n / 2 ? 0 : 1;
	}
	if (argc > 2 && strcmp(argv[1], "--args") == 0) {
		struct uprog_cfg cfg = { .name = argv[2], .limit = 100 };

		return check_args(7, -42, (struct uprog_pt){ 3, 4 }, &cfg, argv[2], 0.5, 65535,
				  -8) == -1 ? 0 : 1;
	}
	if (argc > 3 && strcmp(argv[1], "--maps") == 0)
		return map_burst(atol(argv[2]), argv[3], argv[0]);
	if (argc > 2 && strcmp(argv[1], "--fresh-stack") == 0)
		return fresh_stack(argv[2]);
	if (argc > 2 && strcmp(argv[1], "--dlopen") == 0)
		return dl_work(argv[2]) == -1 ? 0 : 1;
	if (argc > 2 && strcmp(argv[1], "--sizes") == 0)
		return sz_work(argv[2]) == -1 ? 0 : 1;
	if (argc > 1 && strcmp(argv[1], "--passed-on") == 0)
		return pt_top() == -2 && pt_control() == -2 ? 0 : 1;
	if (argc > 1 && strcmp(argv[1], "--passed-stale") == 0)
		return pt_stale() == -2 ? 0 : 1;
	if (argc > 1 && strcmp(argv[1], "--deep") == 0)
		return deep(70) < 0 ? 0 : 1;
	if (argc > 1 && strcmp(argv[1], "--nested-lost") == 0)
		return nc_lost() < 0 ? 0 : 1;
	if (argc > 1 && strcmp(argv[1], "--nested-cleanup") == 0)
		return nc_top() < 0 ? 0 : 1;
	if (argc > 2 && strcmp(argv[1], "--fork") == 0)
		return fork_work(argv[2]) < 0 ? 0 : 1;
	if (argc > 2 && strcmp(argv[1], "--exec") == 0)
		return exec_work(argv[2]) < 0 ? 0 : 1;
	if (argc > 2 && strcmp(argv[1], "--kill") == 0)
		return kill_work(argv[2]) < 0 ? 0 : 1;
	if (argc > 1 && (strcmp(argv[1], "--wait") == 0 || strcmp(argv[1], "--wait-twice") == 0)) {
		wait = strcmp(argv[1], "--wait-twice") == 0;
		if (!fgets(line, sizeof(line), stdin))
			return 2;
		argc--;
		argv++;
	}
	if (argc > 1)
		path = argv[1];
	if (argc > 2)
		n = atol(argv[2]);
	for (i = 0; i < n; i++) {
		sum += do_work(path);
		sum += uprog_lib_probe(path);
	}
	printf("uprog: %ld failures\n", -sum);
	if (wait) {
		/* the test reads what our calls cost before we go */
		fflush(stdout);
		(void)!fgets(line, sizeof(line), stdin);
	}
	return 0;
}
