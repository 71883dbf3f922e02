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
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "unit.h"
#include "held_child.h"
#include "mmap_watch.h"
#include "symbolize.h"
#include "ustack.h"

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
