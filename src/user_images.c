// SPDX-License-Identifier: BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "opts.h"
#include "user_images.h"

#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#define NATIVE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#define NATIVE_MACHINE EM_AARCH64
#else
#define MULTIARCH "unknown"
#define NATIVE_MACHINE EM_NONE
#endif
#define NATIVE_CLASS (sizeof(long) == 8 ? ELFCLASS64 : ELFCLASS32)

/* Where the loader looks when ld.so.conf says nothing more (ld.so(8)'s defaults). */
static const char *const default_dirs[] = {
	"/lib/" MULTIARCH, "/usr/lib/" MULTIARCH, "/lib64", "/usr/lib64", "/lib", "/usr/lib",
};

/* Real paths found so far, in order, each once. */
struct path_set {
	char **v;
	size_t cnt, cap;
};

struct resolver {
	const struct glob_spec *spec;
	struct user_images_opts o;
	/* what the loader would accept: the traced binary's ELF class and machine */
	unsigned char elf_class;
	unsigned short elf_machine;
	struct path_set found;
	struct path_set dirs;		/* directories already searched */
	struct path_set ld_dirs;	/* /etc/ld.so.conf's directories, in order */
	bool ld_dirs_read;
	struct path_set needed;		/* DT_NEEDED names already looked up */
};

/* What the loader reads from an object's dynamic section. */
struct dyn_info {
	struct path_set needed;		/* DT_NEEDED, in order */
	char *runpath, *rpath;		/* NULL: none */
	char origin[PATH_MAX];		/* $ORIGIN: the object's real directory */
};

static int set_add(struct path_set *s, const char *path)
{
	size_t i;

	for (i = 0; i < s->cnt; i++)
		if (strcmp(s->v[i], path) == 0)
			return 0;
	if (s->cnt == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		char **v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->cnt] = strdup(path);
	if (!s->v[s->cnt])
		return -ENOMEM;
	s->cnt++;
	return 1;
}

static void set_free(struct path_set *s)
{
	size_t i;

	for (i = 0; i < s->cnt; i++)
		free(s->v[i]);
	free(s->v);
}

/* An ELF file's class and machine from its header; false if it is no ELF file. */
static bool elf_class_machine(const char *path, unsigned char *cls, unsigned short *machine)
{
	unsigned char hdr[EI_NIDENT + 4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = pread(fd, hdr, sizeof(hdr), 0);
	close(fd);
	if (n != (ssize_t)sizeof(hdr) || memcmp(hdr, ELFMAG, SELFMAG) != 0)
		return false;
	*cls = hdr[EI_CLASS];
	/* e_machine follows e_type; both in the file's byte order */
	if (hdr[EI_DATA] == ELFDATA2MSB)
		*machine = hdr[EI_NIDENT + 2] << 8 | hdr[EI_NIDENT + 3];
	else
		*machine = hdr[EI_NIDENT + 3] << 8 | hdr[EI_NIDENT + 2];
	return true;
}

/*
 * A regular file (following symlinks) that matches the library glob: keep its real path.
 * From the loader's directories only what the loader would load into the traced program:
 * /usr/lib32's libc.so.6 matches "libc.so.6" by name but is no library of a 64-bit one.
 */
static int consider(struct resolver *r, const char *path, bool check_kind)
{
	unsigned short machine;
	char real[PATH_MAX];
	unsigned char cls;
	struct stat st;

	if (!glob_spec__match_image(r->spec, path))
		return 0;
	if (stat(path, &st) || !S_ISREG(st.st_mode) || !realpath(path, real))
		return 0;
	if (check_kind && (!elf_class_machine(real, &cls, &machine) || cls != r->elf_class ||
			   machine != r->elf_machine))
		return 0;
	return set_add(&r->found, real) < 0 ? -ENOMEM : 0;
}

static int from_maps(struct resolver *r)
{
	char path[64], *line = NULL;
	size_t line_sz = 0;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", r->o.pid);
	f = fopen(path, "re");
	if (!f)
		return 0;	/* gone already: the loader's paths still apply */
	while (!err && getline(&line, &line_sz, f) > 0) {
		char *p = strchr(line, '/');

		if (!p)
			continue;
		p[strcspn(p, "\n")] = '\0';
		err = consider(r, p, false);	/* mapped: loaded already */
	}
	free(line);
	fclose(f);
	return err;
}

static int search_dir(struct resolver *r, const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int err = 0, n;

	n = snprintf(path, sizeof(path), "%s%s", r->o.root ?: "", dir);
	if (n < 0 || (size_t)n >= sizeof(path))
		return 0;
	if (set_add(&r->dirs, path) <= 0)
		return 0;	/* searched already, or no memory to remember it */
	d = opendir(path);
	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		char file[PATH_MAX];

		if (!glob__match(r->spec->image, de->d_name))
			continue;
		n = snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		if (n > 0 && (size_t)n < sizeof(file))
			err = consider(r, file, true);
	}
	closedir(d);
	return err;
}

/* @path's dynamic section into @d (zeroed first); 0, or -ENOMEM. No dynamic section: empty. */
static int read_dynamic(const char *path, struct dyn_info *d)
{
	Elf_Scn *scn = NULL;
	char *slash;
	Elf *elf = NULL;
	int fd, err = 0;

	memset(d, 0, sizeof(*d));
	if (!realpath(path, d->origin))
		return 0;
	slash = strrchr(d->origin, '/');
	if (slash)
		*slash = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE)
		goto out;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && !err && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;
		GElf_Dyn dyn;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (i = 0; data && !err && i < data->d_size / sh.sh_entsize; i++) {
			const char *v;
			char **slot;

			if (!gelf_getdyn(data, i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RUNPATH && dyn.d_tag != DT_RPATH)
				continue;
			v = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (!v)
				continue;
			if (dyn.d_tag == DT_NEEDED) {
				err = set_add(&d->needed, v) < 0 ? -ENOMEM : 0;
				continue;
			}
			slot = dyn.d_tag == DT_RUNPATH ? &d->runpath : &d->rpath;
			free(*slot);
			*slot = strdup(v);
			if (!*slot)
				err = -ENOMEM;
		}
	}
out:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return err;
}

static void dyn_free(struct dyn_info *d)
{
	set_free(&d->needed);
	free(d->runpath);
	free(d->rpath);
}

/* One entry of a search path, $ORIGIN (or ${ORIGIN}) at its start expanded. */
static void expand_origin(const char *tok, const char *origin, char *out, size_t out_sz)
{
	if (strncmp(tok, "$ORIGIN", 7) == 0)
		snprintf(out, out_sz, "%s%s", origin, tok + 7);
	else if (strncmp(tok, "${ORIGIN}", 9) == 0)
		snprintf(out, out_sz, "%s%s", origin, tok + 9);
	else
		snprintf(out, out_sz, "%s", tok);
}

/*
 * The RUNPATH, else RPATH, directories of the traced binary, each file matching the glob:
 * libraries it may dlopen() (what it needs was looked up by from_needed() before).
 */
static int from_runpath(struct resolver *r)
{
	struct dyn_info d;
	char *rp, *tok, *save;
	int err;

	err = read_dynamic(r->o.binary, &d);
	rp = d.runpath ?: d.rpath;
	for (tok = rp ? strtok_r(rp, ":", &save) : NULL; tok && !err;
	     tok = strtok_r(NULL, ":", &save)) {
		char dir[PATH_MAX];

		expand_origin(tok, d.origin, dir, sizeof(dir));
		/* the binary's own directories are real paths: no root prefix */
		err = set_add(&r->dirs, dir) < 0 ? -ENOMEM : 0;
		if (!err) {
			DIR *dd = opendir(dir);
			struct dirent *de;

			while (dd && !err && (de = readdir(dd))) {
				char file[PATH_MAX];

				if (!glob__match(r->spec->image, de->d_name))
					continue;
				if (snprintf(file, sizeof(file), "%s/%s", dir, de->d_name) <
				    (int)sizeof(file))
					err = consider(r, file, true);
			}
			if (dd)
				closedir(dd);
		}
	}
	dyn_free(&d);
	return err;
}

static int from_ld_conf(struct resolver *r, const char *conf, int depth);

/*
 * "include /etc/ld.so.conf.d/\*.conf": a glob in the last component only, as Debian's
 * and every distribution's files use it (glob.h here is retsnoop's own).
 */
static int ld_conf_include(struct resolver *r, const char *pat, int depth)
{
	char dir[PATH_MAX], file[PATH_MAX * 2];
	const char *base = strrchr(pat, '/');
	struct dirent *de;
	DIR *d;
	int err = 0;

	if (!base)
		return 0;	/* relative to the conf file's directory: not on Debian */
	snprintf(dir, sizeof(dir), "%s%.*s", r->o.root ?: "", (int)(base - pat), pat);
	d = opendir(dir[0] ? dir : "/");
	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !glob__match(base + 1, de->d_name))
			continue;
		snprintf(file, sizeof(file), "%.*s/%s", (int)(base - pat), pat, de->d_name);
		err = from_ld_conf(r, file, depth + 1);
	}
	closedir(d);
	return err;
}

/*
 * One ld.so.conf file: directories (into r->ld_dirs), and "include GLOB" lines (one level
 * per call). The loader itself reads /etc/ld.so.cache, which ldconfig builds from these
 * files: reading them instead gives the same directories unless the cache is stale, and
 * needs neither glibc's binary cache format (changed in 2.32) nor running ldconfig -p.
 */
static int from_ld_conf(struct resolver *r, const char *conf, int depth)
{
	char path[PATH_MAX], *line = NULL;
	size_t line_sz = 0;
	FILE *f;
	int err = 0;

	if (depth > 4)
		return 0;	/* include loops */
	snprintf(path, sizeof(path), "%s%s", r->o.root ?: "", conf);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!err && getline(&line, &line_sz, f) > 0) {
		char *p = line + strspn(line, " \t");

		p[strcspn(p, "#\n")] = '\0';
		while (*p && strchr(" \t", p[strlen(p) - 1]))
			p[strlen(p) - 1] = '\0';
		if (strncmp(p, "include", 7) == 0 && (p[7] == ' ' || p[7] == '\t')) {
			p += 8 + strspn(p + 8, " \t");
			err = ld_conf_include(r, p, depth);
		} else if (p[0] == '/') {
			err = set_add(&r->ld_dirs, p) < 0 ? -ENOMEM : 0;
		}
	}
	free(line);
	fclose(f);
	return err;
}

/* The loader's directories after the object's own paths: ld.so.conf's, then the defaults. */
static int read_ld_dirs(struct resolver *r)
{
	size_t i;
	int err;

	if (r->ld_dirs_read)
		return 0;
	r->ld_dirs_read = true;
	err = from_ld_conf(r, "/etc/ld.so.conf", 0);
	for (i = 0; !err && i < sizeof(default_dirs) / sizeof(default_dirs[0]); i++)
		err = set_add(&r->ld_dirs, default_dirs[i]) < 0 ? -ENOMEM : 0;
	return err;
}

/* @dir/@name if it is a library the loader would take for the traced program: @real. */
static bool try_dir(struct resolver *r, const char *dir, const char *name, bool rooted,
		    char *real)
{
	unsigned short machine;
	char path[PATH_MAX];
	unsigned char cls;
	struct stat st;
	int n;

	n = snprintf(path, sizeof(path), "%s%s/%s", rooted ? r->o.root ?: "" : "", dir, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return false;
	return !stat(path, &st) && S_ISREG(st.st_mode) && realpath(path, real) &&
	       elf_class_machine(real, &cls, &machine) && cls == r->elf_class &&
	       machine == r->elf_machine;
}

/* Each directory of a "dir:dir" search path, $ORIGIN being @origin. */
static bool try_path(struct resolver *r, const char *list, const char *origin,
		     const char *name, char *real)
{
	char *copy = list ? strdup(list) : NULL, *tok, *save;
	bool hit = false;

	for (tok = copy ? strtok_r(copy, ":", &save) : NULL; tok && !hit;
	     tok = strtok_r(NULL, ":", &save)) {
		char dir[PATH_MAX];

		expand_origin(tok, origin, dir, sizeof(dir));
		hit = try_dir(r, dir, name, false, real);
	}
	free(copy);
	return hit;
}

/*
 * Where ld.so(8) finds DT_NEEDED @name of the object @d, the program being @exe: a name
 * with a '/' is a path; else the object's DT_RPATH (if it has no DT_RUNPATH), then the
 * program's (likewise), LD_LIBRARY_PATH, the object's DT_RUNPATH, the loader's directories.
 */
static int find_needed(struct resolver *r, const struct dyn_info *d, const struct dyn_info *exe,
		       const char *name, char *real)
{
	size_t i;
	int err;

	if (strchr(name, '/')) {
		struct stat st;

		return !stat(name, &st) && S_ISREG(st.st_mode) && realpath(name, real) ? 0 : -ENOENT;
	}
	if (!d->runpath && try_path(r, d->rpath, d->origin, name, real))
		return 0;
	if (d != exe && !exe->runpath && try_path(r, exe->rpath, exe->origin, name, real))
		return 0;
	if (try_path(r, r->o.ld_library_path, d->origin, name, real) ||
	    try_path(r, d->runpath, d->origin, name, real))
		return 0;
	err = read_ld_dirs(r);
	if (err)
		return err;
	for (i = 0; i < r->ld_dirs.cnt; i++)
		if (try_dir(r, r->ld_dirs.v[i], name, true, real))
			return 0;
	return -ENOENT;
}

/*
 * The libraries the loader would map for the program before it runs (`-- CMD` is held
 * before exec: its maps are still ours): the DT_NEEDED of the binary and, depth first, of
 * each library found; a library the glob matches by its DT_NEEDED name or its file's.
 * One the loader would not find is left out, as the loader would fail on it.
 */
static int from_needed(struct resolver *r, const char *path, const struct dyn_info *exe,
		       int depth)
{
	struct dyn_info d;
	size_t i;
	int err;

	if (depth > 32)
		return 0;	/* a chain that deep is a loop of names we did not catch */
	err = read_dynamic(path, &d);
	for (i = 0; !err && i < d.needed.cnt; i++) {
		const char *name = d.needed.v[i];
		char real[PATH_MAX];
		int added;

		added = set_add(&r->needed, name);
		if (added <= 0) {
			err = added;	/* 0: looked up already (the loader maps it once) */
			continue;
		}
		err = find_needed(r, &d, exe ?: &d, name, real);
		if (err == -ENOENT) {
			err = 0;
			continue;
		}
		if (!err && (glob_spec__match_image(r->spec, name) ||
			     glob_spec__match_image(r->spec, real)))
			err = set_add(&r->found, real) < 0 ? -ENOMEM : 0;
		if (!err)
			err = from_needed(r, real, exe ?: &d, depth + 1);
	}
	dyn_free(&d);
	return err;
}

/* LD_LIBRARY_PATH's directories, each file matching the glob (dlopen() looks there too). */
static int from_ld_library_path(struct resolver *r)
{
	char *copy, *tok, *save;
	int err = 0;

	if (!r->o.ld_library_path)
		return 0;
	copy = strdup(r->o.ld_library_path);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ":", &save); tok && !err; tok = strtok_r(NULL, ":", &save))
		if (tok[0] == '/')
			err = search_dir(r, tok);
	free(copy);
	return err;
}

int user_images__resolve(const struct glob_spec *spec, const struct user_images_opts *opts,
			 int (*cb)(const char *path, void *ctx), void *ctx)
{
	struct resolver r = { .spec = spec };
	enum user_image_from from;
	char real[PATH_MAX];
	size_t i;
	int err = 0;

	if ((opts && !opts__valid(opts, sizeof(*opts))) || !glob_spec__is_user(spec))
		return -EINVAL;
	if (opts)
		OPTS_COPY(&r.o, opts);
	/* a binary that can't be read leaves the loader of retsnoop's own kind */
	if (!r.o.binary || !elf_class_machine(r.o.binary, &r.elf_class, &r.elf_machine)) {
		r.elf_class = NATIVE_CLASS;
		r.elf_machine = NATIVE_MACHINE;
	}

	if (spec->image_kind == GLOB_IMAGE_PATH) {
		/* a path names one file: the traced program runs what it names */
		if (!realpath(spec->image, real))
			return -errno;
		if (r.o.from)
			*r.o.from = USER_IMAGE_PATH;
		return cb(real, ctx);
	}

	/*
	 * The first source that knows the library wins: a process maps one libssl.so.3 even
	 * where libssl.so.1.1 is installed too, and RUNPATH comes before the loader's paths.
	 */
	if (r.o.pid > 0)
		err = from_maps(&r);
	from = USER_IMAGE_MAPS;
	if (!err && !r.found.cnt && r.o.binary) {
		err = from_needed(&r, r.o.binary, NULL, 0);
		from = USER_IMAGE_NEEDED;
	}
	if (!r.found.cnt)
		from = USER_IMAGE_SEARCH;
	/* not needed by the binary: one it may dlopen(), from the loader's directories */
	if (!err && !r.found.cnt && r.o.binary)
		err = from_runpath(&r);
	if (!err && !r.found.cnt)
		err = from_ld_library_path(&r);
	/* each of the loader's directories: a library may be in more than one */
	if (!err && !r.found.cnt) {
		err = read_ld_dirs(&r);
		for (i = 0; !err && i < r.ld_dirs.cnt; i++)
			err = search_dir(&r, r.ld_dirs.v[i]);
	}
	if (!err && r.found.cnt == 0)
		err = -ENOENT;
	if (!err && r.o.from)
		*r.o.from = from;
	for (i = 0; !err && i < r.found.cnt; i++)
		err = cb(r.found.v[i], ctx);
	set_free(&r.found);
	set_free(&r.dirs);
	set_free(&r.ld_dirs);
	set_free(&r.needed);
	return err;
}
