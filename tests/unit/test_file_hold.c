// SPDX-License-Identifier: BSD-2-Clause
/*
 * file_hold: files held by device and inode. A held file is found again by its ids after
 * every path to it is gone (unlinked here, as a chroot's path is none of ours); one file
 * is held once; a full table holds nothing more; every refused descriptor is closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "unit.h"
#include "file_hold.h"

static int temp_file(char *path, const char *text)
{
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	return fd;
}

static bool is_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1;
}

static void test_hold_and_find(void **state)
{
	char p1[] = "/tmp/file_hold.XXXXXX", p2[] = "/tmp/file_hold.XXXXXX", buf[8] = {};
	struct file_hold *h = file_hold__new(2);
	struct stat s1, s2;
	int a = temp_file(p1, "one"), b = temp_file(p2, "two"), c, fd;

	(void)state;
	assert_non_null(h);
	assert_false(file_hold__has(NULL, 1, 1));
	assert_int_equal(file_hold__dup(NULL, 1, 1), -ENOENT);
	assert_int_equal(fstat(a, &s1), 0);
	assert_int_equal(fstat(b, &s2), 0);
	assert_int_equal(file_hold__add(h, a), 0);
	/* the same file again: refused, its descriptor closed */
	c = open(p1, O_RDONLY);
	assert_true(c >= 0);
	assert_int_equal(file_hold__add(h, c), -EEXIST);
	assert_false(is_open(c));
	/* found by its ids once no path names it */
	assert_int_equal(unlink(p1), 0);
	assert_true(file_hold__has(h, s1.st_dev, s1.st_ino));
	fd = file_hold__dup(h, s1.st_dev, s1.st_ino);
	assert_true(fd >= 0 && fd != a);
	assert_int_equal(pread(fd, buf, 3, 0), 3);
	assert_string_equal(buf, "one");
	close(fd);
	/* ... and still after the copy handed out is closed */
	fd = file_hold__dup(h, s1.st_dev, s1.st_ino);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(file_hold__dup(h, s2.st_dev, s2.st_ino), -ENOENT);
	assert_int_equal(file_hold__add(h, b), 0);
	/* full: nothing more, the descriptor closed */
	c = open("/dev/null", O_RDONLY);
	assert_true(c >= 0);
	assert_int_equal(file_hold__add(h, c), -ENOSPC);
	assert_false(is_open(c));
	/* a descriptor fstat() can't take: refused */
	assert_int_equal(file_hold__add(h, -1), -EBADF);
	unlink(p2);
	file_hold__free(h);
	/* freed with what it held */
	assert_false(is_open(a));
	assert_false(is_open(b));
	file_hold__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hold_and_find),
	};

	return cmocka_run_group_tests_name("file_hold", tests, NULL, NULL);
}
