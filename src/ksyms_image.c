// SPDX-License-Identifier: BSD-2-Clause
/*
 * A function symbol table as one file that loads without parsing or sorting: its symbols,
 * both orders, the name hashes and the names, as ksyms__build_indexes() left them. For the
 * boot cache (boot_cache.h): parsing kallsyms' text and indexing it took 93 M instructions
 * for 103k functions, the longest step of a start from the cache in a TCG guest.
 *
 * Layout, in the host's byte order (the file never leaves the machine):
 *   struct image_hdr
 *   struct image_sym [cnt]
 *   __u32 by_addr[func_cnt], by_name[func_cnt]   indexes into the symbols
 *   __u32 name_hashes[func_cnt]
 *   char names[names_len]                        NUL-terminated strings
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "ksyms.h"
#include "ksyms_int.h"

static const char image_magic[8] = "RSKSYM\0\1";

struct image_hdr {
	char magic[8];
	__u32 cnt;
	__u32 func_cnt;
	__u64 names_len;
};

struct image_sym {
	__u64 addr;
	__u64 size;
	__u32 name;	/* offset into names */
	__u32 module;	/* offset into names plus one; 0: vmlinux */
	char type;
	char pad[7];
};

/* The names' bytes: each name, and each module once per run of symbols that share it */
static __u64 names_len(const struct ksyms *k)
{
	const char *mod = NULL;
	__u64 len = 0;
	size_t i;

	for (i = 0; i < k->cnt; i++) {
		const struct ksym *s = &k->syms[i];

		len += strlen(s->name) + 1;
		if (s->module && (!mod || strcmp(mod, s->module)))
			len += strlen(s->module) + 1;
		if (s->module)
			mod = s->module;
	}
	return len;
}

static int write_table(const struct ksyms *k, FILE *f)
{
	struct image_hdr hdr = { .cnt = k->cnt, .func_cnt = k->func_cnt, .names_len = names_len(k) };
	const char *mod = NULL;
	__u32 off = 0, mod_off = 0, idx;
	size_t i;

	memcpy(hdr.magic, image_magic, sizeof(hdr.magic));
	fwrite(&hdr, sizeof(hdr), 1, f);
	for (i = 0; i < k->cnt; i++) {
		const struct ksym *s = &k->syms[i];
		struct image_sym r = { .addr = s->addr, .size = s->size, .type = s->type };

		if (s->module && (!mod || strcmp(mod, s->module))) {
			mod = s->module;
			mod_off = off;
			off += strlen(mod) + 1;
		}
		r.module = s->module ? mod_off + 1 : 0;
		r.name = off;
		off += strlen(s->name) + 1;
		fwrite(&r, sizeof(r), 1, f);
	}
	for (i = 0; i < k->func_cnt; i++) {
		idx = k->by_addr[i] - k->syms;
		fwrite(&idx, sizeof(idx), 1, f);
	}
	for (i = 0; i < k->func_cnt; i++) {
		idx = k->by_name[i] - k->syms;
		fwrite(&idx, sizeof(idx), 1, f);
	}
	fwrite(k->name_hashes, sizeof(*k->name_hashes), k->func_cnt, f);
	/* the same walk as above: each module before the first symbol of its run */
	mod = NULL;
	for (i = 0; i < k->cnt; i++) {
		const struct ksym *s = &k->syms[i];

		if (s->module && (!mod || strcmp(mod, s->module))) {
			mod = s->module;
			fwrite(mod, strlen(mod) + 1, 1, f);
		}
		fwrite(s->name, strlen(s->name) + 1, 1, f);
	}
	return ferror(f) ? -EIO : 0;
}

int ksyms__write_image(const struct ksyms *ks, FILE *f)
{
	/* written as they are: the table needs no copy, sorted or not (8 MB on 6.12) */
	if (!ks->by_name || !ks->name_hashes || ks->func_cnt != ks->cnt || ks->cnt > UINT32_MAX)
		return -EINVAL;
	return write_table(ks, f);
}

/* @n bytes at the file's current offset; -EINVAL if the file ends first */
static int read_full(int fd, void *buf, size_t n)
{
	char *p = buf;
	ssize_t r;

	while (n) {
		r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EINVAL;
		p += r;
		n -= r;
	}
	return 0;
}

/* Records and indexes go through a small buffer, never the whole file (8 MB on 6.12) */
#define CHUNK 2048

/* The symbols from the image's records; names as offsets until the names are in */
static int read_syms(struct ksyms *ks, int fd, __u64 names_len)
{
	struct image_sym r[CHUNK];
	size_t i, j, n;
	int err;

	for (i = 0; i < ks->cnt; i += n) {
		n = ks->cnt - i < CHUNK ? ks->cnt - i : CHUNK;
		err = read_full(fd, r, n * sizeof(*r));
		if (err)
			return err;
		for (j = 0; j < n; j++) {
			struct ksym *s = &ks->syms[i + j];

			if (r[j].name >= names_len || r[j].module > names_len ||
			    !ksym__is_func(r[j].type))
				return -EINVAL;
			s->addr = r[j].addr;
			s->size = r[j].size;
			s->type = r[j].type;
			s->name = (const char *)(uintptr_t)r[j].name;
			s->module = (const char *)(uintptr_t)r[j].module;
		}
	}
	return 0;
}

static int read_order(struct ksyms *ks, int fd, const struct ksym **order)
{
	__u32 idx[CHUNK];
	size_t i, j, n;
	int err;

	for (i = 0; i < ks->func_cnt; i += n) {
		n = ks->func_cnt - i < CHUNK ? ks->func_cnt - i : CHUNK;
		err = read_full(fd, idx, n * sizeof(*idx));
		if (err)
			return err;
		for (j = 0; j < n; j++) {
			if (idx[j] >= ks->cnt)
				return -EINVAL;
			order[i + j] = &ks->syms[idx[j]];
		}
	}
	return 0;
}

/* The header at @fd's start, if it is this build's and its counts add up to the file */
static int read_header(int fd, struct image_hdr *hdr)
{
	struct stat st;
	int err;

	err = read_full(fd, hdr, sizeof(*hdr));
	if (err)
		return err;
	if (memcmp(hdr->magic, image_magic, sizeof(hdr->magic)) || hdr->func_cnt > hdr->cnt ||
	    !hdr->names_len || fstat(fd, &st))
		return -EINVAL;
	/* the whole file is this image: counts that don't add up to its size are damage */
	if ((__u64)st.st_size != sizeof(*hdr) + (__u64)hdr->cnt * sizeof(struct image_sym) +
				 (__u64)hdr->func_cnt * 12 + hdr->names_len)
		return -EINVAL;
	return 0;
}

int ksyms__check_image(const char *path)
{
	struct image_hdr hdr;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = read_header(fd, &hdr);
	close(fd);
	return err;
}

static int from_image(struct ksyms *ks, int fd)
{
	struct image_hdr hdr;
	size_t i, hashes_off;
	int err;

	err = read_header(fd, &hdr);
	if (err)
		return err;
	ks->cnt = hdr.cnt;
	ks->func_cnt = hdr.func_cnt;
	ks->funcs_only = true;
	ks->static_only = true;
	/*
	 * The name hashes and the names are used as the file has them: mapped, not read into
	 * fresh memory (the kernel zeroing its pages was a third of a warm start's reading).
	 */
	ks->map_len = sizeof(hdr) + (size_t)hdr.cnt * sizeof(struct image_sym) +
		      (size_t)hdr.func_cnt * 12 + hdr.names_len;
	ks->map = mmap(NULL, ks->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (ks->map == MAP_FAILED) {
		ks->map = NULL;
		return -errno;
	}
	hashes_off = sizeof(hdr) + (size_t)hdr.cnt * sizeof(struct image_sym) +
		     (size_t)hdr.func_cnt * 8;
	ks->name_hashes = (__u32 *)((char *)ks->map + hashes_off);
	ks->buf = (char *)ks->map + hashes_off + (size_t)hdr.func_cnt * 4;
	ks->syms = malloc((ks->cnt ?: 1) * sizeof(*ks->syms));
	ks->by_addr = malloc((ks->func_cnt ?: 1) * sizeof(*ks->by_addr));
	ks->by_name = malloc((ks->func_cnt ?: 1) * sizeof(*ks->by_name));
	if (!ks->syms || !ks->by_addr || !ks->by_name)
		return -ENOMEM;
	err = read_syms(ks, fd, hdr.names_len);
	if (!err)
		err = read_order(ks, fd, ks->by_addr);
	if (!err)
		err = read_order(ks, fd, ks->by_name);
	if (err)
		return err;
	if (ks->buf[hdr.names_len - 1])
		return -EINVAL;	/* every name ends before the names do */
	for (i = 0; i < ks->cnt; i++) {
		struct ksym *s = &ks->syms[i];

		s->name = ks->buf + (uintptr_t)s->name;
		if (s->module)
			s->module = ks->buf + (uintptr_t)s->module - 1;
	}
	return 0;
}

struct ksyms *ksyms__load_image(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct ksyms *ks;
	int err;

	if (fd < 0)
		return NULL;
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	err = from_image(ks, fd);
	close(fd);
	if (err) {
		/* a half-read table: its pointers are offsets, but free() only needs its arrays */
		ksyms__free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
}
