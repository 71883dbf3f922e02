// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "file_buf.h"

int file_buf__read(const char *path, char **out, size_t *out_len)
{
	size_t len = 0, cap = 1 << 20;
	char *buf = NULL, *nbuf;
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (!buf || cap - len < 2) {
			cap = buf ? cap * 2 : cap;
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				err = -ENOMEM;
				goto out;
			}
			buf = nbuf;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return err;
}

char *file_buf__dup(const char *text, size_t len)
{
	char *buf = malloc(len + 1);

	if (!buf) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	return buf;
}
