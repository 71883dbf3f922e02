// SPDX-License-Identifier: BSD-2-Clause
/*
 * src/ustack.c with the sanitized sidecar: a real capture of tests/userprog (ptrace at its
 * openat, tests/userprog/snap.h) unwound after the process has exited, through the maps
 * snapshot taken when it was first seen; without one, the frames are missing and the note
 * says why. Captures that can't be unwound (a kernel thread, unreadable registers) say so.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "ustack.h"
#include "../userprog/snap.h"

#define MISSING "/nonexistent/retsnoop-userprog.conf"

struct got {
	char syms[16][64];
	char files[16][128];
	int lines[16];
	int cnt;
};

static int collect(void *ctx, const struct code_loc *loc)
{
	struct got *g = ctx;

	assert_int_equal(loc->as.kind, ADDR_SPACE_USER);
	if (g->cnt == 16)
		return 0;
	snprintf(g->syms[g->cnt], sizeof(g->syms[0]), "%s", loc->sym ?: "");
	snprintf(g->files[g->cnt], sizeof(g->files[0]), "%s",
		 loc->src_cnt ? loc->src[0].file : "");
	g->lines[g->cnt] = loc->src_cnt ? loc->src[0].line : 0;
	g->cnt++;
	return 0;
}

static struct ustack *new_ustack(void)
{
	struct ustack_opts o = { .sz = sizeof(o), .sidecar_path = SIDECAR_SAN };
	struct ustack *u = NULL;

	assert_int_equal(ustack__new(&o, &u), 0);
	assert_true(ustack__sidecar_pid(u) > 0);
	return u;
}

static void capture(struct rec_ustack **rec, pid_t *pid)
{
	char prog[4096], *argv[2] = { prog, NULL };

	snprintf(prog, sizeof(prog), "%s/nofp/userprog", USERPROG_DIR);
	assert_int_equal(snap_capture(MISSING, USTACK_DEFAULT_SIZE, argv, rec, pid), 0);
}

static void test_exited_process(void **state)
{
	struct ustack *u = new_ustack();
	struct rec_ustack *rec = NULL;
	const char *note = "unset";
	struct got g = {};
	char maps[64];
	pid_t pid;

	capture(&rec, &pid);
	/* first seen while it runs: the snapshot is taken now */
	ustack__note_process(u, pid);
	snap_kill(pid);
	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	assert_int_not_equal(access(maps, F_OK), 0);
	assert_int_equal(ustack__unwind(u, rec, sizeof(*rec) + rec->stack_len, collect, &g,
					&note), 0);
	assert_null(note);
	assert_true(g.cnt >= 5);
	assert_string_equal(g.syms[1], "open_config");
	assert_string_equal(g.syms[2], "do_work");
	assert_string_equal(g.syms[3], "main");
	assert_string_equal(g.files[1], "tests/userprog/ucfg.c");
	assert_string_equal(g.files[3], "tests/userprog/main.c");
	assert_true(g.lines[1] > 0 && g.lines[2] > 0 && g.lines[3] > 0);
	free(rec);
	ustack__free(u);
}

/* Never seen while alive: no snapshot, no frames, and the note says why. */
static void test_never_seen(void **state)
{
	struct ustack *u = new_ustack();
	struct rec_ustack *rec = NULL;
	const char *note = NULL;
	struct got g = {};
	pid_t pid;

	capture(&rec, &pid);
	snap_kill(pid);
	assert_int_equal(ustack__unwind(u, rec, sizeof(*rec) + rec->stack_len, collect, &g,
					&note), 0);
	assert_int_equal(g.cnt, 0);
	assert_non_null(note);
	assert_non_null(strstr(note, "exited before its mappings could be read"));
	free(rec);
	ustack__free(u);
}

static void test_not_unwindable(void **state)
{
	struct ustack *u = new_ustack();
	struct rec_ustack rec = { .type = REC_USTACK, .tgid = 1, .pid = 1 };
	const char *note = NULL;
	struct got g = {};

	rec.flags = USTACK_F_NOT_USER;
	assert_int_equal(ustack__unwind(u, &rec, sizeof(rec), collect, &g, &note), 0);
	assert_string_equal(note, "a kernel thread: no user stack");
	rec.flags = 0;
	rec.err = -EFAULT;
	assert_int_equal(ustack__unwind(u, &rec, sizeof(rec), collect, &g, &note), 0);
	assert_non_null(strstr(note, "registers could not be read (Bad address)"));
	assert_int_equal(ustack__unwind(u, &rec, 8, collect, &g, &note), 0);
	assert_string_equal(note, "malformed user stack record");
	assert_int_equal(g.cnt, 0);
	ustack__free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exited_process),
		cmocka_unit_test(test_never_seen),
		cmocka_unit_test(test_not_unwindable),
	};

	return cmocka_run_group_tests_name("ustack", tests, NULL, NULL);
}
