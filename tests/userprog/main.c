// SPDX-License-Identifier: BSD-2-Clause
/*
 * The -U test program: main -> do_work -> open_config (in libucfg.so) -> open() on a path
 * that does not exist, so that the openat syscall fails with ENOENT under a known user
 * stack. Built at test time with and without frame pointers (tests/userprog/userprog.mk).
 *
 * usage: userprog [PATH [HOLD_MS [RELEASE]]]  HOLD_MS: stay alive that long after the
 * failure, so a tracer's maps snapshot of a short-lived process is not the point of a test;
 * with RELEASE, a file: only until it exists (a test creates it once the tracer has shown
 * this process's sample), at most HOLD_MS.
 * With USERPROG_SIGALT, do_work() runs in a signal handler on a stack of its own
 * (sigaltstack), the signal raised by main.
 * With USERPROG_JIT in the environment, main calls do_work() through a trampoline copied
 * into anonymous executable memory, as a JIT's code calls native code (a JVM's
 * interpreter calling a JNI function): no file, no unwind information, a frame pointer.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "ucfg.h"

__attribute__((noinline)) static int do_work(const char *path)
{
	int fd = open_config(path);

	/* keep the call from becoming a tail call: do_work must stay on the stack */
	if (fd < 0)
		perror(path);
	return fd < 0 ? 1 : 0;
}

typedef int (*tramp_fn)(int (*fn)(const char *), const char *arg);

/* tramp(fn, arg): a frame of its own (frame pointer saved and set), then fn(arg) */
static const unsigned char tramp_code[] = {
#if defined(__x86_64__)
	0x55,			/* push %rbp */
	0x48, 0x89, 0xe5,	/* mov %rsp,%rbp */
	0x48, 0x89, 0xf8,	/* mov %rdi,%rax */
	0x48, 0x89, 0xf7,	/* mov %rsi,%rdi */
	0xff, 0xd0,		/* call *%rax */
	0x5d,			/* pop %rbp */
	0xc3,			/* ret */
#elif defined(__aarch64__)
	0xfd, 0x7b, 0xbf, 0xa9,	/* stp x29, x30, [sp, #-16]! */
	0xfd, 0x03, 0x00, 0x91,	/* mov x29, sp */
	0xf0, 0x03, 0x00, 0xaa,	/* mov x16, x0 */
	0xe0, 0x03, 0x01, 0xaa,	/* mov x0, x1 */
	0x00, 0x02, 0x3f, 0xd6,	/* blr x16 */
	0xfd, 0x7b, 0xc1, 0xa8,	/* ldp x29, x30, [sp], #16 */
	0xc0, 0x03, 0x5f, 0xd6,	/* ret */
#else
#error "userprog: no trampoline for this architecture"
#endif
};

/*
 * The trampoline's page lies between two pages where a data file was mapped and let go,
 * as the loader does with /etc/ld.so.cache: no munmap() is recorded, so in the kernel's
 * mmap records the file still frames the code (a 3-page reservation: the file over it,
 * then the code in its middle page, the other two left unmapped).
 */
static int via_jit(const char *path)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *r = mmap(NULL, 3 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
	void *p;

	if (r == MAP_FAILED)
		return 2;
	if (fd >= 0) {
		if (mmap(r, 3 * pg, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED)
			return 2;
		close(fd);
	}
	munmap(r, 3 * pg);
	p = mmap(r + pg, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED)
		return 2;
	memcpy(p, tramp_code, sizeof(tramp_code));
	__builtin___clear_cache((char *)p, (char *)p + sizeof(tramp_code));
	if (mprotect(p, pg, PROT_READ | PROT_EXEC))
		return 2;
	return ((tramp_fn)p)(do_work, path);
}

static const char *sig_path;
static volatile int sig_ret;

static void on_signal(int sig)
{
	sig_ret = do_work(sig_path) + sig - SIGUSR1;
}

/* do_work(@path) in a handler on its own stack: its window holds none of main's frames */
static int via_signal(const char *path)
{
	static char alt[65536];
	stack_t ss = { .ss_sp = alt, .ss_size = sizeof(alt) };
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_ONSTACK };

	sig_path = path;
	if (sigaltstack(&ss, NULL) || sigaction(SIGUSR1, &sa, NULL) || raise(SIGUSR1))
		return 2;
	return sig_ret;
}

/* written after the call: main must not tail-call do_work, or it leaves the stack */
volatile int userprog_done;

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/nonexistent/retsnoop-userprog.conf";
	int ret = getenv("USERPROG_JIT") ? via_jit(path) :
		  getenv("USERPROG_SIGALT") ? via_signal(path) : do_work(path);

	userprog_done = 1;
	if (argc > 3) {
		/* access() is not open(): the failure traced stays the only open of ours */
		for (int ms = atoi(argv[2]); ms > 0 && access(argv[3], F_OK); ms -= 10)
			usleep(10000);
	} else if (argc > 2) {
		usleep(atoi(argv[2]) * 1000);
	}
	return ret;
}
