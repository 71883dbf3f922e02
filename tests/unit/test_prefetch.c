// SPDX-License-Identifier: BSD-2-Clause
/* kallsyms and vmlinux BTF read on helper threads: taken once, failures kept, no leaks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "unit.h"
#include <bpf/btf.h>
#include "ftrace_funcs.h"
#include "ksyms.h"
#include "prefetch.h"

static const char kallsyms[] =
	"ffffffffa1000000 T _stext\n"
	"ffffffffa1000100 T __sys_bpf\n";

static void test_ksyms_taken_once(void **state)
{
	char path[] = "/tmp/test_prefetch.XXXXXX";
	int fd = mkstemp(path);
	struct prefetch_opts o = { .sz = sizeof(o), .kallsyms_path = path, .ksyms = true };
	struct prefetch *p;
	struct ksyms *ks;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, kallsyms, sizeof(kallsyms) - 1), sizeof(kallsyms) - 1);
	close(fd);
	p = prefetch__start(&o);
	assert_non_null(p);
	ks = prefetch__take_ksyms(p);
	assert_non_null(ks);
	assert_int_equal(ksyms__cnt(ks), 2);
	assert_null(prefetch__take_ksyms(p));		/* once */
	errno = 0;
	assert_null(prefetch__take_vmlinux_btf(p));	/* not asked for */
	assert_int_equal(errno, ENOENT);
	prefetch__free(p);
	ksyms__free(ks);

	/* never taken: freed with the prefetch */
	p = prefetch__start(&o);
	assert_non_null(p);
	prefetch__free(p);
	unlink(path);
}

static void test_failure_kept(void **state)
{
	struct prefetch_opts o = {
		.sz = sizeof(o), .kallsyms_path = "/nonexistent/kallsyms", .ksyms = true,
	};
	struct prefetch *p = prefetch__start(&o);

	assert_non_null(p);
	errno = 0;
	assert_null(prefetch__take_ksyms(p));
	assert_int_equal(errno, ENOENT);
	prefetch__free(p);
}

/* The running kernel's BTF where there is one (not everywhere unit tests run). */
static void test_vmlinux_btf(void **state)
{
	struct prefetch_opts o = { .sz = sizeof(o), .vmlinux_btf = true };
	struct prefetch *p;
	struct btf *btf;

	if (access("/sys/kernel/btf/vmlinux", R_OK))
		skip();
	p = prefetch__start(&o);
	assert_non_null(p);
	btf = prefetch__take_vmlinux_btf(p);
	assert_non_null(btf);
	assert_true(btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT) > 0);
	btf__free(btf);
	prefetch__free(p);
}

/*
 * available_filter_functions: read where tracefs lets us (root in a VM), refused elsewhere;
 * either way an answer that says which, and nothing leaked or left mounted for the caller.
 */
static void test_ftrace_funcs(void **state)
{
	struct prefetch_opts o = { .sz = sizeof(o), .ftrace_funcs = true };
	struct prefetch *p = prefetch__start(&o);
	struct ftrace_funcs *ff;

	assert_non_null(p);
	errno = 0;
	ff = prefetch__take_ftrace_funcs(p);
	if (ff)
		assert_true(ftrace_funcs__cnt(ff) > 0);
	else
		assert_true(errno > 0);
	ftrace_funcs__free(ff);
	prefetch__free(p);
}

static void test_bad_opts(void **state)
{
	struct prefetch_opts o = { .sz = sizeof(o) + 64 };
	_Alignas(8) char big[sizeof(o) + 64] = {};

	memcpy(big, &o, sizeof(o));
	big[sizeof(o) + 3] = 1;		/* a field this build doesn't know is set */
	errno = 0;
	assert_null(prefetch__start((struct prefetch_opts *)big));
	assert_int_equal(errno, EINVAL);
}

static long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * A read that never ends (kallsyms from a FIFO nobody writes): with the stop flag set,
 * taking it gives up at once and freeing leaves it running. In a child that _exit()s:
 * the read's thread and the object it writes into stay until the process ends.
 */
static void abandon_child(const char *fifo)
{
	static volatile sig_atomic_t stop;
	struct prefetch_opts o = {
		.sz = sizeof(o), .kallsyms_path = fifo, .ksyms = true, .stop = &stop,
	};
	struct prefetch *p;
	long t0;
	int wfd;

	alarm(5);	/* a wait that ignores the stop: killed, and the test fails */
	wfd = open(fifo, O_RDWR);	/* a writer that never writes: the read blocks */
	if (wfd < 0 || !(p = prefetch__start(&o)))
		_exit(10);
	usleep(50 * 1000);
	stop = 1;
	t0 = mono_ms();
	errno = 0;
	if (prefetch__take_ksyms(p) || errno != EINTR)
		_exit(11);
	if (prefetch__take_ksyms(p) || errno != EINTR)	/* still given up, not waited for */
		_exit(12);
	prefetch__free(p);
	if (mono_ms() - t0 > 500)
		_exit(13);
	_exit(0);
}

static void test_stop_gives_up(void **state)
{
	char dir[] = "/tmp/test_prefetch.XXXXXX", fifo[64];
	int status;
	pid_t pid;

	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/kallsyms", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		abandon_child(fifo);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	unlink(fifo);
	rmdir(dir);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ksyms_taken_once),
		cmocka_unit_test(test_failure_kept),
		cmocka_unit_test(test_vmlinux_btf),
		cmocka_unit_test(test_ftrace_funcs),
		cmocka_unit_test(test_bad_opts),
		cmocka_unit_test(test_stop_gives_up),
	};

	return cmocka_run_group_tests_name("prefetch", tests, NULL, NULL);
}
