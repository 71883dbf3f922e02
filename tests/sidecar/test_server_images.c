// SPDX-License-Identifier: BSD-2-Clause
/*
 * The sidecar's image requests in process (sidecar/server_images.c, images.c): files handed
 * over through the descriptor queue, answers by file offset, and how request handlers that
 * are told about files by name or build ID (the unwinder) find them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "images.h"
#include "server.h"

/* Send @req (with @fd unless -1) and return the reply, NUL-terminated; free() it. */
static char *req(struct server *srv, struct fd_queue *q, const char *line, int fd)
{
	struct reply_buf out = {};

	if (fd >= 0)
		assert_int_equal(fd_queue__push(q, fd), 0);
	assert_int_equal(server__handle(srv, line, strlen(line), q, &out), 0);
	assert_non_null(out.p);
	out.p[out.len - 1] = '\0';
	return out.p;
}

static int open_fixture(const char *name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", UPROG_DIR, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

static void test_open_find_close(void **state)
{
	struct fd_queue q = {};
	struct server *srv;
	char *r, *bid, hex[129];
	uint8_t id[64];
	size_t i, n;

	srv = server__new(NULL, NULL);
	assert_non_null(srv);
	r = req(srv, &q, "open /usr/bin/uprog", open_fixture("full/uprog"));
	assert_non_null(strstr(r, "ok 5\nid\t1\nbuild_id\t"));
	assert_non_null(strstr(r, "dwarf\t1\nsymtab\t1"));
	free(r);
	r = req(srv, &q, "open /usr/lib/libuprog.so", open_fixture("dl/libuprog.so"));
	assert_non_null(strstr(r, "id\t2\n"));
	assert_non_null(strstr(r, "debuglink\tlibuprog.so.debug\ndwarf\t0\n"));
	bid = strstr(r, "build_id\t") + 9;
	snprintf(hex, sizeof(hex), "%.*s", (int)strcspn(bid, "\n"), bid);
	free(r);
	/* by the client's path, else by build ID */
	assert_int_equal(images__find(server__images(srv), "/usr/bin/uprog", NULL, 0), 1);
	for (i = 0, n = strlen(hex) / 2; i < n; i++)
		sscanf(hex + 2 * i, "%2hhx", &id[i]);
	assert_int_equal(images__find(server__images(srv), "/elsewhere/libuprog.so", id, n), 2);
	assert_int_equal(images__find(server__images(srv), "/nope", NULL, 0), -ENOENT);
	assert_true(images__fd(server__images(srv), 2) >= 0);
	/* its debug file, then a symbol and lines by file offset 0 (not code: no symbol) */
	r = req(srv, &q, "debug 2", open_fixture("dl/libuprog.so.debug"));
	assert_string_equal(r, "ok 0");
	free(r);
	r = req(srv, &q, "debug 2", open_fixture("dl/libuprog.so.debug"));
	assert_non_null(strstr(r, "err 17 "));		/* one is attached already */
	free(r);
	r = req(srv, &q, "fsym 2 0", -1);
	assert_string_equal(r, "ok 0");
	free(r);
	/* a descriptor-taking request without one, a bad id: errors, nothing taken */
	r = req(srv, &q, "open x", -1);
	assert_non_null(strstr(r, "err 9 "));
	free(r);
	r = req(srv, &q, "fline 9 10", -1);
	assert_non_null(strstr(r, "err 2 "));
	free(r);
	r = req(srv, &q, "close 1", -1);
	assert_string_equal(r, "ok 0");
	free(r);
	assert_int_equal(images__find(server__images(srv), "/usr/bin/uprog", NULL, 0), -ENOENT);
	assert_int_equal(fd_queue__take(&q), -1);	/* every descriptor was taken */
	server__free(srv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_find_close),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
