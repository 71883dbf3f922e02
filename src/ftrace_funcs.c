// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include "file_buf.h"
#include "ftrace_funcs.h"
#include "ftrace_funcs_int.h"

#define AFF_NAME "available_filter_functions"
/* ftrace lists functions whose address it could not resolve under this prefix */
#define INVALID_PREFIX "__ftrace_invalid_address___"

static const char *const tracefs_dirs[] = {
	"/sys/kernel/debug/tracing",
	"/sys/kernel/tracing",
};

static int try_path(const char *dir, char *path, size_t path_sz)
{
	snprintf(path, path_sz, "%s/%s", dir, AFF_NAME);
	/* effective ids and capabilities: access() would drop CAP_DAC_READ_SEARCH of a non-root user */
	return faccessat(AT_FDCWD, path, R_OK, AT_EACCESS) ? -errno : 0;
}

int ftrace_funcs__find_path(char *path, size_t path_sz, bool *mounted)
{
	int err = -ENOENT, e;
	size_t i;

	*mounted = false;
	for (i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		e = try_path(tracefs_dirs[i], path, path_sz);
		if (!e)
			return 0;
		/* "exists but not readable" explains more than "not there" */
		if (e != -ENOENT)
			err = e;
	}
	if (err != -ENOENT)
		return err;

	/*
	 * Neither is mounted (common in containers and minimal systems). Mount tracefs where
	 * nobody else sees it: in a mount namespace of our own (private propagation, so the
	 * mount never reaches the host's), gone with the process at the latest. A dry run
	 * changes nothing on the system either.
	 */
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL))
		return -errno;
	*mounted = true;
	return try_path("/sys/kernel/tracing", path, path_sz);
}

int ftrace_funcs__unmount(void)
{
	return umount2("/sys/kernel/tracing", MNT_DETACH) ? -errno : 0;
}

static int parse_lines(struct ftrace_funcs *ff, size_t len)
{
	char *p = ff->buf, *end = ff->buf + len, *nl, *sp, *mod;
	size_t cap = 0;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		*nl = '\0';
		p += strspn(p, " \t");
		if (!*p || strncmp(p, INVALID_PREFIX, sizeof(INVALID_PREFIX) - 1) == 0)
			continue;
		if (ff->cnt == cap) {
			struct ftrace_func *n;

			cap = cap ? cap * 2 : 4096;
			n = realloc(ff->funcs, cap * sizeof(*n));
			if (!n)
				return -ENOMEM;
			ff->funcs = n;
		}
		mod = NULL;
		sp = p + strcspn(p, " \t");
		if (*sp) {
			*sp++ = '\0';
			mod = strchr(sp, '[');
			if (mod) {
				char *rb = strchr(++mod, ']');

				if (rb)
					*rb = '\0';
			}
		}
		ff->funcs[ff->cnt].name = p;
		ff->funcs[ff->cnt].module = mod;
		ff->cnt++;
	}
	return 0;
}

static struct ftrace_funcs *from_buf(char *buf, size_t len)
{
	struct ftrace_funcs *ff;
	int err;

	ff = calloc(1, sizeof(*ff));
	if (!ff) {
		free(buf);
		errno = ENOMEM;
		return NULL;
	}
	ff->buf = buf;
	err = parse_lines(ff, len);
	if (err) {
		ftrace_funcs__free(ff);
		errno = -err;
		return NULL;
	}
	return ff;
}

struct ftrace_funcs *ftrace_funcs__parse(const char *text, size_t len)
{
	char *buf = file_buf__dup(text, len);

	return buf ? from_buf(buf, len) : NULL;
}

struct ftrace_funcs *ftrace_funcs__load(const char *path)
{
	char found[256], *buf = NULL;
	size_t len = 0;
	int err;

	if (!path) {
		struct ftrace_funcs *ff;
		bool mounted;

		err = ftrace_funcs__find_path(found, sizeof(found), &mounted);
		if (!err && mounted) {
			ff = ftrace_funcs__load(found);
			err = ff ? 0 : -errno;
			ftrace_funcs__unmount();
			if (err)
				errno = -err;
			return ff;
		}
		if (err) {
			errno = -err;
			return NULL;
		}
		path = found;
	}
	err = file_buf__read(path, &buf, &len);
	if (err) {
		errno = -err;
		return NULL;
	}
	return from_buf(buf, len);
}

void ftrace_funcs__free(struct ftrace_funcs *ff)
{
	if (!ff)
		return;
	if (ff->map)
		munmap(ff->map, ff->map_len);
	free(ff->funcs);
	free(ff->buf);
	free(ff);
}

size_t ftrace_funcs__cnt(const struct ftrace_funcs *ff)
{
	return ff->cnt;
}

const struct ftrace_func *ftrace_funcs__get(const struct ftrace_funcs *ff, size_t idx)
{
	if (idx >= ff->cnt)
		return NULL;
	return ff->recs ? ftrace_funcs__image_entry(ff, idx) : &ff->funcs[idx];
}
