// SPDX-License-Identifier: BSD-2-Clause
/* Files held open by device and inode (file_hold.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include "file_hold.h"

#define DEFAULT_MAX 512

struct held {
	dev_t dev;
	ino_t ino;
	int fd;
};

struct file_hold {
	struct held *v;
	size_t cnt, max;
};

struct file_hold *file_hold__new(size_t max)
{
	struct file_hold *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->max = max ?: DEFAULT_MAX;
	h->v = calloc(h->max, sizeof(*h->v));
	if (!h->v) {
		free(h);
		return NULL;
	}
	return h;
}

void file_hold__free(struct file_hold *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->cnt; i++)
		close(h->v[i].fd);
	free(h->v);
	free(h);
}

static const struct held *find(const struct file_hold *h, dev_t dev, ino_t ino)
{
	size_t i;

	for (i = 0; i < h->cnt; i++) {
		if (h->v[i].ino == ino && h->v[i].dev == dev)
			return &h->v[i];
	}
	return NULL;
}

int file_hold__add(struct file_hold *h, int fd)
{
	struct stat st;
	int err = 0;

	if (fstat(fd, &st))
		err = -errno;
	else if (find(h, st.st_dev, st.st_ino))
		err = -EEXIST;
	else if (h->cnt == h->max)
		err = -ENOSPC;
	if (err) {
		close(fd);
		return err;
	}
	h->v[h->cnt++] = (struct held){ .dev = st.st_dev, .ino = st.st_ino, .fd = fd };
	return 0;
}

int file_hold__dup(const struct file_hold *h, dev_t dev, ino_t ino)
{
	const struct held *f = h ? find(h, dev, ino) : NULL;
	int fd;

	if (!f)
		return -ENOENT;
	fd = fcntl(f->fd, F_DUPFD_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

bool file_hold__has(const struct file_hold *h, dev_t dev, ino_t ino)
{
	return h && find(h, dev, ino);
}
