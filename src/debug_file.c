// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "debug_file.h"
#include "elf_notes.h"
#include "opts.h"

static int offer(const char *path, uid_t owner, debug_file_fn cb, void *ctx)
{
	struct stat st;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (!(st.st_mode & S_IROTH) && st.st_uid != owner)) {
		close(fd);
		return 0;
	}
	ret = cb(fd, path, ctx);
	close(fd);
	return ret;
}

int debug_file__for_each(const char *image, const char *build_id, const char *debuglink,
			 debug_file_fn cb, void *ctx, const struct debug_file_opts *opts)
{
	struct debug_file_opts o;
	const char *slash = strrchr(image, '/'), *root;
	int dir_len = slash ? (int)(slash - image) : 0, ret;
	char cand[PATH_MAX * 2];
	uid_t owner;

	if (OPTS_COPY(&o, opts))
		return -EINVAL;
	root = o.root ?: "/usr/lib/debug";
	owner = o.owner;
	if (!o.owner_set) {
		struct stat st;

		/* an image we cannot stat: only what everyone may read */
		owner = stat(image, &st) ? (uid_t)-1 : st.st_uid;
	}
	if (build_id && strlen(build_id) > 2) {
		snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug", root, build_id,
			 build_id + 2);
		if ((ret = offer(cand, owner, cb, ctx)))
			return ret;
	}
	/* a name with a '/' would leave the directories the debuglink rule allows */
	if (!debuglink || !debuglink[0] || strchr(debuglink, '/'))
		return 0;
	snprintf(cand, sizeof(cand), "%.*s/%s", dir_len, image, debuglink);
	/* a debuglink naming the binary itself would only find the binary again */
	if (strcmp(cand, image) != 0 && (ret = offer(cand, owner, cb, ctx)))
		return ret;
	snprintf(cand, sizeof(cand), "%.*s/.debug/%s", dir_len, image, debuglink);
	if ((ret = offer(cand, owner, cb, ctx)))
		return ret;
	snprintf(cand, sizeof(cand), "%s%.*s/%s", root, dir_len, image, debuglink);
	return offer(cand, owner, cb, ctx);
}

/* @fd's GNU build ID as hex into @hex (empty without one). */
static void read_build_id(int fd, char *hex, size_t hex_sz)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const unsigned char *id;
	size_t len, i;

	hex[0] = '\0';
	if (!elf)
		return;
	if (elf_notes__build_id(elf, &id, &len))
		for (i = 0; i < len && 2 * i + 2 < hex_sz; i++)
			snprintf(hex + 2 * i, 3, "%02x", id[i]);
	elf_end(elf);
}

static int file_crc(int fd, __u32 *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0, Z_NULL, 0);
	off_t off = 0;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		c = crc32(c, buf, n);
		off += n;
	}
	if (n < 0)
		return -errno;
	*crc = c;
	return 0;
}

struct find_ctx {
	const char *build_id;
	__u32 crc;
	char *out;
	size_t out_sz;
	bool mismatched;
};

static int check_one(int fd, const char *path, void *ctx)
{
	struct find_ctx *fc = ctx;
	char bid[129];
	__u32 crc;

	if (fc->build_id && fc->build_id[0]) {
		read_build_id(fd, bid, sizeof(bid));
		if (strcmp(bid, fc->build_id) != 0) {
			fc->mismatched = true;
			return 0;
		}
	} else if (file_crc(fd, &crc) || crc != fc->crc) {
		fc->mismatched = true;
		return 0;
	}
	snprintf(fc->out, fc->out_sz, "%s", path);
	return 1;
}

int debug_file__find(const char *image, const char *build_id, const char *debuglink,
		     __u32 crc, char *out, size_t out_sz, const struct debug_file_opts *opts)
{
	struct find_ctx fc = { .build_id = build_id, .crc = crc, .out = out, .out_sz = out_sz };
	int ret;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EIO;
	ret = debug_file__for_each(image, build_id, debuglink, check_one, &fc, opts);
	if (ret < 0)
		return ret;
	if (ret > 0)
		return 0;
	return fc.mismatched ? -ESTALE : -ENOENT;
}

int debug_file__cached(struct debug_file_cache *c, const char *image, const char *build_id,
		       const char *debuglink, __u32 crc, const struct debug_file_opts *opts,
		       const char **path)
{
	char buf[PATH_MAX];

	*path = NULL;
	if (!c->looked) {
		c->lookups++;
		c->err = debug_file__find(image, build_id, debuglink, crc, buf, sizeof(buf), opts);
		if (!c->err && !(c->path = strdup(buf)))
			return -ENOMEM;
		c->looked = true;
	}
	*path = c->err ? NULL : c->path;
	return c->err;
}

void debug_file_cache__free(struct debug_file_cache *c)
{
	free(c->path);
	*c = (struct debug_file_cache){};
}
