// SPDX-License-Identifier: BSD-2-Clause
/*
 * Finding a stripped image's separate debug file, on the uprobe test program built at test
 * time ($UPROG_DIR: uprog, its debug file uprog.debug, uprog-dbgsym stripped with a
 * debuglink to it) and a private debug root: by build ID, by debuglink, a file of another
 * build refused, the owner rule.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "unit.h"
#include "debug_file.h"
#include "elf_funcs.h"

struct fix {
	char dir[1024];		/* UPROG_DIR */
	char root[64];		/* a private /usr/lib/debug */
	char bid[64];		/* uprog's build ID */
	char bid_path[PATH_MAX * 2];
};

static void path_in(const struct fix *f, const char *name, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s/%s", f->dir, name);
}

static int copy(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in, out, err = 0;

	in = open(from, O_RDONLY);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0)
		err = -1;
	while (!err && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			err = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return err;
}

static int setup(void **state)
{
	const char *d = getenv("UPROG_DIR");
	struct elf_funcs *e;
	char p[PATH_MAX * 2];
	struct fix *f;

	if (!d)
		return -1;
	f = calloc(1, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "%s", d);
	snprintf(f->root, sizeof(f->root), "/tmp/debug-file-XXXXXX");
	if (!mkdtemp(f->root))
		return -1;
	path_in(f, "uprog", p, sizeof(p));
	e = elf_funcs__open(p, NULL);
	if (!e || !elf_funcs__build_id(e))
		return -1;
	snprintf(f->bid, sizeof(f->bid), "%s", elf_funcs__build_id(e));
	elf_funcs__free(e);
	snprintf(p, sizeof(p), "%s/.build-id", f->root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/.build-id/%.2s", f->root, f->bid);
	mkdir(p, 0755);
	snprintf(f->bid_path, sizeof(f->bid_path), "%s/.build-id/%.2s/%s.debug", f->root,
		 f->bid, f->bid + 2);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;
	char cmd[128];

	if (f) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", f->root);
		if (system(cmd))
			return -1;
		free(f);
	}
	return 0;
}

static void test_build_id(void **state)
{
	struct fix *f = *state;
	struct debug_file_opts o = { .sz = sizeof(o), .root = f->root };
	char img[PATH_MAX], dbg[PATH_MAX], out[PATH_MAX * 2];

	path_in(f, "uprog", img, sizeof(img));
	path_in(f, "uprog.debug", dbg, sizeof(dbg));
	/* nothing there yet, and uprog has no debuglink */
	assert_int_equal(debug_file__find(img, f->bid, NULL, 0, out, sizeof(out), &o), -ENOENT);
	assert_int_equal(copy(dbg, f->bid_path), 0);
	assert_int_equal(debug_file__find(img, f->bid, NULL, 0, out, sizeof(out), &o), 0);
	assert_string_equal(out, f->bid_path);
	/* another build's file under this build ID: refused */
	path_in(f, "libuprog.so", dbg, sizeof(dbg));
	assert_int_equal(copy(dbg, f->bid_path), 0);
	assert_int_equal(debug_file__find(img, f->bid, NULL, 0, out, sizeof(out), &o), -ESTALE);
	unlink(f->bid_path);
}

static void test_debuglink(void **state)
{
	struct fix *f = *state;
	struct debug_file_opts o = { .sz = sizeof(o), .root = f->root };
	char img[PATH_MAX], dbg[PATH_MAX], out[PATH_MAX * 2];
	struct elf_funcs *e;
	const char *link;
	__u32 crc = 0;

	path_in(f, "uprog-dbgsym", img, sizeof(img));
	path_in(f, "uprog.debug", dbg, sizeof(dbg));
	e = elf_funcs__open(img, NULL);
	assert_non_null(e);
	link = elf_funcs__debuglink(e, &crc);
	assert_string_equal(link, "uprog.debug");
	/* next to the image, the build ID matching (objcopy keeps the note) */
	assert_int_equal(debug_file__find(img, elf_funcs__build_id(e), link, crc, out,
					  sizeof(out), &o), 0);
	assert_string_equal(out, dbg);
	/* an image without a build ID: the debuglink's CRC decides */
	assert_int_equal(debug_file__find(img, NULL, link, crc, out, sizeof(out), &o), 0);
	assert_int_equal(debug_file__find(img, NULL, link, crc ^ 1, out, sizeof(out), &o),
			 -ESTALE);
	/* a debuglink may not leave its directories */
	assert_int_equal(debug_file__find(img, NULL, "../uprobe/uprog.debug", crc, out,
					  sizeof(out), &o), -ENOENT);
	elf_funcs__free(e);
}

/* Opened as root next to a binary its owner controls: what they could not read is skipped. */
static void test_owner(void **state)
{
	struct fix *f = *state;
	struct debug_file_opts o = { .sz = sizeof(o), .root = f->root, .owner_set = true };
	char img[PATH_MAX], dbg[PATH_MAX], out[PATH_MAX * 2];

	if (geteuid() != 0)
		skip();
	path_in(f, "uprog", img, sizeof(img));
	path_in(f, "uprog.debug", dbg, sizeof(dbg));
	assert_int_equal(copy(dbg, f->bid_path), 0);
	assert_int_equal(chown(f->bid_path, 4321, 4321), 0);
	assert_int_equal(chmod(f->bid_path, 0600), 0);
	o.owner = 1234;
	assert_int_equal(debug_file__find(img, f->bid, NULL, 0, out, sizeof(out), &o), -ENOENT);
	o.owner = 4321;
	assert_int_equal(debug_file__find(img, f->bid, NULL, 0, out, sizeof(out), &o), 0);
	/* readable by everyone: any owner */
	assert_int_equal(chmod(f->bid_path, 0644), 0);
	o.owner = 1234;
	assert_int_equal(debug_file__find(img, f->bid, NULL, 0, out, sizeof(out), &o), 0);
	unlink(f->bid_path);
}

/*
 * One lookup per image, whoever asks first: the answer and the path stay, even when the
 * file appears or goes afterwards; a miss is kept too.
 */
static void test_cached(void **state)
{
	struct fix *f = *state;
	struct debug_file_opts o = { .sz = sizeof(o), .root = f->root };
	struct debug_file_cache c = {};
	char img[PATH_MAX], dbg[PATH_MAX];
	const char *got = NULL, *again = NULL;

	path_in(f, "uprog", img, sizeof(img));
	path_in(f, "uprog.debug", dbg, sizeof(dbg));
	assert_int_equal(copy(dbg, f->bid_path), 0);
	assert_int_equal(debug_file__cached(&c, img, f->bid, NULL, 0, &o, &got), 0);
	assert_string_equal(got, f->bid_path);
	unlink(f->bid_path);
	assert_int_equal(debug_file__cached(&c, img, f->bid, NULL, 0, &o, &again), 0);
	assert_ptr_equal(again, got);
	assert_int_equal(c.lookups, 1);
	debug_file_cache__free(&c);
	assert_int_equal(c.lookups, 0);
	assert_false(c.looked);
	/* none there: -ENOENT once, and kept although a file shows up */
	assert_int_equal(debug_file__cached(&c, img, f->bid, NULL, 0, &o, &got), -ENOENT);
	assert_null(got);
	assert_int_equal(copy(dbg, f->bid_path), 0);
	assert_int_equal(debug_file__cached(&c, img, f->bid, NULL, 0, &o, &got), -ENOENT);
	assert_int_equal(c.lookups, 1);
	unlink(f->bid_path);
	debug_file_cache__free(&c);
}

static void test_opts(void **state)
{
	struct { struct debug_file_opts o; long more; } big = { .o.sz = sizeof(big), .more = 1 };
	struct fix *f = *state;
	char out[64];

	assert_int_equal(debug_file__find(f->dir, f->bid, NULL, 0, out, sizeof(out), &big.o),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_owner),
		cmocka_unit_test(test_cached),
		cmocka_unit_test(test_opts),
	};

	/* without UPROG_DIR (make test-unit sets it) the group's setup fails: not a pass */
	return cmocka_run_group_tests(tests, setup, teardown);
}
