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
#include "file_buf.h"
#include "ftrace_funcs.h"
#include "ksyms.h"
#include "opts.h"
#include "quiet_thread.h"

#define DEFAULT_DIR "/run/retsnoop"

static const char *const suffixes[BOOT_CACHE_FILE_CNT] = {
	[BOOT_CACHE_KALLSYMS] = "ksyms",
	[BOOT_CACHE_FTRACE_FUNCS] = "ftrace",
	[BOOT_CACHE_FEATURES] = "features",
	[BOOT_CACHE_BTF_FUNCS] = "btf-funcs",
};

struct boot_cache {
	struct boot_cache_opts opts;
	char boot_id[40];
	__u64 modules_hash;
	char paths[BOOT_CACHE_FILE_CNT][PATH_MAX];
	bool present[BOOT_CACHE_FILE_CNT];
	/* the save */
	pthread_t saver;
	bool saving;
	int save_err;
	const struct ksyms *ks;
	const struct ftrace_funcs *ff;
};

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

/*
 * A file of a few bytes (a build-ID note, the boot id) into @buf, NUL-terminated; its
 * length. Not file_buf__read(): its megabyte buffer, an mmap() and munmap() per file,
 * would be paid per module at every start.
 */
static ssize_t read_small_at(const char *path, char *buf, size_t sz)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, sz - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		n = -errno;
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

static ssize_t read_small(const struct boot_cache *c, const char *rel, char *buf, size_t sz)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", c->opts.root ?: "", rel);
	return read_small_at(path, buf, sz);
}

/*
 * One module line of /proc/modules: "name size refcnt deps state address [taint]". The
 * reference count and the users change while the module's code stays: they are left out.
 * Its build ID (sysfs notes) tells a rebuilt module reloaded at the same place.
 */
static int hash_module(struct boot_cache *c, char *line, __u64 *h)
{
	char *f[6], *save = NULL, path[PATH_MAX], note[256];
	ssize_t note_len;
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
	return 0;
}

static int hash_modules(struct boot_cache *c, __u64 *out)
{
	__u64 h = 0xcbf29ce484222325ULL;
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
			err = hash_module(c, line, &h);
	}
	free(buf);
	*out = h;
	return err;
}

/* Ours alone: owned by us, not a symlink, nobody else may write (or, for kallsyms, read) */
static bool private_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return false;
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return false;
	return (st.st_mode & 077) == 0;
}

static bool private_file(const char *path)
{
	struct stat st;

	if (lstat(path, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return false;
	return (st.st_mode & 077) == 0 && st.st_size > 0;
}

static int read_key(struct boot_cache *c)
{
	char buf[64];
	ssize_t n;
	size_t len;

	n = read_small(c, "/proc/sys/kernel/kptr_restrict", buf, sizeof(buf));
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
	return hash_modules(c, &c->modules_hash);
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
	if (err) {
		free(c);
		return errno = -err, NULL;
	}
	dir = c->opts.dir ?: DEFAULT_DIR;
	if (!private_dir(dir)) {
		free(c);
		return errno = EACCES, NULL;
	}
	for (i = 0; i < BOOT_CACHE_FILE_CNT; i++) {
		snprintf(c->paths[i], sizeof(c->paths[i]), "%s/%s-%016" PRIx64 ".%s", dir,
			 c->boot_id, (uint64_t)c->modules_hash, suffixes[i]);
		c->present[i] = private_file(c->paths[i]);
	}
	/*
	 * Another retsnoop's image (an upgrade that changed its layout) or a damaged one is
	 * not there: this run reads the kernel's file and saves its own over it
	 */
	if (c->present[BOOT_CACHE_KALLSYMS] && ksyms__check_image(c->paths[BOOT_CACHE_KALLSYMS]))
		c->present[BOOT_CACHE_KALLSYMS] = false;
	return c;
}

const char *boot_cache__path(const struct boot_cache *c, enum boot_cache_file which)
{
	if (!c || which < 0 || which >= BOOT_CACHE_FILE_CNT || !c->present[which])
		return NULL;
	return c->paths[which];
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
	size_t i, n = ftrace_funcs__cnt(c->ff);

	(void)ctx;
	for (i = 0; i < n; i++) {
		const struct ftrace_func *fn = ftrace_funcs__get(c->ff, i);

		if ((i & 4095) == 0 && stopped(c))
			return -EINTR;
		fputs(fn->name, f);
		if (fn->module) {
			fputs(" [", f);
			fputs(fn->module, f);
			putc(']', f);
		}
		putc('\n', f);
	}
	return 0;
}

static int write_bytes(const struct boot_cache *c, FILE *f, const void *ctx)
{
	const struct iovec *v = ctx;

	(void)c;
	return fwrite(v->iov_base, 1, v->iov_len, f) == v->iov_len ? 0 : -EIO;
}

/* Write one copy beside its final name, then rename: a reader sees all of it or none. */
static int save_one(struct boot_cache *c, enum boot_cache_file which, write_fn write,
		    const void *ctx)
{
	char tmp[PATH_MAX + 32];
	FILE *f;
	int fd, err;

	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", c->paths[which], (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	err = write(c, f, ctx);
	if (fflush(f) && !err)
		err = -errno;
	if (ferror(f) && !err)
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, c->paths[which]))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
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
	err = hash_modules(c, &now);
	if (!err && now != c->modules_hash)
		err = -EAGAIN;
	/* (boot_cache__save() left out what the copies have) */
	if (!err && c->ks) {
		err = save_one(c, BOOT_CACHE_KALLSYMS, write_ksyms, NULL);
		if (!err && c->opts.ksyms_saved)
			c->opts.ksyms_saved(c->opts.ctx);
	}
	if (!err && c->ff)
		err = save_one(c, BOOT_CACHE_FTRACE_FUNCS, write_ftrace_funcs, NULL);
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
	n = read_small_at(c->paths[which], buf, sz);
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
	free(c);
}
