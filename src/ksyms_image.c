// SPDX-License-Identifier: BSD-2-Clause
/*
 * A function symbol table as one file that loads without parsing or sorting: its symbols,
 * both orders, the name hashes and the names, as ksyms__build_indexes() left them. For the
 * boot cache (boot_cache.h): parsing kallsyms' text and indexing it took 93 M instructions
 * for 103k functions, the longest step of a start from the cache in a TCG guest.
 *
 * Layout, in the host's byte order (the file never leaves the machine):
 *   struct image_hdr
 *   struct ksym_rec [cnt]
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
		struct ksym_rec r = { .addr = s->addr, .size = s->size, .type = s->type };

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

/*
 * The mapped pages wholly inside [@from, @to) leave the process (the file keeps them in
 * the page cache): the records and the orders are read once, converted a chunk at a
 * time, and so never all resident at once; kept mapped, they were 4 MB of a warm start's
 * 18 MB peak (startup-r11).
 */
static void drop_mapped(const void *from, const void *to)
{
	uintptr_t page = sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)from + page - 1) & ~(page - 1);
	uintptr_t b = (uintptr_t)to & ~(page - 1);

	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

#define CONVERT_CHUNK 4096	/* entries between two drop_mapped()s */

/* four indexes compared at once (GCC and clang vector types: SSE2 on x86-64, NEON on arm64) */
typedef __u32 idx_vec __attribute__((vector_size(16)));
typedef __s32 idx_mask __attribute__((vector_size(16)));

#define IDX_LANES (sizeof(idx_vec) / sizeof(__u32))

/*
 * Any index of @idx[0, @n) at or past @cnt: one pass without branches, a chunk at a time,
 * four at a time (each load of a run, 240,000 indexes in a 7.2 guest: 1.96 M instructions
 * one at a time, 0.67 M four at a time; eight, split in two by the compiler, took 1.25 M).
 */
static bool bad_indexes(const __u32 *idx, size_t n, size_t cnt)
{
	idx_mask bad_v = {};
	idx_vec lim, v;
	size_t i, j, k, end;
	__u32 bad = 0;

	if (cnt > UINT32_MAX)
		return false;	/* every __u32 is below it */
	for (k = 0; k < IDX_LANES; k++)
		lim[k] = cnt;
	for (i = 0; i < n; i = end) {
		end = i + CONVERT_CHUNK < n ? i + CONVERT_CHUNK : n;
		for (j = i; j + IDX_LANES <= end; j += IDX_LANES) {
			memcpy(&v, &idx[j], sizeof(v));	/* the image's indexes: 4-byte aligned */
			bad_v |= v >= lim;
		}
		for (; j < end; j++)
			bad |= idx[j] >= cnt;
		drop_mapped(&idx[i], &idx[end]);
	}
	for (k = 0; k < IDX_LANES; k++)
		bad |= bad_v[k] != 0;
	return bad;
}

/*
 * The image whole: every record a function's, its name and module inside the names, every
 * index of both orders inside the records, the names ending with one. Searches and
 * ksyms__sym_at() then read it unchecked. Only reads, in chunks that leave the process
 * once read (the file keeps them in the page cache).
 */
static int check_image(const struct ksyms *ks, __u64 names_len)
{
	const struct ksym_rec *r = ks->recs;
	size_t i, j, end, cnt = ks->cnt;
	__u32 bad = 0;

	for (i = 0; i < cnt; i = end) {
		end = i + CONVERT_CHUNK < cnt ? i + CONVERT_CHUNK : cnt;
		for (j = i; j < end; j++) {
			char lower = r[j].type | 0x20;	/* t T w W: ksym__is_func() */

			bad |= (r[j].name >= names_len) | (r[j].module > names_len) |
			       ((lower != 't') & (lower != 'w'));
		}
		drop_mapped(&r[i], &r[end]);
	}
	if (bad || bad_indexes(ks->rec_by_addr, ks->func_cnt, cnt) ||
	    bad_indexes(ks->rec_by_name, ks->func_cnt, cnt))
		return -EINVAL;
	return ks->buf[names_len - 1] ? -EINVAL : 0;
}

/*
 * A table from an image as a parse makes it: every symbol filled, both orders as
 * pointers, the records no longer read. For what changes the symbols (addresses moved).
 */
static int materialize(struct ksyms *ks)
{
	size_t i;

	ks->by_addr = malloc((ks->func_cnt ?: 1) * sizeof(*ks->by_addr));
	ks->by_name = malloc((ks->func_cnt ?: 1) * sizeof(*ks->by_name));
	if (!ks->by_addr || !ks->by_name || !ks->rec_by_name)
		return -ENOMEM;
	for (i = 0; i < ks->cnt; i++)
		ksyms__sym_at(ks, i);
	for (i = 0; i < ks->func_cnt; i++) {
		ks->by_addr[i] = &ks->syms[ks->rec_by_addr[i]];
		ks->by_name[i] = &ks->syms[ks->rec_by_name[i]];
	}
	ks->recs = NULL;
	ks->rec_by_addr = ks->rec_by_name = NULL;
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
	if ((__u64)st.st_size != sizeof(*hdr) + (__u64)hdr->cnt * sizeof(struct ksym_rec) +
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

/* With one offset for all: the records a chunk at a time, the rest as it is */
static int copy_moved_all(int fd, const struct image_hdr *hdr, FILE *out, __u64 delta)
{
	struct ksym_rec recs[512];
	char rest[16384];
	__u64 left;
	size_t i, n;
	int err = 0;

	for (left = hdr->cnt; !err && left; left -= n) {
		n = left < 512 ? left : 512;
		err = read_full(fd, recs, n * sizeof(recs[0]));
		for (i = 0; !err && i < n; i++) {
			if (recs[i].module)
				err = -ENOENT;	/* a module symbol: it moved by its own offset */
			recs[i].addr += delta;
		}
		if (!err && fwrite(recs, sizeof(recs[0]), n, out) != n)
			err = -EIO;
	}
	for (left = (__u64)hdr->func_cnt * 12 + hdr->names_len; !err && left; left -= n) {
		n = left < sizeof(rest) ? left : sizeof(rest);
		err = read_full(fd, rest, n);
		if (!err && fwrite(rest, 1, n, out) != n)
			err = -EIO;
	}
	return err;
}

/* The module @name's offset in @moves; false if it has none */
static bool module_delta(const struct ksyms_move *moves, size_t n, const char *name, __u64 *d)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(moves[i].module, name)) {
			*d = moves[i].delta;
			return true;
		}
	}
	return false;
}

/*
 * With modules moved by offsets of their own: the image loaded as a table, its addresses
 * moved, its address order and sizes made again as a parse makes them, and written back
 * (the first run of a boot with modules, once). The name order holds: one module's
 * symbols all move alike.
 */
static int copy_moved_each(const char *src, FILE *out, __u64 delta,
			   const struct ksyms_move *moves, size_t move_cnt)
{
	const char *last_mod = NULL;
	__u64 mod_delta = 0;
	struct ksyms *ks;
	size_t i;
	int err = 0;

	ks = ksyms__load_image(src);
	if (!ks)
		return -errno;
	err = materialize(ks);
	for (i = 0; !err && i < ks->cnt; i++) {
		struct ksym *s = &ks->syms[i];

		if (!s->module) {
			s->addr += delta;
			continue;
		}
		/* a module's symbols come together: one search per module */
		if (s->module != last_mod &&
		    !module_delta(moves, move_cnt, s->module, &mod_delta)) {
			err = -ENOENT;
			break;
		}
		last_mod = s->module;
		s->addr += mod_delta;
	}
	if (!err) {
		ksyms__order_by_addr(ks);
		err = ksyms__write_image(ks, out);
	}
	ksyms__free(ks);
	return err;
}

int ksyms__copy_image(const char *src, FILE *out, __u64 delta, const struct ksyms_move *moves,
		      size_t move_cnt)
{
	struct image_hdr hdr = {};
	int fd, err;

	fd = open(src, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = read_header(fd, &hdr);
	if (!err && move_cnt)
		err = copy_moved_each(src, out, delta, moves, move_cnt);
	else if (!err && fwrite(&hdr, sizeof(hdr), 1, out) != 1)
		err = -EIO;
	else if (!err)
		err = copy_moved_all(fd, &hdr, out, delta);
	close(fd);
	return err;
}

int ksyms__image_head(const char *path, struct ksyms_head_sym *syms, size_t n)
{
	struct ksym_rec rec;
	struct image_hdr hdr = {};
	off_t names_off;
	ssize_t got;
	size_t i;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = read_header(fd, &hdr);
	if (n > hdr.cnt)
		n = hdr.cnt;
	names_off = sizeof(hdr) + (off_t)hdr.cnt * sizeof(rec) + (off_t)hdr.func_cnt * 12;
	for (i = 0; !err && i < n; i++) {
		err = read_full(fd, &rec, sizeof(rec));
		if (!err && rec.name >= hdr.names_len)
			err = -EINVAL;
		if (err)
			break;
		syms[i].addr = rec.addr;
		got = pread(fd, syms[i].name, sizeof(syms[i].name), names_off + rec.name);
		if (got < 0)
			err = -errno;
		else if (!memchr(syms[i].name, '\0', got))
			err = -EINVAL;	/* longer than any kernel name, or cut */
	}
	close(fd);
	return err ?: (int)n;
}

static int from_image(struct ksyms *ks, int fd)
{
	struct image_hdr hdr;
	size_t len;
	int err;

	err = read_header(fd, &hdr);
	if (err)
		return err;
	ks->cnt = hdr.cnt;
	ks->func_cnt = hdr.func_cnt;
	ks->funcs_only = true;
	ks->static_only = true;
	/*
	 * The file is mapped, not read, and used as it is: records, orders, name hashes and
	 * names (reading into fresh memory made the kernel zero those pages first).
	 */
	ks->map_len = sizeof(hdr) + (size_t)hdr.cnt * sizeof(struct ksym_rec) +
		      (size_t)hdr.func_cnt * 12 + hdr.names_len;
	ks->map = mmap(NULL, ks->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (ks->map == MAP_FAILED) {
		ks->map = NULL;
		return -errno;
	}
	ks->recs = (const struct ksym_rec *)((char *)ks->map + sizeof(hdr));
	ks->rec_by_addr = (const __u32 *)(ks->recs + hdr.cnt);
	ks->rec_by_name = ks->rec_by_addr + hdr.func_cnt;
	ks->name_hashes = (__u32 *)(ks->rec_by_name + hdr.func_cnt);
	ks->buf = (char *)(ks->name_hashes + hdr.func_cnt);
	/*
	 * Pages the kernel zeroes on first touch: only symbols handed out cost memory (calloc()
	 * from a heap that has grown zeroes them all, 5 MB for 122k symbols, at every load).
	 */
	len = (ks->cnt ?: 1) * sizeof(*ks->syms);
	ks->syms = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ks->syms == MAP_FAILED) {
		ks->syms = NULL;
		return -ENOMEM;
	}
	ks->syms_map_len = len;
	return check_image(ks, hdr.names_len);
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
