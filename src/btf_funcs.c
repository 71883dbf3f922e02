// SPDX-License-Identifier: BSD-2-Clause
/*
 * The vmlinux BTF functions' digest (btf_funcs.h). Layout, native byte order (a copy never
 * leaves the boot that wrote it): a header, cnt entries, then the names, each
 * NUL-terminated, the last byte of the area a NUL.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include "btf_funcs.h"
#include "func_types.h"
#include "opts.h"

#define MAGIC "RSBTFFN1"

struct exe_key {
	__u64 dev, ino, size, mtime_ns;
};

struct header {
	char magic[8];
	struct exe_key exe;
	__u32 cnt;
	__u32 names_len;
};

struct entry {
	__u32 name_off;
	__u32 btf_id;
	__u32 flags;
	__s32 arg_cnt;
};

struct btf_funcs {
	void *map;
	size_t map_len;
	const struct entry *entries;
	const char *names;
	size_t cnt;
};

static int exe_key(const struct btf_funcs_opts *opts, struct exe_key *k)
{
	struct stat st;

	if (stat(opts->exe ?: "/proc/self/exe", &st))
		return -errno;
	memset(k, 0, sizeof(*k));
	k->dev = st.st_dev;
	k->ino = st.st_ino;
	k->size = st.st_size;
	k->mtime_ns = (__u64)st.st_mtim.tv_sec * 1000000000ULL + st.st_mtim.tv_nsec;
	return 0;
}

int btf_funcs__build(const struct btf *btf, const struct btf_funcs_opts *uopts, void **data,
		     size_t *len)
{
	__u32 id, n = btf__type_cnt(btf), cnt = 0, i;
	struct btf_funcs_opts opts;
	size_t names_len = 0, off;
	struct entry *e;
	struct header *h;
	char *buf, *names;
	int err, args;

	if (OPTS_COPY(&opts, uopts))
		return -EINVAL;
	e = calloc(n ?: 1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	/* every FUNC, twice-named ones too: discovery's walk sees (and counts) each */
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name;

		if (!btf_is_func(t))
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (!name || !*name)
			continue;
		args = func_types__arg_cnt(btf, id);
		e[cnt].btf_id = id;
		e[cnt].flags = func_types__flags(btf, id, name);
		e[cnt].arg_cnt = args < 0 ? 0 : args;
		names_len += strlen(name) + 1;
		cnt++;
	}
	*len = sizeof(*h) + (size_t)cnt * sizeof(*e) + names_len + 1;
	buf = calloc(1, *len);
	if (!buf) {
		free(e);
		return -ENOMEM;
	}
	h = (struct header *)buf;
	memcpy(h->magic, MAGIC, sizeof(h->magic));
	err = exe_key(&opts, &h->exe);
	if (err) {
		free(buf);
		free(e);
		return err;
	}
	h->cnt = cnt;
	h->names_len = names_len + 1;
	names = buf + sizeof(*h) + (size_t)cnt * sizeof(*e);
	for (i = 0, off = 0; i < cnt; i++) {
		const struct btf_type *t = btf__type_by_id(btf, e[i].btf_id);
		const char *name = btf__name_by_offset(btf, t->name_off);
		size_t l = strlen(name) + 1;

		memcpy(names + off, name, l);
		e[i].name_off = off;
		off += l;
	}
	memcpy(buf + sizeof(*h), e, (size_t)cnt * sizeof(*e));
	free(e);
	*data = buf;
	return 0;
}

/* Every entry's name inside the names, the names' end a NUL: nothing reads past the map. */
static bool valid(const struct header *h, size_t len)
{
	const struct entry *e = (const void *)(h + 1);
	const char *names;
	size_t i;

	if (len < sizeof(*h) || memcmp(h->magic, MAGIC, sizeof(h->magic)) || !h->names_len)
		return false;
	if ((len - sizeof(*h)) / sizeof(*e) < h->cnt ||
	    len - sizeof(*h) - (size_t)h->cnt * sizeof(*e) != h->names_len)
		return false;
	names = (const char *)(e + h->cnt);
	if (names[h->names_len - 1])
		return false;
	for (i = 0; i < h->cnt; i++)
		if (e[i].name_off >= h->names_len - 1 || !e[i].btf_id)
			return false;
	return true;
}

struct btf_funcs *btf_funcs__open(const char *path, const struct btf_funcs_opts *uopts)
{
	struct btf_funcs_opts opts;
	struct btf_funcs *f = NULL;
	const struct header *h;
	struct exe_key key;
	struct stat st;
	int fd, err;
	void *map;

	if (OPTS_COPY(&opts, uopts)) {
		errno = EINVAL;
		return NULL;
	}
	err = exe_key(&opts, &key);
	if (err) {
		errno = -err;
		return NULL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st)) {
		err = -errno;
		goto err_close;
	}
	if ((size_t)st.st_size < sizeof(*h)) {
		err = -EINVAL;
		goto err_close;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		err = -errno;
		goto err_close;
	}
	close(fd);
	h = map;
	if (!valid(h, st.st_size)) {
		err = -EINVAL;
		goto err_unmap;
	}
	if (memcmp(&h->exe, &key, sizeof(key))) {
		err = -ESTALE;
		goto err_unmap;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		err = -ENOMEM;
		goto err_unmap;
	}
	f->map = map;
	f->map_len = st.st_size;
	f->entries = (const void *)(h + 1);
	f->names = (const char *)(f->entries + h->cnt);
	f->cnt = h->cnt;
	return f;
err_unmap:
	munmap(map, st.st_size);
	errno = -err;
	return NULL;
err_close:
	close(fd);
	errno = -err;
	return NULL;
}

size_t btf_funcs__cnt(const struct btf_funcs *f)
{
	return f->cnt;
}

void btf_funcs__get(const struct btf_funcs *f, size_t i, struct btf_func_facts *out)
{
	const struct entry *e = &f->entries[i];

	out->name = f->names + e->name_off;
	out->btf_id = e->btf_id;
	out->flags = e->flags;
	out->arg_cnt = e->arg_cnt;
}

void btf_funcs__free(struct btf_funcs *f)
{
	if (!f)
		return;
	munmap(f->map, f->map_len);
	free(f);
}
