// SPDX-License-Identifier: BSD-2-Clause
/*
 * Traced functions that run on another stack than their traced callers
 * (tests/uprobe/run.sh). Each mode fails an open() on PATH in open_config(), N times
 * (default 1):
 *
 *   uctx co PATH [N]     run_co() switches (swapcontext()) to a coroutine on a stack
 *                        of its own (mmap()ed: far below the thread's stack) where
 *                        co_step() -> open_config() fail, then the coroutine's own
 *                        close(-1) (EBADF); the coroutine ends, uc_link resumes
 *                        run_co(), which returns -1
 *   uctx yield PATH [N]  the same, but co_step() switches back to run_co() after the
 *                        failure (it is suspended, not left) and run_co() resumes it
 *                        before returning, with no traced call between
 *   uctx sig PATH [N]    sig_work() raises SIGUSR1, whose handler runs on an alternate
 *                        signal stack (sigaltstack(), malloc()ed) and calls on_signal()
 *                        -> open_config(), then makes a syscall of its own (write(-1):
 *                        EBADF); sig_work() returns -1
 *
 * -O2 -g, noipa: every traced function a real call with a symbol of its own.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define CO_STACK_SIZE	(256 * 1024)

static ucontext_t main_ctx, co_ctx;
static const char *co_path;
static int co_res, co_yield;

__attribute__((noipa)) int open_config(const char *path)
{
	return open(path, O_RDONLY | O_CLOEXEC);
}

__attribute__((noipa)) int co_step(const char *path)
{
	int fd = open_config(path);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (co_yield)
		swapcontext(&co_ctx, &main_ctx);
	return -1;
}

static void co_body(void)
{
	co_res = co_step(co_path);
	/* a syscall of the coroutine's own, outside any traced function: EBADF */
	if (close(-1) == 0)
		co_res = 0;
}

__attribute__((noipa)) int run_co(const char *path)
{
	void *stack = mmap(NULL, CO_STACK_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

	if (stack == MAP_FAILED)
		return -2;
	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = stack;
	co_ctx.uc_stack.ss_size = CO_STACK_SIZE;
	co_ctx.uc_link = &main_ctx;
	co_path = path;
	makecontext(&co_ctx, co_body, 0);
	swapcontext(&main_ctx, &co_ctx);
	/* yield: co_step is suspended in the coroutine; resume it to its return */
	if (co_yield)
		swapcontext(&main_ctx, &co_ctx);
	munmap(stack, CO_STACK_SIZE);
	return co_res;
}

__attribute__((noipa)) int on_signal(const char *path)
{
	int fd = open_config(path);

	if (fd >= 0)
		close(fd);
	return fd < 0 ? -1 : 0;
}

static volatile sig_atomic_t sig_res;
static const char *sig_path;

static void handler(int sig)
{
	(void)sig;
	sig_res = on_signal(sig_path);
	/* a syscall of the handler's own, outside any traced function: EBADF */
	if (write(-1, "", 0) == 0)
		sig_res = 0;
}

__attribute__((noipa)) int sig_work(const char *path)
{
	sig_path = path;
	raise(SIGUSR1);
	return sig_res;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = handler, .sa_flags = SA_ONSTACK };
	stack_t ss = { .ss_size = CO_STACK_SIZE };
	int i, n = argc > 3 ? atoi(argv[3]) : 1, fails = 0;
	bool sig;

	if (argc < 3) {
		fprintf(stderr, "usage: uctx co|yield|sig PATH [N]\n");
		return 2;
	}
	sig = strcmp(argv[1], "sig") == 0;
	co_yield = strcmp(argv[1], "yield") == 0;
	if (sig) {
		ss.ss_sp = malloc(CO_STACK_SIZE);
		if (!ss.ss_sp || sigaltstack(&ss, NULL) || sigaction(SIGUSR1, &sa, NULL)) {
			perror("uctx: sigaltstack");
			return 1;
		}
	}
	/* each coroutine stack a new mapping: N chances for its address to mislead */
	for (i = 0; i < n; i++)
		fails += (sig ? sig_work(argv[2]) : run_co(argv[2])) < 0;
	printf("uctx: %s %d failures\n", argv[1], fails);
	return 0;
}
