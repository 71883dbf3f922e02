// SPDX-License-Identifier: BSD-2-Clause
/*
 * mmap_watch and the model it feeds (proc_maps__overlay): a real child exec'd under the
 * watch (of it, as under -- CMD, or of every process, as with -p and system-wide), whose
 * executable mappings as the kernel's records rebuild them must be the ones its
 * /proc/PID/maps shows, its fork and exit seen; the overlay's cutting rules; malformed
 * records refused.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/wait.h>
#include "unit.h"
#include "held_child.h"
#include "mmap_watch.h"
#include "proc_maps.h"

struct model {
	__u32 tgid;
	struct proc_maps *m;
	int execs, maps;
	int forks, exits;		/* of md->tgid (FORK: its parent is the test) */
	int others;			/* records of other processes */
};

static void apply(void *ctx, const struct mmap_watch_event *e)
{
	struct model *md = ctx;
	struct proc_maps *n = NULL;

	if (e->tgid != md->tgid) {
		md->others++;
		return;
	}
	if (e->kind == MMAP_WATCH_FORK) {
		assert_int_equal(e->parent, getpid());
		md->forks++;
		return;
	}
	if (e->kind == MMAP_WATCH_EXIT) {
		md->exits++;
		return;
	}
	if (e->kind == MMAP_WATCH_EXEC) {
		md->execs++;
		assert_int_equal(proc_maps__overlay(NULL, NULL, &n), 0);
	} else if (e->kind == MMAP_WATCH_MAP) {
		md->maps++;
		assert_int_equal(proc_maps__overlay(md->m, &e->map, &n), 0);
	} else {
		return;
	}
	proc_maps__free(md->m);
	md->m = n;
}

/*
 * @all: a watch of every process (-p, system-wide), started before the child's fork; else
 * of the held child and what it starts (-- CMD).
 */
static void check_exec_maps(bool all)
{
	char *const argv[] = { "sleep", "5", NULL };
	const char *sleep_bin = access("/bin/sleep", X_OK) ? "/usr/bin/sleep" : "/bin/sleep";
	struct mmap_watch_opts o = { .sz = sizeof(o), .pid = -1 };
	struct model md = {};
	struct mmap_watch *w = NULL;
	struct proc_maps *live = NULL;
	size_t i, checked = 0;
	int go, err = 0, tries;
	pid_t pid;

	if (all)
		err = mmap_watch__new(&o, &w);
	if (err == -EACCES || err == -EPERM)
		skip();		/* CPU-wide perf events need privileges */
	assert_int_equal(err, 0);
	pid = spawn_held(sleep_bin, argv, &go);
	o.pid = pid;
	if (!all)
		err = mmap_watch__new(&o, &w);
	if (err == -EACCES || err == -EPERM) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		skip();		/* perf events of another process need privileges */
	}
	assert_int_equal(err, 0);
	md.tgid = pid;
	assert_int_equal(write(go, "g", 1), 1);
	close(go);
	/* until sleep(1) sleeps: its libraries are mapped by then */
	for (tries = 0; tries < 200; tries++) {
		char path[64], st[256] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(st, sizeof(st), f))
				st[0] = '\0';
			fclose(f);
		}
		if (strstr(st, "nanosleep") || strstr(st, "hrtimer"))
			break;
		usleep(10000);
	}
	assert_int_equal(proc_maps__read(pid, NULL, &live), 0);
	assert_true(mmap_watch__drain(w, apply, &md) > 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(md.execs, 1);
	assert_true(md.maps >= 3);
	/* every process: the child's birth from us is seen, then (below) its end */
	assert_int_equal(md.forks, all ? 1 : 0);
	assert_int_equal(md.exits, 0);
	mmap_watch__drain(w, apply, &md);
	assert_int_equal(md.exits, 1);
	assert_true(mmap_watch__count(w) >= (__u64)(md.execs + md.maps + md.forks + md.exits));
	/*
	 * Every executable file mapping /proc shows is in the model as it is (data segments
	 * are split by mprotect() after relocation, which no record tells), and each file's
	 * lowest mapping (its load base, which the unwinder needs) starts at the same place.
	 */
	for (i = 0; i < proc_maps__cnt(live); i++) {
		const struct proc_map *l = proc_maps__get(live, i), *r;
		size_t j;

		if (!l->path || l->path[0] != '/')
			continue;
		r = proc_maps__find(md.m, l->start);
		if (!r)
			fail_msg("%llx %s: not in the recorded maps", (unsigned long long)l->start,
				 l->path);
		assert_non_null(r->path);
		assert_string_equal(r->path, l->path);
		assert_int_equal(r->inode, l->inode);
		assert_int_equal(r->dev_major, l->dev_major);
		assert_int_equal(r->dev_minor, l->dev_minor);
		if (l->prot & PROC_MAP_X) {
			assert_int_equal(r->start, l->start);
			assert_int_equal(r->end, l->end);
			assert_int_equal(r->pgoff, l->pgoff);
			assert_true(r->prot & PROC_MAP_X);
			checked++;
		}
		/* the first mapping of this file in /proc: the model's begins there too */
		for (j = 0; j < i; j++)
			if (proc_maps__get(live, j)->inode == l->inode &&
			    proc_maps__get(live, j)->path && !strcmp(proc_maps__get(live, j)->path, l->path))
				break;
		if (j == i) {
			assert_int_equal(r->start, l->start);
			assert_int_equal(r->pgoff, l->pgoff);
		}
	}
	/* sleep itself, ld.so, libc at least */
	assert_true(checked >= 3);
	assert_int_equal(mmap_watch__lost(w), 0);
	proc_maps__free(live);
	proc_maps__free(md.m);
	mmap_watch__free(w);
}

static void test_exec_maps(void **state)
{
	check_exec_maps(false);
}

static void test_exec_maps_all(void **state)
{
	check_exec_maps(true);
}

static struct proc_map pm(__u64 s, __u64 e, __u64 off, const char *path)
{
	return (struct proc_map){ .start = s, .end = e, .pgoff = off, .path = path, .inode = 7 };
}

static void test_overlay(void **state)
{
	struct proc_maps *a = NULL, *b = NULL, *c = NULL;
	struct proc_map x = pm(0x1000, 0x5000, 0, "/lib/a"), y = pm(0x2000, 0x3000, 0x9000, "/lib/b");
	const struct proc_map *r;

	assert_int_equal(proc_maps__overlay(NULL, &x, &a), 0);
	assert_int_equal(proc_maps__cnt(a), 1);
	/* y in x's middle: x's two ends stay, the right one at its new file offset */
	assert_int_equal(proc_maps__overlay(a, &y, &b), 0);
	assert_int_equal(proc_maps__cnt(b), 3);
	r = proc_maps__get(b, 0);
	assert_true(r->start == 0x1000 && r->end == 0x2000 && r->pgoff == 0);
	assert_string_equal(r->path, "/lib/a");
	r = proc_maps__get(b, 1);
	assert_true(r->start == 0x2000 && r->end == 0x3000 && r->pgoff == 0x9000);
	assert_string_equal(r->path, "/lib/b");
	r = proc_maps__get(b, 2);
	assert_true(r->start == 0x3000 && r->end == 0x5000 && r->pgoff == 0x2000);
	assert_string_equal(r->path, "/lib/a");
	/* the old snapshot stays as it was */
	assert_int_equal(proc_maps__cnt(a), 1);
	/* over everything: only the new one; anonymous memory keeps no path */
	x = pm(0, 0x10000, 0, NULL);
	assert_int_equal(proc_maps__overlay(b, &x, &c), 0);
	assert_int_equal(proc_maps__cnt(c), 1);
	assert_null(proc_maps__get(c, 0)->path);
	proc_maps__free(c);
	/* a copy */
	assert_int_equal(proc_maps__overlay(b, NULL, &c), 0);
	assert_int_equal(proc_maps__cnt(c), 3);
	assert_true(proc_maps__get(c, 2)->path != proc_maps__get(b, 2)->path);
	assert_string_equal(proc_maps__get(c, 2)->path, "/lib/a");
	proc_maps__free(c);
	c = NULL;
	x = pm(0x5000, 0x5000, 0, "/x");
	assert_int_equal(proc_maps__overlay(b, &x, &c), -EINVAL);
	assert_null(c);
	proc_maps__free(a);
	proc_maps__free(b);
}

static void test_malformed(void **state)
{
	struct {
		struct perf_event_header h;
		char body[120];
	} r;
	struct mmap_watch_event e;
	__u64 lost = 0;

	memset(&r, 0, sizeof(r));
	r.h.type = PERF_RECORD_MMAP2;
	r.h.size = sizeof(r);
	/* a file name with no NUL before the trailer */
	memset(r.body + 64, 'a', sizeof(r.body) - 64);
	assert_int_equal(mmap_watch__parse(&r, sizeof(r), &e, &lost), -EINVAL);
	/* a size that is not the record's */
	r.h.size = 24;
	assert_int_equal(mmap_watch__parse(&r, sizeof(r), &e, &lost), -EINVAL);
	/* too short for an MMAP2 */
	assert_int_equal(mmap_watch__parse(&r, 24, &e, &lost), -EINVAL);
	/* an empty mapping (len 0), with a name */
	r.h.size = sizeof(r);
	memset(r.body, 0, sizeof(r.body));
	strcpy(r.body + 64, "/x");
	assert_int_equal(mmap_watch__parse(&r, sizeof(r), &e, &lost), -EINVAL);
	/* the same with a length: accepted, " (deleted)" cut off and said */
	memcpy(r.body + 16, &(__u64){ 0x1000 }, 8);
	strcpy(r.body + 64, "/x (deleted)");
	assert_int_equal(mmap_watch__parse(&r, sizeof(r), &e, &lost), 1);
	assert_string_equal(e.map.path, "/x");
	assert_true(e.map.deleted);
	/* a record of no interest */
	r.h.type = PERF_RECORD_SAMPLE;
	assert_int_equal(mmap_watch__parse(&r, sizeof(r), &e, &lost), 0);
	assert_int_equal(lost, 0);
}

/* EXIT (pid ppid tid ptid time): a process's end is its main thread's, a thread's is none */
static void test_exit_record(void **state)
{
	struct {
		struct perf_event_header h;
		__u32 pid, ppid, tid, ptid;
		__u64 time;
		__u32 tr_pid, tr_tid;
		__u64 tr_time;
	} r = {
		.h = { .type = PERF_RECORD_EXIT, .size = sizeof(r) },
		.pid = 40, .ppid = 1, .tid = 40, .ptid = 1, .time = 5, .tr_pid = 40, .tr_tid = 40,
		.tr_time = 77,
	};
	struct mmap_watch_event e;
	__u64 lost = 0;

	assert_int_equal(mmap_watch__parse(&r, sizeof(r), &e, &lost), 1);
	assert_int_equal(e.kind, MMAP_WATCH_EXIT);
	assert_int_equal(e.tgid, 40);
	assert_int_equal(e.time_ns, 77);
	r.tid = 41;
	assert_int_equal(mmap_watch__parse(&r, sizeof(r), &e, &lost), 0);
	/* too short for its fields and the trailer */
	r.h.size = 32;
	assert_int_equal(mmap_watch__parse(&r, 32, &e, &lost), -EINVAL);
	/* the watch's own checks: no pid, or a negative one other than -1 */
	{
		struct mmap_watch_opts o = { .sz = sizeof(o), .pid = -2 };
		struct mmap_watch *w = (void *)1;

		assert_int_equal(mmap_watch__new(&o, &w), -EINVAL);
		assert_null(w);
		o.pid = 0;
		assert_int_equal(mmap_watch__new(&o, &w), -EINVAL);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_maps),
		cmocka_unit_test(test_exec_maps_all),
		cmocka_unit_test(test_exit_record),
		cmocka_unit_test(test_overlay),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
