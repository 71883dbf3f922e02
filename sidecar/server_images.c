// SPDX-License-Identifier: BSD-2-Clause
/*
 * Requests about files handed over as descriptors (PROTOCOL.md, "Images"): the sidecar may
 * run without the right to open anything, so the client opens each binary, library and
 * debug file and sends the descriptor; the sidecar identifies it and answers by id.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server_int.h"

/* "ID" or "ID OFF" (OFF hexadecimal); -EINVAL if malformed. */
static int parse_id(const char *arg, int *id, uint64_t *off)
{
	char *end;
	long v;

	if (*arg < '0' || *arg > '9')
		return -EINVAL;
	v = strtol(arg, &end, 10);
	if (v < 1 || v > MAX_IMAGES)
		return -EINVAL;
	*id = v;
	if (!off)
		return *end ? -EINVAL : 0;
	if (*end != ' ')
		return -EINVAL;
	return parse_addr(end + 1, off);
}

static int put_hex(struct reply_buf *b, const uint8_t *p, size_t len)
{
	size_t i;
	int err = 0;

	for (i = 0; i < len && !err; i++)
		err = buf_printf(b, "%02x", p[i]);
	return err;
}

static int reply_info(struct reply_buf *b, int id, const struct image_info *in)
{
	int err = buf_printf(b, "ok 5\nid\t%d\nbuild_id\t", id);

	if (!err)
		err = in->build_id_len ? put_hex(b, in->build_id, in->build_id_len) :
					 buf_printf(b, "-");
	if (!err)
		err = buf_printf(b, "\ndebuglink\t") ?: buf_field(b, in->debuglink ?: "-");
	if (!err)
		err = buf_printf(b, "\ndwarf\t%d\nsymtab\t%d\n", in->dwarf, in->symtab);
	return err;
}

int do_open(struct server *srv, const char *arg, int fd, struct reply_buf *b)
{
	struct image_info in;
	int id, err = images__open(srv->images, fd, arg, &id);

	if (err)
		return reply_err(b, err, "cannot open '%.200s': %s", arg, strerror(-err));
	err = images__info(srv->images, id, &in);
	if (err) {
		/* an image it cannot identify (a malformed build ID note) is of no use */
		images__close(srv->images, id);
		return reply_err(b, err, "'%.200s': malformed build ID", arg);
	}
	return reply_info(b, id, &in);
}

int do_debug(struct server *srv, const char *arg, int fd, struct reply_buf *b)
{
	int id, err = parse_id(arg, &id, NULL);

	if (err) {
		close(fd);
		return reply_err(b, err, "bad image id '%.32s'", arg);
	}
	err = images__attach_debug(srv->images, id, fd);
	switch (err) {
	case 0:
		return buf_printf(b, "ok 0\n");
	case -ESTALE:
		return reply_err(b, err, "debug file of image %d: build ID mismatch", id);
	case -ENOKEY:
		return reply_err(b, err, "image %d has no build ID or debuglink to check a debug "
				 "file against", id);
	case -ENODATA:
		return reply_err(b, err, "debug file of image %d has no DWARF", id);
	default:
		return reply_err(b, err, "debug file of image %d: %s", id, strerror(-err));
	}
}

int do_fsym(struct server *srv, const char *arg, int fd, struct reply_buf *b)
{
	uint64_t off, delta, size;
	const char *name;
	int id, err = parse_id(arg, &id, &off);

	if (err)
		return reply_err(b, err, "bad request argument '%.64s'", arg);
	srv->requests++;
	err = images__sym(srv->images, id, off, &name, &delta, &size);
	if (err == -ERANGE)
		return reply_err(b, err, "offset 0x%llx of image %d is not loaded",
				 (unsigned long long)off, id);
	if (err)
		return reply_err(b, err, "image %d: %s", id, strerror(-err));
	if (!name)
		return buf_printf(b, "ok 0\n");
	return buf_printf(b, "ok 1\n") ?: buf_field(b, name) ?:
	       buf_printf(b, "\t0x%llx\t%llu\n", (unsigned long long)delta,
			  (unsigned long long)size);
}

int do_fline(struct server *srv, const char *arg, int fd, struct reply_buf *b)
{
	struct src_frame frames[SYMB_MAX_FRAMES];
	uint64_t off;
	int id, n, err = parse_id(arg, &id, &off);

	if (err)
		return reply_err(b, err, "bad request argument '%.64s'", arg);
	srv->requests++;
	n = images__lines(srv->images, id, off, frames, SYMB_MAX_FRAMES);
	if (n == -ERANGE)
		return reply_err(b, n, "offset 0x%llx of image %d is not code",
				 (unsigned long long)off, id);
	if (n < 0)
		return reply_err(b, n, "image %d: %s", id, strerror(-n));
	return reply_frames(b, frames, n);
}

int do_close(struct server *srv, const char *arg, int fd, struct reply_buf *b)
{
	int id, err = parse_id(arg, &id, NULL);

	if (!err)
		err = images__close(srv->images, id);
	if (err)
		return reply_err(b, err, "cannot close image '%.32s'", arg);
	return buf_printf(b, "ok 0\n");
}
