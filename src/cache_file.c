// SPDX-License-Identifier: BSD-2-Clause
/* The files of retsnoop's caches; see cache_file.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cache_file.h"

bool cache_file__private_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return false;
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return false;
	return (st.st_mode & 077) == 0;
}

bool cache_file__private(const char *path)
{
	struct stat st;

	if (lstat(path, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return false;
	return (st.st_mode & 077) == 0 && st.st_size > 0;
}

int cache_file__replace(const char *path, cache_file_write_fn write, const void *ctx)
{
	char tmp[PATH_MAX + 32];
	FILE *f;
	int fd, err;

	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	err = write(f, ctx);
	if (fflush(f) && !err)
		err = -errno;
	/*
	 * On the disk before the rename: a crash must leave the old copy or the whole new
	 * one (a cut list of functions, kept across boots, would hide them without a word)
	 */
	if (!err && fsync(fileno(f)))
		err = -errno;
	if (ferror(f) && !err)
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int cache_file__copy(FILE *f, const void *src)
{
	char buf[65536];
	size_t n;
	FILE *in;
	int err = 0;

	in = fopen(src, "re");
	if (!in)
		return -errno;
	while (!err && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, f) != n)
			err = -EIO;
	if (!err && ferror(in))
		err = -EIO;
	fclose(in);
	return err;
}

ssize_t cache_file__read_small(const char *path, char *buf, size_t sz)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, sz - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		n = -errno;
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}
