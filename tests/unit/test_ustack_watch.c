// SPDX-License-Identifier: BSD-2-Clause
/*
 * ustack's use of the kernel's mapping records without a command (-p): only the given
 * process and what it forks are followed, and exited processes' mappings are let go
 * past max_exited; more processes than max_procs start over. A real shell under a CPU-wide watch of every process (mmap_watch),
 * with an unrelated process running alongside; /proc is a missing directory, so nothing
 * is read from it (no sidecar either) and only the records count.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/io_uring.h>
#include "unit.h"
#include "held_child.h"
#include "mmap_watch.h"
#include "symbolize.h"
#include "ustack.h"
#include "ustack_watch.h"

/* What ustack_watch__notes() said, at LOG_WARN */
static char said[512];

static void keep_said(int level, const char *fmt, va_list ap)
{
	if (level == LOG_WARN)
		vsnprintf(said + strlen(said), sizeof(said) - strlen(said), fmt, ap);
}

/* Run the shell (and an unrelated one) under a watch of @uo's limits; its stats. */
static void run_followed(struct ustack_opts *uo, struct ustack_stats *st)
{
	/* four processes: the shell and its three children (`exit` keeps it from exec'ing) */
	char *const sh[] = { "/bin/sh", "-c", "/bin/true; /bin/true; /bin/true; exit 0", NULL };
	char *const other[] = { "/bin/sh", "-c", "/bin/true; /bin/true; exit 0", NULL };
	struct symbolize_opts so = { .sz = sizeof(so) };
	/*
	 * A CPU-wide watch records every process's mappings: with guests booting beside the
	 * test (make test) 16 pages a CPU filled up in its window, and the records lost were
	 * not yet counted (the kernel writes its LOST record once there is room again), so
	 * the shell's exits went missing unseen (a fresh-clone CI run: exited_let_go 0). 1 MB
	 * a CPU.
	 */
	struct mmap_watch_opts wo = { .sz = sizeof(wo), .pid = -1, .pages = 256 };
	struct mmap_watch *w = NULL;
	struct symbolize *syms;
	struct ustack *u = NULL;
	int go, go2, err, pid;
	pid_t a, b;

	err = mmap_watch__new(&wo, &w);
	if (err == -EACCES || err == -EPERM)
		skip();		/* CPU-wide perf events need privileges */
	assert_int_equal(err, 0);
	syms = symbolize__new(&so);
	assert_non_null(syms);
	a = spawn_held(sh[0], (char *const *)sh, &go);
	b = spawn_held(other[0], (char *const *)other, &go2);
	pid = a;
	uo->syms = syms;
	uo->watch = w;
	uo->watch_tgids = &pid;
	uo->watch_tgid_cnt = 1;
	assert_int_equal(ustack__new(uo, &u), 0);
	assert_int_equal(write(go, "g", 1), 1);
	assert_int_equal(write(go2, "g", 1), 1);
	close(go);
	close(go2);
	assert_int_equal(waitpid(a, NULL, 0), a);
	assert_int_equal(waitpid(b, NULL, 0), b);
	ustack__sync(u);
	ustack__stats(u, st);
	assert_int_equal(mmap_watch__lost(w), 0);
	ustack__free(u);
	symbolize__free(syms);
	mmap_watch__free(w);
}

static void test_pid_followed(void **state)
{
	struct ustack_opts uo = {
		.sz = sizeof(uo), .proc_root = "/nonexistent-proc", .max_exited = 2,
	};
	struct ustack_stats st;

	run_followed(&uo, &st);
	/*
	 * The shell and its three children were followed and exited: two kept, two let go.
	 * Following anything else (the other shell and its two children, the host's
	 * processes) would let more go; not seeing exits would keep all four.
	 */
	assert_int_equal(st.exited_let_go, 2);
	assert_int_equal(st.procs, 2);
	assert_int_equal(st.procs_peak, 4);
	/* shells map no io_uring rings */
	assert_int_equal(st.io_uring_procs, 0);
}

/*
 * A process that maps an io_uring instance's rings is told apart (the run's end says its
 * requests' errors are not reported): a child of this test, watched as `-- CMD` watches
 * its command, sets one up once released. Exits 0 when it had the rings, 2 when the
 * kernel refused io_uring (a sysctl can), 3 when they could not be mapped.
 */
static void test_io_uring(void **state)
{
	struct symbolize_opts so = { .sz = sizeof(so) };
	struct ustack_opts uo = { .sz = sizeof(uo), .proc_root = "/nonexistent-proc" };
	struct mmap_watch_opts wo = { .sz = sizeof(wo) };
	struct io_uring_params prm;
	struct mmap_watch *w = NULL;
	struct ustack_stats st;
	struct symbolize *syms;
	struct ustack *u = NULL;
	int go[2], status, fd;
	pid_t pid;
	char c;

	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(100);
		memset(&prm, 0, sizeof(prm));
		fd = syscall(__NR_io_uring_setup, 4, &prm);
		if (fd < 0)
			_exit(2);
		if (mmap(NULL, prm.sq_off.array + prm.sq_entries * sizeof(__u32),
			 PROT_READ | PROT_WRITE, MAP_SHARED, fd, IORING_OFF_SQ_RING) == MAP_FAILED)
			_exit(3);
		_exit(0);
	}
	close(go[0]);
	wo.pid = pid;
	assert_int_equal(mmap_watch__new(&wo, &w), 0);
	syms = symbolize__new(&so);
	assert_non_null(syms);
	uo.syms = syms;
	uo.watch = w;
	assert_int_equal(ustack__new(&uo, &u), 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	close(go[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	/* 2: this kernel refuses io_uring, and the test can't tell anything */
	assert_int_equal(WEXITSTATUS(status), 0);
	ustack__sync(u);
	ustack__stats(u, &st);
	assert_int_equal(st.io_uring_procs, 1);
	assert_int_equal(st.io_uring_tgid, pid);
	/* its rings are no code: nothing of them kept for unwinding */
	assert_int_equal(st.procs, 1);
	/* the run's end says so for a command or -p, not system-wide, not with -S */
	said[0] = '\0';
	ustack_watch__notes(u, false, false, true, keep_said);
	ustack_watch__notes(u, true, true, true, keep_said);
	assert_string_equal(said, "");
	ustack_watch__notes(u, true, false, true, keep_said);
	assert_non_null(strstr(said, "used io_uring: a request's error goes back in its completion (CQE)"));
	assert_non_null(strstr(said, " -a '*' -- CMD\" shows each request's calls and results.\n"));
	assert_int_equal(atoi(said + strlen("Note: process ")), pid);
	/* without kprobe.multi: io_uring's functions, not the whole kernel one by one */
	said[0] = '\0';
	ustack_watch__notes(u, true, false, false, keep_said);
	assert_non_null(strstr(said, " -a 'io_*' -- CMD\" shows each request's calls and results (add the -a globs"));
	ustack__free(u);
	symbolize__free(syms);
	mmap_watch__free(w);
}

/* More processes than max_procs: the snapshots start over, none used after (ASan) */
static void test_max_procs(void **state)
{
	struct ustack_opts uo = {
		.sz = sizeof(uo), .proc_root = "/nonexistent-proc", .max_procs = 2,
	};
	struct ustack_stats st;

	run_followed(&uo, &st);
	assert_true(st.procs_peak <= 2);
	assert_true(st.procs <= 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid_followed),
		cmocka_unit_test(test_max_procs),
		cmocka_unit_test(test_io_uring),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
