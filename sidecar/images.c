// SPDX-License-Identifier: BSD-2-Clause
/* The user-space images of a sidecar (images.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "images.h"
#include "symbolizer_int.h"
#include "../src/opts.h"

struct image {
	char *path;			/* as the client named it */
	struct symbolizer *bin;
	struct symbolizer *dbg;		/* the separate debug file, NULL if none */
};

struct images {
	struct symbolizer_opts opts;
	struct image *v;		/* id - 1 */
	int cnt, cap;
};

struct images *images__new(const struct symbolizer_opts *opts)
{
	struct images *im = calloc(1, sizeof(*im));

	if (!im)
		return NULL;
	if (OPTS_COPY(&im->opts, opts)) {
		free(im);
		return errno = EINVAL, NULL;
	}
	return im;
}

static struct image *get(struct images *im, int id)
{
	if (id < 1 || id > im->cnt || !im->v[id - 1].bin)
		return NULL;
	return &im->v[id - 1];
}

int images__close(struct images *im, int id)
{
	struct image *img = get(im, id);

	if (!img)
		return -ENOENT;
	symbolizer__close(img->bin);
	symbolizer__close(img->dbg);
	free(img->path);
	*img = (struct image){};
	return 0;
}

void images__free(struct images *im)
{
	int i;

	if (!im)
		return;
	for (i = 1; i <= im->cnt; i++)
		images__close(im, i);
	free(im->v);
	free(im);
}

int images__open(struct images *im, int fd, const char *path, int *id)
{
	struct symbolizer *s;
	char *copy;
	int i;

	*id = 0;
	/* a free slot first: a long run opens and closes many libraries */
	for (i = 0; i < im->cnt && im->v[i].bin; i++)
		;
	if (i == im->cnt && im->cnt == MAX_IMAGES) {
		close(fd);
		return -EMFILE;
	}
	s = symbolizer__open_fd(fd, &im->opts);
	if (!s)
		return -errno;
	copy = strdup(path);
	if (!copy) {
		symbolizer__close(s);
		return -ENOMEM;
	}
	if (i == im->cnt) {
		struct image *v = grow(im->v, &im->cap, im->cnt + 1, sizeof(*v));

		if (!v) {
			symbolizer__close(s);
			free(copy);
			return -ENOMEM;
		}
		im->v = v;
		im->cnt++;
	}
	im->v[i] = (struct image){ .path = copy, .bin = s };
	*id = i + 1;
	return 0;
}

int images__info(struct images *im, int id, struct image_info *info)
{
	struct image *img = get(im, id);
	uint32_t crc;
	int err;

	if (!img)
		return -ENOENT;
	memset(info, 0, sizeof(*info));
	err = symbolizer__build_id(img->bin, &info->build_id, &info->build_id_len);
	if (err)
		return err;
	if (symbolizer__debuglink(img->bin, &info->debuglink, &crc))
		info->debuglink = NULL;
	info->debug_file = img->dbg;
	info->dwarf = symbolizer__has_dwarf(img->dbg ?: img->bin);
	info->symtab = symbolizer__has_symtab(img->bin) ||
		       (img->dbg && symbolizer__has_symtab(img->dbg));
	return 0;
}

/* Does @dbg belong to @bin? By build ID, else by the debuglink CRC. */
static int debug_matches(struct symbolizer *bin, struct symbolizer *dbg)
{
	const uint8_t *bid, *did;
	size_t blen, dlen;
	const char *name;
	uint32_t want, crc;
	int err;

	err = symbolizer__build_id(bin, &bid, &blen);
	if (err)
		return err;
	if (blen) {
		err = symbolizer__build_id(dbg, &did, &dlen);
		if (err)
			return err;
		return dlen == blen && memcmp(bid, did, blen) == 0 ? 0 : -ESTALE;
	}
	if (symbolizer__debuglink(bin, &name, &want))
		return -ENOKEY;
	err = symbolizer__file_crc(dbg, &crc);
	if (err)
		return err;
	return crc == want ? 0 : -ESTALE;
}

int images__attach_debug(struct images *im, int id, int fd)
{
	struct image *img = get(im, id);
	struct symbolizer *dbg;
	int err;

	if (!img) {
		close(fd);
		return -ENOENT;
	}
	if (img->dbg) {
		close(fd);
		return -EEXIST;
	}
	dbg = symbolizer__open_fd(fd, &im->opts);
	if (!dbg)
		return -errno;
	err = debug_matches(img->bin, dbg);
	if (!err && !symbolizer__has_dwarf(dbg))
		err = -ENODATA;
	if (err) {
		symbolizer__close(dbg);
		return err;
	}
	img->dbg = dbg;
	return 0;
}

/* Image @id and where its file offset @off is loaded: 0, -ENOENT or the symbolizer's errno. */
static int image_addr(struct images *im, int id, uint64_t off, struct image **img,
		      uint64_t *addr)
{
	*img = get(im, id);
	if (!*img)
		return -ENOENT;
	return symbolizer__file_addr((*img)->bin, off, addr);
}

int images__sym(struct images *im, int id, uint64_t off, const char **name, uint64_t *delta,
		uint64_t *size)
{
	struct image *img;
	uint64_t addr, start;
	int err;

	*name = NULL;
	err = image_addr(im, id, off, &img, &addr);
	if (err)
		return err;
	/* a stripped binary's debug file has the full table; .dynsym only as a last resort */
	if (img->dbg && !symbolizer__has_symtab(img->bin) && symbolizer__has_symtab(img->dbg))
		*name = symbolizer__sym(img->dbg, addr, &start, size);
	else
		*name = symbolizer__sym(img->bin, addr, &start, size);
	if (*name)
		*delta = addr - start;
	return 0;
}

int images__lines(struct images *im, int id, uint64_t off, struct src_frame *frames, int max)
{
	struct image *img;
	uint64_t addr;
	int err;

	err = image_addr(im, id, off, &img, &addr);
	if (err)
		return err;
	/* without DWARF a frame would only repeat the symbol: images__sym() says that */
	if (!symbolizer__has_dwarf(img->dbg ?: img->bin))
		return 0;
	return symbolizer__symbolize(img->dbg ?: img->bin, addr, frames, max);
}

int images__fd(struct images *im, int id)
{
	struct image *img = get(im, id);

	return img ? img->bin->fd : -ENOENT;
}

int images__find(struct images *im, const char *path, const uint8_t *build_id, size_t len)
{
	int i;

	for (i = 0; path && i < im->cnt; i++) {
		if (im->v[i].bin && strcmp(im->v[i].path, path) == 0)
			return i + 1;
	}
	for (i = 0; build_id && len && i < im->cnt; i++) {
		const uint8_t *id;
		size_t n;

		if (im->v[i].bin && !symbolizer__build_id(im->v[i].bin, &id, &n) && n == len &&
		    memcmp(id, build_id, len) == 0)
			return i + 1;
	}
	return -ENOENT;
}
