// SPDX-License-Identifier: BSD-2-Clause
/* The kernel's function lists kept for the rest of the boot; see boot_cache.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include "boot_cache.h"
#include "build_cache.h"
#include "cache_file.h"
#include "file_buf.h"
#include "ftrace_funcs.h"
#include "ksyms.h"
#include "opts.h"
#include "quiet_thread.h"

#define DEFAULT_DIR "/run/retsnoop"

static const char *const suffixes[BOOT_CACHE_FILE_CNT] = {
	[BOOT_CACHE_KALLSYMS] = "ksyms",
	/*
	 * An image since round 13: under the name older builds read as text (".ftrace") it
	 * would be parsed as garbage by one still installed ("No matching functions found")
	 */
	[BOOT_CACHE_FTRACE_FUNCS] = "aff",
	[BOOT_CACHE_FEATURES] = "features",
	[BOOT_CACHE_BTF_FUNCS] = "btf-funcs",
	[BOOT_CACHE_USER_FEATURES] = "ufeatures",
};

struct boot_cache {
	struct boot_cache_opts opts;
	char boot_id[40];
	__u64 modules_hash;
	/* the loaded modules, for the kernel build's copies (restore_build()) */
	struct build_module *mods;
	size_t mod_cnt;
	__u64 modset;		/* their names, sizes and build IDs, in any order */
	char paths[BOOT_CACHE_FILE_CNT][PATH_MAX];
	bool present[BOOT_CACHE_FILE_CNT];
	/* the kernel build's copies (build_cache.h): which copies came from them, or why not */
	struct build_cache *build;
	int build_err;
	bool restored[BOOT_CACHE_FILE_CNT];
	bool keeping;
	pthread_mutex_t build_lock;
	/* the save */
	pthread_t saver;
	bool saving;
	int save_err;
	const struct ksyms *ks;
	const struct ftrace_funcs *ff;
};

#define FNV_BASIS 0xcbf29ce484222325ULL

static __u64 fnv_add(__u64 h, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int read_text(const struct boot_cache *c, const char *rel, char **buf, size_t *len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", c->opts.root ?: "", rel);
	return file_buf__read(path, buf, len);
}

static ssize_t read_small(const struct boot_cache *c, const char *rel, char *buf, size_t sz)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", c->opts.root ?: "", rel);
	return cache_file__read_small(path, buf, sz);
}

/*
 * One module line of /proc/modules: "name size refcnt deps state address [taint]". The
 * reference count and the users change while the module's code stays: they are left out.
 * Its build ID (sysfs notes) tells a rebuilt module reloaded at the same place.
 */
static int hash_module(struct boot_cache *c, char *line, __u64 *h, bool record)
{
	char *f[6], *save = NULL, path[PATH_MAX], note[256];
	struct build_module *m;
	ssize_t note_len;
	__u64 own;
	int i;

	for (i = 0; i < 6; i++) {
		f[i] = strtok_r(i ? NULL : line, " \t", &save);
		if (!f[i])
			return -EINVAL;
	}
	if (strcmp(f[4], "Live"))
		return -EAGAIN;	/* loading or unloading: its symbols are in flux */
	*h = fnv_add(*h, f[0], strlen(f[0]) + 1);
	*h = fnv_add(*h, f[1], strlen(f[1]) + 1);
	*h = fnv_add(*h, f[5], strlen(f[5]) + 1);
	snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id", f[0]);
	/* no note (built without one): name, size and place must do */
	note_len = read_small(c, path, note, sizeof(note));
	if (note_len > 0)
		*h = fnv_add(*h, note, note_len);
	if (!record)
		return 0;
	/* the module set of the build's copies: what it is, not where, nor in which order */
	own = fnv_add(FNV_BASIS, f[0], strlen(f[0]) + 1);
	own = fnv_add(own, f[1], strlen(f[1]) + 1);
	if (note_len > 0)
		own = fnv_add(own, note, note_len);
	c->modset += own;
	m = realloc(c->mods, (c->mod_cnt + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	c->mods = m;
	m += c->mod_cnt;
	m->base = strtoull(f[5], NULL, 16);
	m->name = strdup(f[0]);
	if (!m->name)
		return -ENOMEM;
	c->mod_cnt++;
	return 0;
}

/* @record: and keep the list (boot_cache__open()) */
static int hash_modules(struct boot_cache *c, __u64 *out, bool record)
{
	__u64 h = FNV_BASIS;
	char *buf = NULL, *line, *nl;
	size_t len = 0;
	int err;

	err = read_text(c, "/proc/modules", &buf, &len);
	if (err == -ENOENT) {
		/* a kernel without modules */
		*out = h;
		return 0;
	}
	if (err)
		return err;
	for (line = buf; !err && line < buf + len; line = nl + 1) {
		nl = memchr(line, '\n', buf + len - line);
		if (!nl)
			nl = buf + len;
		*nl = '\0';
		if (*line)
			err = hash_module(c, line, &h, record);
	}
	free(buf);
	*out = h;
	return err;
}

static void free_mods(struct boot_cache *c)
{
	size_t i;

	for (i = 0; i < c->mod_cnt; i++)
		free((char *)c->mods[i].name);
	free(c->mods);
}

static int read_key(struct boot_cache *c)
{
	char buf[64];
	ssize_t n;
	size_t len;

	n = c->opts.features_only ? -ENOENT :
	    read_small(c, "/proc/sys/kernel/kptr_restrict", buf, sizeof(buf));
	if (n > 0 && buf[0] == '2')
		return -EPERM;
	if (n < 0 && n != -ENOENT)
		return n;
	n = read_small(c, "/proc/sys/kernel/random/boot_id", buf, sizeof(buf));
	if (n < 0)
		return n;
	len = strcspn(buf, "\n");
	/* a UUID: its characters are safe in a file name */
	if (len < 8 || len >= sizeof(c->boot_id) || buf[strspn(buf, "0123456789abcdef-")] != '\n')
		return -ENOENT;
	memcpy(c->boot_id, buf, len);
	return hash_modules(c, &c->modules_hash, true);
}

/* The lists a boot's copies can come from, or go to, the kernel build's */
/*
 * A copy this build can read: the lists' images start with their layout's header and are
 * as long as it says (0), anything else is -EINVAL; the other copies are checked as read.
 */
static int check_image(enum boot_cache_file which, const char *path)
{
	switch (which) {
	case BOOT_CACHE_KALLSYMS: return ksyms__check_image(path);
	case BOOT_CACHE_FTRACE_FUNCS: return ftrace_funcs__check_image(path);
	default: return 0;
	}
}

static const enum boot_cache_file build_lists[] = {
	BOOT_CACHE_KALLSYMS, BOOT_CACHE_FTRACE_FUNCS, BOOT_CACHE_BTF_FUNCS,
};

/*
 * A boot's first run (or one that found a copy missing): this boot's copies from the
 * kernel build's, made by an earlier boot with the same modules loaded.
 */
static void restore_build(struct boot_cache *c)
{
	struct build_cache_opts o = { .sz = sizeof(o), .dir = c->opts.build_dir,
				      .root = c->opts.root, .modules = c->mods,
				      .module_cnt = c->mod_cnt, .modset = c->modset };
	bool missing = false;
	size_t i;
	int err;

	for (i = 0; i < sizeof(build_lists) / sizeof(build_lists[0]); i++)
		missing |= !c->present[build_lists[i]];
	if (!missing)
		return;
	c->build = build_cache__open(&o);
	if (!c->build) {
		c->build_err = -errno;
		return;
	}
	for (i = 0; i < sizeof(build_lists) / sizeof(build_lists[0]); i++) {
		enum boot_cache_file which = build_lists[i];

		if (c->present[which])
			continue;
		err = build_cache__restore(c->build, which, c->paths[which]);
		if (!err)
			err = check_image(which, c->paths[which]);
		if (!err) {
			c->present[which] = c->restored[which] = true;
			continue;
		}
		/* the first boot of this build: this run's lists will be its copies */
		if (!c->build_err)
			c->build_err = err == -ENOENT ? -ENODATA : err;
	}
}

/* A copy this run made: the build's too (the saving thread, or the run's at its end) */
static void keep_build(struct boot_cache *c, enum boot_cache_file which)
{
	int err;

	if (!c->build)
		return;
	/* the saving thread keeps the lists while the run keeps the BTF's functions */
	pthread_mutex_lock(&c->build_lock);
	/* from the first copy kept on, the error is the keeping's, not the restoring's */
	if (!c->keeping)
		c->build_err = 0;
	c->keeping = true;
	err = build_cache__keep(c->build, which, c->paths[which]);
	if (err)
		c->build_err = err;
	pthread_mutex_unlock(&c->build_lock);
}

struct boot_cache *boot_cache__open(const struct boot_cache_opts *opts)
{
	struct boot_cache *c = calloc(1, sizeof(*c));
	const char *dir;
	int err, i;

	if (!c)
		return errno = ENOMEM, NULL;
	if (OPTS_COPY(&c->opts, opts)) {
		free(c);
		return errno = EINVAL, NULL;
	}
	err = read_key(c);
	dir = c->opts.dir ?: DEFAULT_DIR;
	if (!err && !cache_file__private_dir(dir))
		err = -EACCES;
	if (err) {
		free_mods(c);
		free(c);
		return errno = -err, NULL;
	}
	for (i = 0; i < BOOT_CACHE_FILE_CNT; i++) {
		snprintf(c->paths[i], sizeof(c->paths[i]), "%s/%s-%016" PRIx64 ".%s", dir,
			 c->boot_id, (uint64_t)c->modules_hash, suffixes[i]);
		c->present[i] = cache_file__private(c->paths[i]);
	}
	/*
	 * Another retsnoop's image (an upgrade that changed its layout) or a damaged one is
	 * not there: this run reads the kernel's file and saves its own over it
	 */
	for (i = 0; i < BOOT_CACHE_FILE_CNT; i++)
		if (c->present[i] && check_image(i, c->paths[i]))
			c->present[i] = false;
	pthread_mutex_init(&c->build_lock, NULL);
	if (!c->opts.features_only)
		restore_build(c);
	return c;
}

const char *boot_cache__path(const struct boot_cache *c, enum boot_cache_file which)
{
	if (!c || which < 0 || which >= BOOT_CACHE_FILE_CNT || !c->present[which])
		return NULL;
	return c->paths[which];
}

const char *boot_cache__restored(const struct boot_cache *c, enum boot_cache_file which)
{
	if (!c || which < 0 || which >= BOOT_CACHE_FILE_CNT || !c->restored[which])
		return NULL;
	return build_cache__path(c->build, which);
}

int boot_cache__build_err(const struct boot_cache *c)
{
	int err;

	if (!c)
		return -EINVAL;
	pthread_mutex_lock((pthread_mutex_t *)&c->build_lock);
	err = c->build_err;
	pthread_mutex_unlock((pthread_mutex_t *)&c->build_lock);
	return err;
}

static bool stopped(const struct boot_cache *c)
{
	return c->opts.stop && *c->opts.stop;
}

typedef int (*write_fn)(const struct boot_cache *c, FILE *f, const void *ctx);

static int write_ksyms(const struct boot_cache *c, FILE *f, const void *ctx)
{
	(void)ctx;
	return stopped(c) ? -EINTR : ksyms__write_image(c->ks, f);
}

static int write_ftrace_funcs(const struct boot_cache *c, FILE *f, const void *ctx)
{
	(void)ctx;
	return stopped(c) ? -EINTR : ftrace_funcs__write_image(c->ff, f);
}

static int write_bytes(const struct boot_cache *c, FILE *f, const void *ctx)
{
	const struct iovec *v = ctx;

	(void)c;
	return fwrite(v->iov_base, 1, v->iov_len, f) == v->iov_len ? 0 : -EIO;
}

struct save_ctx {
	const struct boot_cache *c;
	write_fn write;
	const void *ctx;
};

static int save_write(FILE *f, const void *ctx)
{
	const struct save_ctx *s = ctx;

	return s->write(s->c, f, s->ctx);
}

/* Write one copy beside its final name, then rename: a reader sees all of it or none. */
static int save_one(struct boot_cache *c, enum boot_cache_file which, write_fn write,
		    const void *ctx)
{
	struct save_ctx s = { .c = c, .write = write, .ctx = ctx };

	return cache_file__replace(c->paths[which], save_write, &s);
}

/* A suffix of the copies' names, or of a copy being written */
static bool ours(const char *suffix)
{
	int i;

	for (i = 0; i < BOOT_CACHE_FILE_CNT; i++)
		if (!strcmp(suffix, suffixes[i]))
			return true;
	return !strcmp(suffix, "tmp");
}

/* Copies named after another key: another boot's (if /run outlived it) or module set's */
static void remove_others(const struct boot_cache *c)
{
	const char *dir = c->opts.dir ?: DEFAULT_DIR;
	char prefix[64];
	struct dirent *e;
	DIR *d;

	snprintf(prefix, sizeof(prefix), "%s-%016" PRIx64 ".", c->boot_id,
		 (uint64_t)c->modules_hash);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *dot = strrchr(e->d_name, '.');

		if (!dot || !strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		if (ours(dot + 1))
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

static void *save_thread(void *arg)
{
	struct boot_cache *c = arg;
	struct sched_param idle = {};
	__u64 now;
	int err;

	/* the run's own work first where CPUs are short: this only helps the next run */
	pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);

	/* a module came or went while the lists were read: they may hold either state */
	err = hash_modules(c, &now, false);
	if (!err && now != c->modules_hash)
		err = -EAGAIN;
	/* (boot_cache__save() left out what the copies have) */
	if (!err && c->ks) {
		err = save_one(c, BOOT_CACHE_KALLSYMS, write_ksyms, NULL);
		if (!err && c->opts.ksyms_saved)
			c->opts.ksyms_saved(c->opts.ctx);
		if (!err)
			keep_build(c, BOOT_CACHE_KALLSYMS);
	}
	if (!err && c->ff) {
		err = save_one(c, BOOT_CACHE_FTRACE_FUNCS, write_ftrace_funcs, NULL);
		if (!err)
			keep_build(c, BOOT_CACHE_FTRACE_FUNCS);
	}
	if (!err)
		remove_others(c);
	c->save_err = err;
	return NULL;
}

int boot_cache__save(struct boot_cache *c, const struct ksyms *ks, const struct ftrace_funcs *ff)
{
	int err;

	if (!c || c->saving)
		return -EINVAL;
	if (ks && ksyms__addrs_hidden(ks))
		ks = NULL;
	c->ks = c->present[BOOT_CACHE_KALLSYMS] ? NULL : ks;
	c->ff = c->present[BOOT_CACHE_FTRACE_FUNCS] ? NULL : ff;
	if (!c->ks && !c->ff) {
		c->save_err = 0;
		return 0;
	}
	c->save_err = -EINPROGRESS;
	err = quiet_thread__start(&c->saver, save_thread, c);
	if (err) {
		c->save_err = -err;
		return -err;
	}
	c->saving = true;
	return 0;
}

ssize_t boot_cache__read(const struct boot_cache *c, enum boot_cache_file which, char *buf,
			size_t sz)
{
	ssize_t n;

	if (!c || which < 0 || which >= BOOT_CACHE_FILE_CNT || sz < 2)
		return -EINVAL;
	if (!c->present[which])
		return -ENOENT;
	n = cache_file__read_small(c->paths[which], buf, sz);
	if (n >= 0 && (size_t)n == sz - 1)
		return -EFBIG;	/* maybe more: not the whole copy */
	return n;
}

int boot_cache__write(struct boot_cache *c, enum boot_cache_file which, const void *data,
		      size_t len)
{
	struct iovec v = { .iov_base = (void *)data, .iov_len = len };
	int err;

	if (!c || which < 0 || which >= BOOT_CACHE_FILE_CNT || !len)
		return -EINVAL;
	if (which == BOOT_CACHE_KALLSYMS || which == BOOT_CACHE_FTRACE_FUNCS)
		return -EINVAL;	/* the lists: boot_cache__save() */
	err = save_one(c, which, write_bytes, &v);
	if (!err)
		c->present[which] = true;
	if (!err && which == BOOT_CACHE_BTF_FUNCS)
		keep_build(c, which);
	return err;
}

int boot_cache__wait(struct boot_cache *c)
{
	if (!c)
		return -EINVAL;
	if (c->saving) {
		pthread_join(c->saver, NULL);
		c->saving = false;
	}
	return c->save_err;
}

void boot_cache__free(struct boot_cache *c)
{
	if (!c)
		return;
	boot_cache__wait(c);
	build_cache__free(c->build);
	pthread_mutex_destroy(&c->build_lock);
	free_mods(c);
	free(c);
}
