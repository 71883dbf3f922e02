// SPDX-License-Identifier: BSD-2-Clause
/* A capture replays to exactly what the live run rendered, with no resolver behind it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include "unit.h"
#include "capture.h"
#include "render.h"
#include "retsnoop.h"

static bool live_ksym(void *ctx, const struct addr_space *as, __u64 addr, struct sym_hit *hit)
{
	if (addr >= 0x1000 && addr < 0x2000) {
		*hit = (struct sym_hit){ "outer_fn", 0x1000, 0x1000 };
		return true;
	}
	if (addr >= 0x2000 && addr < 0x3000) {
		*hit = (struct sym_hit){ "inner_fn", 0x2000, 0 };
		return true;
	}
	return false;
}

static int live_src(void *ctx, const struct addr_space *as, __u64 addr, struct src_frame *fr,
		    int max)
{
	if (addr < 0x1000 || addr >= 0x2000 || max < 2)
		return 0;
	fr[0] = (struct src_frame){ "outer_fn", "kernel/outer.c", 10, 2 };
	fr[1] = (struct src_frame){ "helper", "include/linux/helper.h", 77, 9 };
	return 2;
}

static const struct func funcs[] = {
	{ .name = "outer_fn", .addr = 0x1000 },
	{ .name = "inner_fn", .flags = FUNC_RET_PTR, .addr = 0x2000 },
};

struct render_state {
	struct sample_build_opts b;
	struct text_sink_opts o;
	FILE *out;
};

static int on_session(void *ctx, const struct sess_recs *r)
{
	struct render_state *rs = ctx;
	struct sample *s;
	int err = sample__build(r, &rs->b, &s);

	if (err)
		return err;
	err = render_text__sample(rs->out, s, &rs->o);
	sample__free(s);
	return err;
}

static void feed_session(struct capture *c, struct session_store *st, __u64 id)
{
	struct rec_session_start start = {
		.type = REC_SESSION_START, .sess_id = id, .pid = 42, .tgid = 41,
		.start_ts = 1000000000ULL * 3600 + 5000, .task_comm = "simfail", .proc_comm = "simfail",
	};
	struct rec_session_end *end = calloc(1, sizeof(*end));
	const void *recs[2] = { &start, end };
	size_t sizes[2] = { sizeof(start), sizeof(*end) };
	int i;

	end->type = REC_SESSION_END;
	end->sess_id = id;
	end->emit_ts = start.start_ts + 75000;
	end->is_err = 1;
	end->stack.max_depth = 2;
	end->stack.func_ids[1] = 1;
	end->stack.func_res[0] = -22;
	end->stack.func_lat[0] = 73000;
	end->stack.func_lat[1] = 2000;
	end->stack.kstack[0] = 0x1010;
	end->stack.kstack[1] = 0x5000;	/* no symbol */
	end->stack.kstack_sz = 16;
	for (i = 0; i < 2; i++) {
		if (c)
			assert_int_equal(capture__record(c, recs[i], sizes[i]), 0);
		assert_int_equal(session_store__add(st, recs[i], sizes[i]), 0);
	}
	free(end);
}

static char *run_live(const char *path)
{
	struct sym_resolver live = { .sym = live_ksym, .src = live_src };
	struct render_state rs = {
		.b = { .sz = sizeof(rs.b), .funcs = funcs, .func_cnt = 2 },
		.o = { .sz = sizeof(rs.o), .stack_view = true },
	};
	struct capture_opts co = {
		.sz = sizeof(co), .funcs = funcs, .func_cnt = 2, .views = { .stack_view = true },
	};
	struct session_store_opts so = { .sz = sizeof(so), .on_session = on_session, .ctx = &rs };
	struct session_store *st = session_store__new(&so);
	struct capture *c;
	char *buf = NULL;
	size_t len = 0;

	c = capture__create(path, &co);
	assert_non_null(c);
	rs.out = open_memstream(&buf, &len);
	rs.b.syms = capture__resolver(c, &live);
	feed_session(c, st, 1);
	feed_session(c, st, 2);
	fclose(rs.out);
	assert_int_equal(capture__close(c), 0);
	session_store__free(st);
	return buf;
}

static char *run_replay(const char *path)
{
	struct replay *r = replay__open(path);
	struct render_state rs = {};
	struct session_store_opts so = { .sz = sizeof(so), .on_session = on_session, .ctx = &rs };
	struct session_store *st = session_store__new(&so);
	char *buf = NULL;
	size_t len = 0;

	assert_non_null(r);
	replay__build_opts(r, &rs.b);
	replay__text_opts(r, &rs.o);
	assert_true(rs.o.stack_view);
	assert_int_equal(rs.b.func_cnt, 2);
	assert_int_equal(rs.b.funcs[0].addr, 0x1000);
	rs.out = open_memstream(&buf, &len);
	assert_int_equal(replay__feed(r, st), 0);
	fclose(rs.out);
	session_store__free(st);
	replay__free(r);
	return buf;
}

static void test_replay_matches_live(void **state)
{
	char path[] = "/tmp/retsnoop-cap-XXXXXX";
	int fd = mkstemp(path);
	char *live, *replayed;

	assert_true(fd >= 0);
	close(fd);
	setenv("TZ", "UTC", 1);
	live = run_live(path);
	replayed = run_replay(path);
	unlink(path);
	/* The live output itself must be the real thing, not an empty match. */
	assert_non_null(strstr(live, "01:00:00.000005 -> 01:00:00.000080 TID/PID 42/41 (simfail/simfail):"));
	assert_non_null(strstr(live, "outer_fn+0x10  (kernel/outer.c:10:2)"));
	assert_non_null(strstr(live, ". helper"));
	assert_non_null(strstr(live, "0x5000"));
	assert_string_equal(replayed, live);
	free(live);
	free(replayed);
}

static void test_bad_files(void **state)
{
	char path[] = "/tmp/retsnoop-cap-XXXXXX";
	int fd = mkstemp(path);
	static const char junk[] = "RSNPCAP1\x01\x00\x00\x00\xff\xff\xff\x7f";

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not a capture", 13), 13);
	close(fd);
	assert_null(replay__open(path));
	assert_int_equal(errno, EINVAL);

	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, junk, sizeof(junk) - 1), (int)sizeof(junk) - 1);
	close(fd);
	assert_null(replay__open(path));	/* entry longer than the file */
	unlink(path);
	assert_null(replay__open("/nonexistent/capture"));
	assert_int_equal(errno, ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_matches_live),
		cmocka_unit_test(test_bad_files),
	};

	return cmocka_run_group_tests_name("capture", tests, NULL, NULL);
}
