// SPDX-License-Identifier: BSD-2-Clause
/*
 * errtrig32: a 32-bit x86 program (i386, no libc) whose open() of a path under a missing
 * directory fails: its syscalls enter the compat wrappers (__ia32_compat_sys_open), which
 * the whole-kernel hunt starts sessions at only for a 32-bit command or -p process. Prints
 * the result and exits 0 when it was -ENOENT. Built -m32 -nostdlib: no 32-bit libc needed.
 */
#define NR_EXIT		1
#define NR_WRITE	4
#define NR_OPEN		5
#define NR_ACCESS	33
#define NR_NANOSLEEP	162
#define ENOENT		2

static long sys3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
	return ret;
}

static void say(const char *s)
{
	long n = 0;

	while (s[n])
		n++;
	sys3(NR_WRITE, 1, (long)s, n);
}

/* noinline: a frame of its own in the user stack */
static __attribute__((noinline)) long open_missing(void)
{
	return sys3(NR_OPEN, (long)"/nonexistent-errtrig32/file", 0, 0);
}

/*
 * `errtrig32 FILE`: wait for FILE to exist first (for `retsnoop -p`, which attaches to
 * the running process before the open() is made).
 */
void _start(void)
{
	/* with a frame pointer: argc just above the saved one, argv after it */
	long *sp = (long *)__builtin_frame_address(0) + 1;
	char **argv = (char **)(sp + 1);
	long ts[2] = { 0, 100 * 1000 * 1000 }, r;

	if (sp[0] > 1) {
		while (sys3(NR_ACCESS, (long)argv[1], 0, 0) != 0)
			sys3(NR_NANOSLEEP, (long)ts, 0, 0);
	}
	r = open_missing();

	say(r == -ENOENT ? "CASE open-enoent-32: FAILED with -ENOENT (-2)\n" :
			   "CASE open-enoent-32: unexpected result\n");
	sys3(NR_EXIT, r == -ENOENT ? 0 : 1, 0, 0);
	for (;;)
		;
}
