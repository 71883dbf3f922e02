// SPDX-License-Identifier: BSD-2-Clause
/*
 * The function list as one file that loads without parsing: for the boot cache
 * (boot_cache.h), whose copy every later run of the boot reads. As text, each run read it
 * into fresh memory and split 60k lines (with the read, ~4% of a warm 7.2 start's samples
 * in a profile); mapped, nothing is parsed.
 *
 * Layout, in the host's byte order (the file never leaves the machine):
 *   struct aff_image_hdr
 *   struct aff_rec [cnt]
 *   char names[names_len]	NUL-terminated; a module once per run of its functions
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "ftrace_funcs_int.h"

static const char aff_magic[8] = "RSAFF\0\0\1";

struct aff_image_hdr {
	char magic[8];
	__u32 cnt;
	__u32 pad;
	__u64 names_len;
};

int ftrace_funcs__write_image(const struct ftrace_funcs *ff, FILE *f)
{
	struct aff_image_hdr hdr = { .cnt = ff->cnt };
	const char *mod = NULL;
	__u64 off = 0, mod_off = 0;
	size_t i, n;

	if (ff->recs || ff->cnt > UINT32_MAX)
		return -EINVAL;	/* an image is copied as a file, never written again */
	/* the records first: each module where its run of functions starts */
	memcpy(hdr.magic, aff_magic, sizeof(hdr.magic));
	for (i = 0; i < ff->cnt; i++) {
		const struct ftrace_func *fn = &ff->funcs[i];

		if (fn->module && (!mod || strcmp(mod, fn->module)))
			off += strlen(mod = fn->module) + 1;
		off += strlen(fn->name) + 1;
	}
	hdr.names_len = off;
	if (off > UINT32_MAX)
		return -EINVAL;
	fwrite(&hdr, sizeof(hdr), 1, f);
	mod = NULL;
	off = 0;
	for (i = 0; i < ff->cnt; i++) {
		const struct ftrace_func *fn = &ff->funcs[i];
		struct aff_rec r = {};

		if (fn->module && (!mod || strcmp(mod, fn->module))) {
			mod = fn->module;
			mod_off = off;
			off += strlen(mod) + 1;
		}
		r.module = fn->module ? mod_off + 1 : 0;
		r.name = off;
		off += strlen(fn->name) + 1;
		fwrite(&r, sizeof(r), 1, f);
	}
	mod = NULL;
	for (i = 0; i < ff->cnt; i++) {
		const struct ftrace_func *fn = &ff->funcs[i];

		if (fn->module && (!mod || strcmp(mod, fn->module))) {
			mod = fn->module;
			fwrite(mod, strlen(mod) + 1, 1, f);
		}
		n = strlen(fn->name) + 1;
		fwrite(fn->name, n, 1, f);
	}
	return ferror(f) ? -EIO : 0;
}

/* Every record's offsets inside the names, which end with a NUL: one pass of reads */
static int check_image(const struct ftrace_funcs *ff, __u64 names_len)
{
	__u32 bad = 0;
	size_t i;

	for (i = 0; i < ff->cnt; i++)
		bad |= (ff->recs[i].name >= names_len) | (ff->recs[i].module > names_len);
	return bad || (names_len && ff->names[names_len - 1]) ? -EINVAL : 0;
}

/*
 * The header at @fd's start, if it is this layout's and its counts add up to the file
 * (a cut or foreign file is damage): 0 or -EINVAL. What a check needs, without the rest.
 */
static int read_header(int fd, struct aff_image_hdr *hdr)
{
	struct stat st;

	if (pread(fd, hdr, sizeof(*hdr), 0) != sizeof(*hdr) ||
	    memcmp(hdr->magic, aff_magic, sizeof(aff_magic)) || fstat(fd, &st))
		return -EINVAL;
	if ((!hdr->names_len && hdr->cnt) ||
	    (__u64)st.st_size != sizeof(*hdr) + (__u64)hdr->cnt * sizeof(struct aff_rec) +
				 hdr->names_len)
		return -EINVAL;
	return 0;
}

/* The image in @fd: 0 or negative errno */
static int from_image(struct ftrace_funcs *ff, int fd)
{
	struct aff_image_hdr hdr;
	int err;

	err = read_header(fd, &hdr);
	if (err)
		return err;
	ff->map_len = sizeof(hdr) + (size_t)hdr.cnt * sizeof(struct aff_rec) + hdr.names_len;
	ff->map = mmap(NULL, ff->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (ff->map == MAP_FAILED) {
		ff->map = NULL;
		return -errno;
	}
	ff->cnt = hdr.cnt;
	ff->recs = (const struct aff_rec *)((char *)ff->map + sizeof(hdr));
	ff->names = (const char *)(ff->recs + hdr.cnt);
	return check_image(ff, hdr.names_len);
}

struct ftrace_funcs *ftrace_funcs__open(const char *path)
{
	struct ftrace_funcs *ff;
	char magic[sizeof(aff_magic)];
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	/* text (a copy of the kernel's file, a test's list) is parsed as ever */
	if (pread(fd, magic, sizeof(magic), 0) != sizeof(magic) ||
	    memcmp(magic, aff_magic, sizeof(magic))) {
		close(fd);
		return ftrace_funcs__load(path);
	}
	ff = calloc(1, sizeof(*ff));
	if (!ff) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	err = from_image(ff, fd);
	close(fd);
	if (err) {
		ftrace_funcs__free(ff);
		errno = -err;
		return NULL;
	}
	return ff;
}

int ftrace_funcs__check_image(const char *path)
{
	struct aff_image_hdr hdr;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = read_header(fd, &hdr);
	close(fd);
	return err;
}

const struct ftrace_func *ftrace_funcs__image_entry(const struct ftrace_funcs *ff, size_t idx)
{
	struct ftrace_funcs *w = (struct ftrace_funcs *)ff;	/* the entry is the list's */
	const struct aff_rec *r = &ff->recs[idx];

	w->cur.name = ff->names + r->name;
	w->cur.module = r->module ? ff->names + r->module - 1 : NULL;
	return &w->cur;
}
