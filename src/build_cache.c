// SPDX-License-Identifier: BSD-2-Clause
/* The boot cache's lists kept per kernel build, across its boots; see build_cache.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "build_cache.h"
#include "cache_file.h"
#include "kernel_image.h"
#include "ksyms.h"
#include "opts.h"

#define DEFAULT_DIR "/var/cache/retsnoop"
/* _stext follows the per-CPU symbols: line 389 on 6.12 x86-64, the first on arm64 */
#define STEXT_SEARCH_MAX (1024 * 1024)

static const char *const suffixes[BOOT_CACHE_FILE_CNT] = {
	[BOOT_CACHE_KALLSYMS] = "ksyms",
	/*
	 * An image since round 13: under the name older builds read as text (".ftrace") it
	 * would be parsed as garbage by one still installed ("No matching functions found")
	 */
	[BOOT_CACHE_FTRACE_FUNCS] = "aff",
	[BOOT_CACHE_BTF_FUNCS] = "btf-funcs",
};

/*
 * The kernel's first function symbols, which a restored image must list alike: one offset
 * for all of the kernel's text is what KASLR does; a kernel that moves its functions apart
 * (function-granular randomization), or any other mismatch, shows there first.
 */
#define HEAD_SYMS 16

struct build_cache {
	struct build_cache_opts opts;
	struct ksyms_head_sym head[HEAD_SYMS];
	size_t head_cnt;
	char id[64];			/* the build ID in hex, and the modules' hash if any */
	char paths[BOOT_CACHE_FILE_CNT][PATH_MAX];
	char mods_path[PATH_MAX];	/* where each module's .text was in its code */
	__u64 stext;			/* 0: not read yet */
};

static const char *dir_of(const struct build_cache *bc)
{
	return bc->opts.dir ?: DEFAULT_DIR;
}

static int read_build_id(struct build_cache *bc)
{
	unsigned char id[20];
	char buf[8192], path[PATH_MAX];
	ssize_t n;
	int len, i;

	snprintf(path, sizeof(path), "%s/sys/kernel/notes", bc->opts.root ?: "");
	n = cache_file__read_small(path, buf, sizeof(buf));
	if (n <= 0)
		return -ENOENT;
	len = kernel_image__notes_build_id(buf, n, id, sizeof(id));
	/* a short ID could be anything but a hash of the image: not a key to trust */
	if (len < 16)
		return -ENOENT;
	for (i = 0; i < len; i++)
		sprintf(bc->id + 2 * i, "%02x", id[i]);
	if (bc->opts.module_cnt)
		sprintf(bc->id + 2 * len, "-%016llx", (unsigned long long)bc->opts.modset);
	return 0;
}

struct build_cache *build_cache__open(const struct build_cache_opts *opts)
{
	struct build_cache *bc = calloc(1, sizeof(*bc));
	int err, i;

	if (!bc)
		return errno = ENOMEM, NULL;
	if (OPTS_COPY(&bc->opts, opts)) {
		free(bc);
		return errno = EINVAL, NULL;
	}
	if (!bc->opts.max_builds)
		bc->opts.max_builds = BUILD_CACHE_DEFAULT_BUILDS;
	err = read_build_id(bc);
	if (err) {
		free(bc);
		return errno = -err, NULL;
	}
	if (!cache_file__private_dir(dir_of(bc))) {
		free(bc);
		return errno = EACCES, NULL;
	}
	for (i = 0; i < BOOT_CACHE_FILE_CNT; i++)
		if (suffixes[i])
			snprintf(bc->paths[i], sizeof(bc->paths[i]), "%s/%s.%s", dir_of(bc), bc->id,
				 suffixes[i]);
	snprintf(bc->mods_path, sizeof(bc->mods_path), "%s/%s.modules", dir_of(bc), bc->id);
	return bc;
}

static bool kept(enum boot_cache_file which)
{
	return which >= 0 && which < BOOT_CACHE_FILE_CNT && suffixes[which];
}

const char *build_cache__path(const struct build_cache *bc, enum boot_cache_file which)
{
	if (!bc || !kept(which) || !cache_file__private(bc->paths[which]))
		return NULL;
	return bc->paths[which];
}

/*
 * One line of kallsyms: the kernel's function symbols go to the head (the first
 * HEAD_SYMS), _stext's address to bc->stext. False once both are had, or a module's
 * symbol says the kernel's are over.
 */
static bool head_line(struct build_cache *bc, const char *line)
{
	unsigned long long addr;
	char type, name[KSYMS_HEAD_NAME_LEN];

	if (strchr(line, '['))
		return false;
	if (sscanf(line, "%llx %c %511s", &addr, &type, name) != 3 || !ksym__is_func(type))
		return true;
	if (!bc->stext && !strcmp(name, "_stext")) {
		bc->stext = addr;
		if (!addr)
			return false;	/* hidden: nothing to place the image by */
	}
	if (bc->head_cnt < HEAD_SYMS) {
		bc->head[bc->head_cnt].addr = addr;
		strcpy(bc->head[bc->head_cnt++].name, name);
	}
	return !bc->stext || bc->head_cnt < HEAD_SYMS;
}

/*
 * This boot's _stext and the kernel's first function symbols, from the first lines of
 * kallsyms: the kernel formats only what is read, so the search stops there.
 */
static int read_stext(struct build_cache *bc)
{
	char path[PATH_MAX], buf[8192];
	size_t have = 0, total = 0;
	bool more = true;
	ssize_t n;
	int fd;

	if (bc->stext)
		return 0;
	snprintf(path, sizeof(path), "%s/proc/kallsyms", bc->opts.root ?: "");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (more && total < STEXT_SEARCH_MAX) {
		char *line = buf, *nl;

		n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += n;
		have += n;
		buf[have] = '\0';
		while (more && (nl = strchr(line, '\n'))) {
			*nl = '\0';
			more = head_line(bc, line);
			line = nl + 1;
		}
		have -= line - buf;
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0;	/* no line is that long: not kallsyms */
	}
	close(fd);
	/* 0 also where the kernel hides addresses (kptr_restrict): nothing to place by */
	return bc->stext ? 0 : -ESRCH;
}

/*
 * Where sysfs says module @name's .text section is this boot: 0 and *@addr, -ENOENT when
 * it has none (a module without code), other errno.
 */
static int module_text(const struct build_cache *bc, const char *name, __u64 *addr)
{
	char path[PATH_MAX], buf[64];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/sys/module/%s/sections/.text", bc->opts.root ?: "",
		 name);
	n = cache_file__read_small(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	if (n == 0)
		return -EIO;
	*addr = strtoull(buf, NULL, 16);
	/* hidden (kptr_restrict): nothing to check a module's place against */
	return *addr ? 0 : -ESRCH;
}

/* Each module's .text relative to where its code starts, a line per module */
static int write_modules(FILE *f, const void *ctx)
{
	const struct build_cache *bc = ctx;
	size_t i;
	__u64 text;
	int err;

	for (i = 0; i < bc->opts.module_cnt; i++) {
		const struct build_module *m = &bc->opts.modules[i];

		err = module_text(bc, m->name, &text);
		if (err == -ENOENT)
			fprintf(f, "%s -\n", m->name);
		else if (err)
			return err;
		else
			fprintf(f, "%s %llx\n", m->name, (unsigned long long)(text - m->base));
	}
	return 0;
}

/*
 * Is every module's .text where its kept copy puts it, relative to where its code starts
 * this boot? A module laid out otherwise would have its symbols misplaced.
 */
static int check_modules(const struct build_cache *bc)
{
	char line[128], name[64], off[32];
	size_t i, seen = 0;
	__u64 text;
	FILE *f;
	int err = 0;

	f = fopen(bc->mods_path, "re");
	if (!f)
		return -ENOENT;
	while (!err && fgets(line, sizeof(line), f)) {
		const struct build_module *m = NULL;

		if (sscanf(line, "%63s %31s", name, off) != 2) {
			err = -EINVAL;
			break;
		}
		for (i = 0; i < bc->opts.module_cnt && !m; i++)
			if (!strcmp(bc->opts.modules[i].name, name))
				m = &bc->opts.modules[i];
		if (!m) {
			err = -ESTALE;
			break;
		}
		seen++;
		err = module_text(bc, name, &text);
		if (!strcmp(off, "-"))
			err = err == -ENOENT ? 0 : -ESTALE;
		else if (err == -ENOENT || (!err && text - m->base != strtoull(off, NULL, 16)))
			err = -ESTALE;
	}
	fclose(f);
	if (!err && seen != bc->opts.module_cnt)
		err = -ESTALE;
	return err;
}

struct image_copy {
	const char *src;
	__u64 delta;
	struct ksyms_move *moves;
	size_t move_cnt;
};

static int copy_image(FILE *f, const void *ctx)
{
	const struct image_copy *c = ctx;

	return ksyms__copy_image(c->src, f, c->delta, c->moves, c->move_cnt);
}

/* @src to @dst; the kallsyms image moved by @sign * _stext, its modules by @sign * base */
static int copy(struct build_cache *bc, enum boot_cache_file which, const char *src,
		const char *dst, int sign)
{
	struct image_copy ic = { .src = src, .move_cnt = bc->opts.module_cnt };
	size_t i;
	int err;

	if (which != BOOT_CACHE_KALLSYMS)
		return cache_file__replace(dst, cache_file__copy, src);
	err = read_stext(bc);
	if (err)
		return err;
	ic.delta = sign > 0 ? bc->stext : -bc->stext;
	if (ic.move_cnt) {
		ic.moves = calloc(ic.move_cnt, sizeof(*ic.moves));
		if (!ic.moves)
			return -ENOMEM;
		for (i = 0; i < ic.move_cnt; i++) {
			ic.moves[i].module = bc->opts.modules[i].name;
			ic.moves[i].delta = sign > 0 ? bc->opts.modules[i].base
						     : -bc->opts.modules[i].base;
		}
	}
	err = cache_file__replace(dst, copy_image, &ic);
	free(ic.moves);
	return err;
}

/* Does the restored image @path begin with the kernel's first function symbols? */
static int check_head(const struct build_cache *bc, const char *path)
{
	struct ksyms_head_sym *syms;
	int n, i, err = 0;

	syms = calloc(HEAD_SYMS, sizeof(*syms));
	if (!syms)
		return -ENOMEM;
	n = ksyms__image_head(path, syms, bc->head_cnt);
	if (n < 0)
		err = n;
	else if ((size_t)n != bc->head_cnt)
		err = -ESTALE;
	for (i = 0; !err && i < n; i++)
		if (syms[i].addr != bc->head[i].addr || strcmp(syms[i].name, bc->head[i].name))
			err = -ESTALE;
	free(syms);
	return err;
}

int build_cache__restore(struct build_cache *bc, enum boot_cache_file which, const char *dst)
{
	const char *src = build_cache__path(bc, which);
	int err;

	if (!bc || !kept(which) || !dst)
		return -EINVAL;
	if (!src)
		return -ENOENT;
	if (which == BOOT_CACHE_KALLSYMS && bc->opts.module_cnt) {
		err = check_modules(bc);
		if (err)
			return err;
	}
	err = copy(bc, which, src, dst, 1);
	if (!err && which == BOOT_CACHE_KALLSYMS) {
		err = check_head(bc, dst);
		if (err)
			unlink(dst);
	}
	return err;
}

struct build_seen {
	char id[64];
	time_t mtime;
};

/* The kernel (and modules) a file of ours belongs to: its name up to the first dot */
static bool build_of(const char *name, char *id)
{
	const char *dot = strchr(name, '.');
	size_t len = dot ? (size_t)(dot - name) : 0;
	int i;

	if (len < 32 || len > 57 || strspn(name, "0123456789abcdef-") != len)
		return false;
	for (i = 0; i < BOOT_CACHE_FILE_CNT; i++)
		if (suffixes[i] && !strncmp(dot + 1, suffixes[i], strlen(suffixes[i])))
			break;
	if (i == BOOT_CACHE_FILE_CNT && strncmp(dot + 1, "modules", 7))
		return false;
	memcpy(id, name, len);
	id[len] = '\0';
	return true;
}

/* Remove every file of the least recently kept build but ours; false when none is left */
static bool prune_oldest(struct build_cache *bc)
{
	struct build_seen seen[64], *oldest = NULL;
	size_t cnt = 0, i;
	struct dirent *e;
	struct stat st;
	char id[64];
	DIR *d;

	d = opendir(dir_of(bc));
	if (!d)
		return false;
	while ((e = readdir(d))) {
		if (!build_of(e->d_name, id) || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		for (i = 0; i < cnt && strcmp(seen[i].id, id); i++)
			;
		if (i == cnt) {
			if (cnt == sizeof(seen) / sizeof(seen[0]))
				continue;
			strcpy(seen[cnt].id, id);
			seen[cnt++].mtime = st.st_mtime;
		} else if (st.st_mtime > seen[i].mtime) {
			seen[i].mtime = st.st_mtime;
		}
	}
	for (i = 0; i < cnt; i++)
		if (strcmp(seen[i].id, bc->id) && (!oldest || seen[i].mtime < oldest->mtime))
			oldest = &seen[i];
	if (cnt <= bc->opts.max_builds || !oldest) {
		closedir(d);
		return false;
	}
	rewinddir(d);
	while ((e = readdir(d)))
		if (build_of(e->d_name, id) && !strcmp(id, oldest->id))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	return true;
}

int build_cache__keep(struct build_cache *bc, enum boot_cache_file which, const char *src)
{
	int err;

	if (!bc || !kept(which) || !src)
		return -EINVAL;
	/* where the modules' .text sections are, for the boots that restore the image */
	if (which == BOOT_CACHE_KALLSYMS && bc->opts.module_cnt) {
		err = cache_file__replace(bc->mods_path, write_modules, bc);
		if (err)
			return err;
	}
	err = copy(bc, which, src, bc->paths[which], -1);
	while (!err && prune_oldest(bc))
		;
	return err;
}

void build_cache__free(struct build_cache *bc)
{
	free(bc);
}
