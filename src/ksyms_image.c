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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "file_buf.h"
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

int ksyms__write_image(const struct ksyms *ks, FILE *f, bool (*keep)(const struct ksym *s))
{
	struct ksyms k = { .funcs_only = true };
	size_t i;
	int err;

	/* the kept symbols, indexed anew: sizes and orders as a read of them alone gives */
	k.syms = malloc((ks->cnt ?: 1) * sizeof(*k.syms));
	if (!k.syms)
		return -ENOMEM;
	for (i = 0; i < ks->cnt; i++)
		if (ksym__is_func(ks->syms[i].type) && (!keep || keep(&ks->syms[i])))
			k.syms[k.cnt++] = ks->syms[i];
	err = k.cnt > UINT32_MAX ? -E2BIG : ksyms__build_indexes(&k);
	if (!err)
		err = write_table(&k, f);
	free(k.by_name);
	free(k.name_hashes);
	free(k.by_addr);
	free(k.syms);
	return err;
}

/* The symbols from the image's records; names as offsets until the names have moved */
static int fill_syms(struct ksyms *ks, const struct image_sym *r, __u64 len)
{
	size_t i;

	for (i = 0; i < ks->cnt; i++, r++) {
		struct ksym *s = &ks->syms[i];

		if (r->name >= len || r->module > len || !ksym__is_func(r->type))
			return -EINVAL;
		s->addr = r->addr;
		s->size = r->size;
		s->type = r->type;
		s->name = (const char *)(uintptr_t)r->name;
		s->module = (const char *)(uintptr_t)r->module;
	}
	return 0;
}

static int fill_order(struct ksyms *ks, const struct ksym **order, const __u32 *idx)
{
	size_t i;

	for (i = 0; i < ks->func_cnt; i++) {
		if (idx[i] >= ks->cnt)
			return -EINVAL;
		order[i] = &ks->syms[idx[i]];
	}
	return 0;
}

static int from_image(struct ksyms *ks, char *buf, size_t len)
{
	struct image_hdr hdr;
	const struct image_sym *recs;
	const __u32 *idx;
	__u64 need, names_at;
	size_t i;
	int err;

	if (len < sizeof(hdr))
		return -EINVAL;
	memcpy(&hdr, buf, sizeof(hdr));
	if (memcmp(hdr.magic, image_magic, sizeof(hdr.magic)) || hdr.func_cnt > hdr.cnt)
		return -EINVAL;
	names_at = sizeof(hdr) + (__u64)hdr.cnt * sizeof(*recs) + (__u64)hdr.func_cnt * 12;
	need = names_at + hdr.names_len;
	if (need != len || !hdr.names_len || buf[len - 1])
		return -EINVAL;
	ks->cnt = hdr.cnt;
	ks->func_cnt = hdr.func_cnt;
	ks->funcs_only = true;
	ks->syms = malloc((ks->cnt ?: 1) * sizeof(*ks->syms));
	ks->by_addr = malloc((ks->func_cnt ?: 1) * sizeof(*ks->by_addr));
	ks->by_name = malloc((ks->func_cnt ?: 1) * sizeof(*ks->by_name));
	ks->name_hashes = malloc((ks->func_cnt ?: 1) * sizeof(*ks->name_hashes));
	if (!ks->syms || !ks->by_addr || !ks->by_name || !ks->name_hashes)
		return -ENOMEM;
	recs = (const struct image_sym *)(buf + sizeof(hdr));
	idx = (const __u32 *)(recs + hdr.cnt);
	memcpy(ks->name_hashes, idx + 2 * hdr.func_cnt, hdr.func_cnt * sizeof(__u32));
	err = fill_syms(ks, recs, hdr.names_len);
	if (!err)
		err = fill_order(ks, ks->by_addr, idx);
	if (!err)
		err = fill_order(ks, ks->by_name, idx + hdr.func_cnt);
	if (err)
		return err;
	/* the names alone stay: moved to the buffer's start, the rest given back */
	memmove(buf, buf + names_at, hdr.names_len);
	ks->buf = realloc(buf, hdr.names_len) ?: buf;
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
	struct ksyms *ks;
	size_t len = 0;
	char *buf = NULL;
	int err;

	err = file_buf__read(path, &buf, &len);
	if (err) {
		errno = -err;
		return NULL;
	}
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		free(buf);
		errno = ENOMEM;
		return NULL;
	}
	err = from_image(ks, buf, len);
	if (!ks->buf)
		free(buf);	/* not taken over yet */
	if (err) {
		ksyms__free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
}
