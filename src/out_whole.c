// SPDX-License-Identifier: BSD-2-Clause
/* Whole records to an output (out_whole.h). */
#include <errno.h>
#include <unistd.h>

#include "out_whole.h"

int out_whole__write(FILE *out, const char *buf, size_t len)
{
	int fd = fileno(out);
	ssize_t n;

	if (fd < 0) {
		if (fwrite(buf, 1, len, out) != len || fflush(out))
			return -EIO;
		return 0;
	}
	if (fflush(out))
		return -errno;
	while (len > 0) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= n;
	}
	return 0;
}
