// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "cmd_launch.h"
#include "debug_file.h"
#include "demangle.h"
#include "elf_funcs.h"
#include "opts.h"
#include "records.h"
#include "user_dwarf.h"
#include "user_funcs_int.h"
#include "user_unprobeable.h"
#include "user_images.h"

/* What only discovery's scan of @im needs. */
static void end_scan(struct user_image *im)
{
	if (im->code_fd >= 0)
		close(im->code_fd);
	im->code_fd = -1;
	free(im->skip_offs);
	im->skip_offs = NULL;
	im->skip_cnt = 0;
}

/* Was @off's function found never probed (and said why) already? */
static bool skip_known(const struct user_image *im, __u64 off)
{
	size_t i;

	for (i = 0; i < im->skip_cnt; i++)
		if (im->skip_offs[i] == off)
			return true;
	return false;
}

/* Remember @off's function as never probed: 0 or -ENOMEM. */
static int skip_note(struct user_image *im, __u64 off)
{
	__u64 *v = realloc(im->skip_offs, (im->skip_cnt + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	im->skip_offs = v;
	v[im->skip_cnt++] = off;
	return 0;
}

static void free_demangled(struct user_image *im)
{
	size_t i, n;

	if (!im->demangled)
		return;
	n = elf_funcs__name_cnt(im->elf);
	for (i = 0; i < n; i++)
		free(im->demangled[i]);
	free(im->demangled);
	im->demangled = NULL;
}

/*
 * Every mangled name of @im demangled, once: globs match the source's names as well as the
 * symbols ("Server::handle*" and "_ZN6Server*" alike). A name the demangler can't read keeps
 * only its symbol. 0 or -ENOMEM.
 */
static int demangle_image(struct user_image *im)
{
	size_t i, n = elf_funcs__name_cnt(im->elf);

	if (im->demangled || !n)
		return 0;
	im->demangled = calloc(n, sizeof(*im->demangled));
	if (!im->demangled)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *sym = elf_funcs__name(im->elf, i)->name;

		if (!demangle__is_mangled(sym))
			continue;
		im->demangled[i] = demangle__name(sym);
		if (!im->demangled[i] && errno == ENOMEM)
			return -ENOMEM;
	}
	return 0;
}

/*
 * A function's name in every view: the source's where the symbol is mangled. @known: its
 * demangled form where the caller has it (the image's cache), NULL to demangle it here.
 */
static int display_name(struct user_funcs *uf, const char *sym, const char *known,
			const char **out)
{
	char **v, *dm;

	*out = sym;
	if (!demangle__is_mangled(sym))
		return 0;
	dm = known ? strdup(known) : demangle__name(sym);
	if (!dm)
		return errno == ENOMEM ? -ENOMEM : 0;
	v = realloc(uf->names, (uf->name_cnt + 1) * sizeof(*v));
	if (!v) {
		free(dm);
		return -ENOMEM;
	}
	uf->names = v;
	uf->names[uf->name_cnt++] = dm;
	*out = dm;
	return 0;
}

struct user_funcs *user_funcs__new(const struct user_funcs_opts *opts)
{
	struct user_funcs *uf;

	if (opts && !opts__valid(opts, sizeof(*opts)))
		return errno = EINVAL, NULL;
	uf = calloc(1, sizeof(*uf));
	if (uf && opts)
		OPTS_COPY(&uf->o, opts);
	return uf;
}

void user_funcs__free(struct user_funcs *uf)
{
	size_t i;

	if (!uf)
		return;
	for (i = 0; i < uf->glob_cnt; i++)
		glob_spec__free(&uf->globs[i].spec);
	for (i = 0; i < uf->image_cnt; i++) {
		free_demangled(&uf->images[i]);
		end_scan(&uf->images[i]);
		free(uf->images[i].path);
		free(uf->images[i].dbg_path);
		debug_file_cache__free(&uf->images[i].dbg);
		elf_funcs__free(uf->images[i].elf);
		btf__free(uf->images[i].btf);
	}
	free(uf->globs);
	free(uf->images);
	for (i = 0; i < uf->name_cnt; i++)
		free(uf->names[i]);
	free(uf->names);
	free(uf->funcs);
	free(uf->addrs);
	free(uf);
}

static char *strdup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int user_funcs__add_glob(struct user_funcs *uf, enum func_glob_role role,
			 const struct glob_spec *spec)
{
	struct user_glob *g;

	if (!glob_spec__is_user(spec))
		return -EINVAL;
	g = realloc(uf->globs, (uf->glob_cnt + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	uf->globs = g;
	g = &uf->globs[uf->glob_cnt];
	g->spec = *spec;
	g->role = role;
	g->spec.name = strdup_or_null(spec->name);
	g->spec.mod = NULL;
	g->spec.image = strdup_or_null(spec->image);
	if (!g->spec.name || !g->spec.image) {
		glob_spec__free(&g->spec);
		return -ENOMEM;
	}
	uf->glob_cnt++;
	return 0;
}

size_t user_funcs__glob_cnt(const struct user_funcs *uf)
{
	return uf->glob_cnt;
}

/* The image at real path @path, read once however many globs name it. */
/*
 * A stripped image (Debian's binaries are): its whole symbol table may be in a separate
 * debug file a debug package installed; without one only what .dynsym exports is known.
 */
static void use_debug_symtab(struct user_funcs *uf, struct user_image *im)
{
	__u32 crc = 0;
	const char *link = elf_funcs__debuglink(im->elf, &crc), *dbg;
	int err;

	err = debug_file__cached(&im->dbg, im->path, elf_funcs__build_id(im->elf), link, crc,
				 NULL, &dbg);
	if (err == -ESTALE)
		pr(uf, LOG_WARN, "Note: the debug file of '%s' belongs to another build of it (build ID or CRC differ): not used.\n",
		   im->path);
	if (err)
		return;
	err = elf_funcs__use_debug_symtab(im->elf, dbg);
	if (err) {
		pr(uf, LOG_DEBUG, "debug file %s: no function symbols (%d)\n", dbg, err);
		return;
	}
	im->dbg_path = strdup(dbg);
	pr(uf, LOG_DEBUG, "'%s' is stripped: its functions come from %s\n", im->path, dbg);
}

static int get_image(struct user_funcs *uf, const char *path, struct user_image **out)
{
	struct elf_funcs_opts eo = { .sz = sizeof(eo), .print = uf->o.print };
	struct user_image *im;
	size_t i;

	for (i = 0; i < uf->image_cnt; i++) {
		if (strcmp(uf->images[i].path, path) == 0) {
			*out = &uf->images[i];
			return 0;
		}
	}
	im = realloc(uf->images, (uf->image_cnt + 1) * sizeof(*im));
	if (!im)
		return -ENOMEM;
	uf->images = im;
	im = &uf->images[uf->image_cnt];
	memset(im, 0, sizeof(*im));
	im->code_fd = -1;
	im->path = strdup(path);
	if (!im->path)
		return -ENOMEM;
	im->elf = elf_funcs__open(path, &eo);
	if (im->elf && elf_funcs__has_eh_table(im->elf))
		pr(uf, LOG_WARN, "Note: '%s' handles C++ exceptions: one that leaves a traced function aborts the program (the unwinder can't pass a return probe); trace where exceptions are caught and below where they are thrown, not the frames between.\n",
		   path);
	if (!im->elf) {
		int err = -errno;

		free(im->path);
		if (err == -EBADF && cmd_launch__is_script(path))
			pr(uf, LOG_ERROR, "'%s' is a script, not an ELF executable or shared library: it has no functions to trace; name the program it runs, or its library, by path.\n",
			   path);
		else if (err == -EBADF)
			pr(uf, LOG_ERROR, "'%s' is not an ELF executable or shared library that retsnoop can read.\n",
			   path);
		else
			pr(uf, LOG_ERROR, "Can't read '%s': %s.\n", path, strerror(-err));
		return err;
	}
	if (!elf_funcs__has_symtab(im->elf))
		use_debug_symtab(uf, im);
	uf->image_cnt++;
	*out = im;
	return 0;
}

/* The rule's result typing; without a rule and a type: the guess (see FUNC_ERR_GUESS). */
static __u32 rule_flags(enum glob_err_rule rule)
{
	switch (rule) {
	case GLOB_ERR_ERRNO_POS: return FUNC_ERR_NONZERO;
	case GLOB_ERR_LE0: return FUNC_ERR_LE0;
	case GLOB_ERR_FALSE: return FUNC_ERR_ZERO;
	/* never an error; the guess still renders an int -1 as -1 */
	case GLOB_ERR_NEVER: return FUNC_CANT_FAIL | FUNC_ERR_GUESS;
	default: return FUNC_ERR_GUESS;
	}
}

static struct func *find_func(struct user_funcs *uf, const char *image, __u64 off)
{
	size_t i;

	for (i = 0; i < uf->func_cnt; i++)
		if (uf->funcs[i].image_off == off && strcmp(uf->funcs[i].image, image) == 0)
			return &uf->funcs[i];
	return NULL;
}

/*
 * Why @ef's first instruction breaks under a uprobe, or why the kernel will refuse one
 * there (unless o.kernel_judges_code), or NULL (user_unprobeable.h).
 */
static const char *code_why(struct user_funcs *uf, struct user_image *im,
			    const struct elf_func *ef)
{
	unsigned char code[USER_UNPROBEABLE_CODE_LEN];
	const char *why;
	ssize_t n;

	if (im->code_fd < 0)
		im->code_fd = open(im->path, O_RDONLY | O_CLOEXEC);
	n = im->code_fd < 0 ? -1 : pread(im->code_fd, code, sizeof(code), ef->offset);
	if (n <= 0)
		return NULL;	/* unreadable here: the attach will say so, not this */
	if (ef->size && (size_t)n > ef->size)
		n = ef->size;
	why = user_unprobeable__code_why(code, n);
	if (!why && !uf->o.kernel_judges_code)
		why = user_unprobeable__code_refused(code, n);
	return why;
}

/*
 * @dm: @ef's name demangled where the caller has it, else NULL. 0: added (or there
 * already), 1: never probed (said why), negative errno.
 */
static int add_func(struct user_funcs *uf, struct user_image *im, const struct elf_func *ef,
		    const struct user_glob *g, const char *dm)
{
	const char *why;
	bool known, named;
	struct func *f;
	int err;

	/*
	 * Judged once per function (aliases, several globs): said once, its code read once;
	 * again only for a glob that names it, which warns
	 */
	known = skip_known(im, ef->offset);
	named = !strpbrk(g->spec.name, "*?[");
	if (known && !named)
		return 1;
	f = known ? NULL : find_func(uf, im->path, ef->offset);
	if (!f) {
		/*
		 * exec() jumps to the entry point with argc where a return address would be:
		 * a return probe there overwrites it (make then saw other arguments).
		 */
		if (ef->addr && ef->addr == elf_funcs__entry_addr(im->elf))
			why = "the program's entry point is jumped to, not called, and a return probe would overwrite its argc";
		else
			why = user_unprobeable__why(ef->name) ?: code_why(uf, im, ef);
		if (why) {
			err = known ? 0 : skip_note(im, ef->offset);
			if (err)
				return err;
			/* loud only when asked for by name: a '*' glob loses nothing it wanted */
			pr(uf, named ? LOG_WARN : LOG_INFO,
			   "Skipping user function '%s' of %s: %s.\n", ef->name, im->path, why);
			return 1;
		}
		if (uf->func_cnt == uf->func_cap) {
			size_t cap = uf->func_cap ? uf->func_cap * 2 : 64;
			struct func *v = realloc(uf->funcs, cap * sizeof(*v));
			__u64 *a;

			if (!v)
				return -ENOMEM;
			uf->funcs = v;
			a = realloc(uf->addrs, cap * sizeof(*a));
			if (!a)
				return -ENOMEM;
			uf->addrs = a;
			uf->func_cap = cap;
		}
		uf->addrs[uf->func_cnt] = ef->addr;
		f = &uf->funcs[uf->func_cnt];
		memset(f, 0, sizeof(*f));
		err = display_name(uf, ef->name, dm, &f->name);
		if (err)
			return err;
		uf->func_cnt++;
		f->image = im->path;
		f->image_off = ef->offset;
		f->size = ef->size;
		f->flags = FUNC_USER | rule_flags(g->spec.err_rule);
	} else if (g->spec.err_rule != GLOB_ERR_DEFAULT) {
		/* a glob's explicit rule wins over another's default */
		f->flags = (f->flags & (FUNC_USER | FUNC_IS_ENTRY)) | rule_flags(g->spec.err_rule);
	}
	if (g->role == FUNC_GLOB_ENTRY)
		f->flags |= FUNC_IS_ENTRY;
	return 0;
}

struct resolve_ctx {
	struct user_funcs *uf;
	const struct user_glob *g;
	size_t matched;
	size_t denied;		/* matched, but a deny glob took them out */
	size_t skipped;		/* matched, but never probed (add_func() says why) */
	size_t images;		/* files the glob's image named */
	const char *first_image;	/* the first of them (the image's own copy) */
	bool said;		/* on_image() said why a path's image had no match */
};

/*
 * A glob that matched nothing, @fmt saying why after its text: an entry glob fails the run,
 * as for kernel functions; an allow glob only loses what it would have added, named at -v
 * and counted in one warning however many (user_funcs__run()), as for kernel functions,
 * unless @conflict: a -d glob took out its every match, which the user asked for both ways.
 */
__attribute__((format(printf, 5, 6)))
static int glob_unmatched(struct user_funcs *uf, const struct user_glob *g, const char *glob,
			  bool conflict, const char *fmt, ...)
{
	char why[PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (g->role == FUNC_GLOB_ENTRY || conflict) {
		pr(uf, LOG_ERROR, "'%s'%s\n", glob, why);
		return -ENOENT;
	}
	uf->idle_allow_cnt++;
	pr(uf, LOG_INFO, "WARNING: allow glob '%s'%s\n", glob, why);
	return 0;
}

/*
 * A deny glob matches symbol @sym of @image, or its demangled name: @dm where the caller
 * has it (the image's cache), else demangled here only if a deny glob needs it.
 */
static bool denied(const struct user_funcs *uf, const char *image, const char *sym,
		   const char *dm)
{
	char *own = NULL;
	bool hit = false;
	size_t i;

	for (i = 0; i < uf->glob_cnt && !hit; i++) {
		const struct user_glob *g = &uf->globs[i];

		if (g->role != FUNC_GLOB_DENY || g->spec.kind != GLOB_NAME ||
		    !glob_spec__match_image(&g->spec, image))
			continue;
		if (glob__match(g->spec.name, sym))
			hit = true;
		else if (dm || (demangle__is_mangled(sym) && (dm = own = demangle__name(sym))))
			hit = glob__match(g->spec.name, dm);
	}
	free(own);
	return hit;
}

static int on_image(const char *path, void *ctx)
{
	struct resolve_ctx *rc = ctx;
	struct user_funcs *uf = rc->uf;
	const struct user_glob *g = rc->g;
	struct user_image *im = NULL;
	size_t i, n;
	int err;

	rc->images++;
	err = get_image(uf, path, &im);
	if (err)
		return err;
	if (!rc->first_image)
		rc->first_image = im->path;
	if (elf_funcs__is_go(im->elf)) {
		pr(uf, LOG_ERROR, "'%s' is a Go binary: return probes would corrupt its goroutine stacks, so retsnoop won't trace its functions.\n",
		   path);
		return -EOPNOTSUPP;
	}
	err = demangle_image(im);
	if (err)
		return err;
	n = elf_funcs__name_cnt(im->elf);
	for (i = 0; i < n; i++) {
		const struct elf_func_name *nm = elf_funcs__name(im->elf, i);
		const struct elf_func *ef = elf_funcs__func(im->elf, nm->func);
		const char *dm = im->demangled ? im->demangled[i] : NULL;

		if (!glob__match(g->spec.name, nm->name) && !(dm && glob__match(g->spec.name, dm)))
			continue;
		/* a denied alias denies the function, whatever name matched */
		if (denied(uf, path, nm->name, dm) ||
		    (ef->name != nm->name && denied(uf, path, ef->name, NULL))) {
			rc->denied++;
			continue;
		}
		err = add_func(uf, im, ef, g, ef->name == nm->name ? dm : NULL);
		if (err < 0)
			return err;
		if (err)
			rc->skipped++;
		else
			rc->matched++;
	}
	if (!rc->matched && rc->skipped)
		return 0;	/* run_glob() says it, once for every image */
	if (!rc->matched && g->spec.image_kind == GLOB_IMAGE_PATH) {
		char buf[512];

		glob_spec__str(&g->spec, buf, sizeof(buf));
		rc->said = true;
		if (rc->denied)
			return glob_unmatched(uf, g, buf, true, " matches %zu name%s of %s and a -d glob denies each: narrow the -d glob or drop this one.",
					      rc->denied, rc->denied == 1 ? "" : "s", path);
		switch (elf_funcs__source(im->elf)) {
		case ELF_FUNCS_SYMTAB:
			return glob_unmatched(uf, g, buf, false, " matches no function of %s (%zu functions in its .symtab).",
					      path, elf_funcs__func_cnt(im->elf));
		case ELF_FUNCS_DEBUG_SYMTAB:
			return glob_unmatched(uf, g, buf, false, " matches no function of %s (%zu functions in the .symtab of its debug file %s).",
					      path, elf_funcs__func_cnt(im->elf), im->dbg_path);
		case ELF_FUNCS_DYNSYM:
			return glob_unmatched(uf, g, buf, false, " matches no function of %s (%zu functions in its .dynsym; it is stripped: only exported functions are known; its debug symbols, e.g. Debian's -dbgsym package, would give all).",
					      path, elf_funcs__func_cnt(im->elf));
		default:
			return glob_unmatched(uf, g, buf, false, " matches no function of %s: it is stripped and exports no functions; install its debug symbols (e.g. Debian's -dbgsym package, found by build ID under /usr/lib/debug/.build-id/) or trace a build with symbols.",
					      path);
		}
	}
	return 0;
}

/*
 * The program whose libraries a library glob means: the traced one, else the first
 * binary another glob names by path ('-e "main [./prog]" -a "f [libfoo.so]"').
 */
static const char *program_binary(const struct user_funcs *uf)
{
	size_t i;

	if (uf->o.binary)
		return uf->o.binary;
	for (i = 0; i < uf->glob_cnt; i++)
		if (uf->globs[i].spec.image_kind == GLOB_IMAGE_PATH &&
		    uf->globs[i].role != FUNC_GLOB_DENY)
			return uf->globs[i].spec.image;
	return NULL;
}

/* A source path glob matches the recorded path or any tail of it after a '/'. */
static bool src_match(const char *glob, const char *file)
{
	const char *p;

	if (glob__match(glob, file))
		return true;
	for (p = strchr(file, '/'); p; p = strchr(p + 1, '/'))
		if (glob__match(glob, p + 1))
			return true;
	return false;
}

struct src_ctx {
	struct resolve_ctx *rc;
	struct user_image *im;
};

static int on_src_func(const struct user_dwarf_func *df, void *ctx)
{
	struct src_ctx *sc = ctx;
	struct resolve_ctx *rc = sc->rc;
	const struct elf_func *ef;
	int err;

	if (!df->file || !src_match(rc->g->spec.name, df->file))
		return 0;
	ef = elf_funcs__find_addr(sc->im->elf, df->addr);
	if (!ef || denied(rc->uf, sc->im->path, ef->name, NULL))
		return 0;	/* no symbol: nothing a glob could name either */
	err = add_func(rc->uf, sc->im, ef, rc->g, NULL);
	if (err < 0)
		return err;
	if (err)
		rc->skipped++;
	else
		rc->matched++;
	return 0;
}

/* ":SRC [IMAGE]": the functions DWARF says are defined in matching source files. */
static int on_image_src(const char *path, void *ctx)
{
	struct resolve_ctx *rc = ctx;
	struct src_ctx sc = { .rc = rc };
	char buf[512];
	int err;

	rc->images++;
	err = get_image(rc->uf, path, &sc.im);
	if (err)
		return err;
	if (elf_funcs__is_go(sc.im->elf)) {
		pr(rc->uf, LOG_ERROR, "'%s' is a Go binary: return probes would corrupt its goroutine stacks, so retsnoop won't trace its functions.\n",
		   path);
		return -EOPNOTSUPP;
	}
	err = user_dwarf__for_each_func(path, sc.im->elf, &sc.im->dbg, on_src_func, &sc, NULL, 0);
	if (err == -ENODATA) {
		pr(rc->uf, LOG_ERROR, "'%s' needs DWARF, which %s lacks (and no debuglink or build-id debug file has); build it with -g or install its debug package.\n",
		   glob_spec__str(&rc->g->spec, buf, sizeof(buf)), path);
		return -ENOENT;
	}
	return err;
}

/*
 * A library glob whose files the program doesn't load when it starts (nor the process has
 * mapped, -p) traces them for a dlopen() that may never come: the run would wait for
 * calls that can't happen, as with Debian's zstd, which has libzstd's code built in. Said
 * once for the globs naming the same library; a script's libraries are said above.
 */
static void note_not_loaded(struct user_funcs *uf, const struct user_glob *g, const char *binary,
			    const char *glob, const struct resolve_ctx *rc)
{
	size_t i;

	for (i = 0; i < uf->glob_cnt && &uf->globs[i] != g; i++)
		if (uf->globs[i].spec.image_kind == GLOB_IMAGE_LIB &&
		    !strcmp(uf->globs[i].spec.image, g->spec.image))
			return;
	if (uf->o.pid > 0) {
		pr(uf, LOG_WARN, "Note: process %d has no library matching '%s' mapped: '%s' traces %s%s, for a dlopen() it may make later.\n",
		   uf->o.pid, g->spec.image, glob, rc->first_image, rc->images > 1 ? " and others" : "");
		return;
	}
	/* a script's libraries were said above (run_glob()): its note, not this one */
	if (uf->script_said)
		return;
	pr(uf, LOG_WARN, "Note: %s doesn't load a library matching '%s' when it starts: '%s' traces %s%s, for a dlopen() it may make; if the program has that code built in, name the program: '%s [%s]'.\n",
	   binary, g->spec.image, glob, rc->first_image, rc->images > 1 ? " and others" : "",
	   g->spec.name, binary);
}

static int run_glob(struct user_funcs *uf, const struct user_glob *g)
{
	struct user_images_opts io = {
		.sz = sizeof(io), .pid = uf->o.pid, .binary = program_binary(uf),
		.print = uf->o.print,
		/* the command inherits ours: its loader searches there first */
		.ld_library_path = getenv("LD_LIBRARY_PATH"),
	};
	enum user_image_from from = USER_IMAGE_PATH;
	struct resolve_ctx rc = { .uf = uf, .g = g };
	char buf[512];
	int err;

	io.from = &from;
	glob_spec__str(&g->spec, buf, sizeof(buf));
	err = user_images__resolve(&g->spec, &io,
				   g->spec.kind == GLOB_SRC_PATH ? on_image_src : on_image, &rc);
	if (err == -ENOENT && !rc.images) {
		if (g->spec.image_kind == GLOB_IMAGE_PATH)
			return glob_unmatched(uf, g, buf, false, ": no such file '%s'.", g->spec.image);
		return glob_unmatched(uf, g, buf, false, ": no library matching '%s' in the traced process's maps, the libraries the program needs, its RUNPATH, LD_LIBRARY_PATH or the loader's directories; name it by path ('[/path/to/lib.so]').",
				      g->spec.image);
	}
	if (err)
		return err;
	/*
	 * A script's libraries are its interpreter's (a pyenv shim is a bash script that runs
	 * another python): the one found is the loader's guess, maybe not what the program
	 * the script runs will load. Said once a run.
	 */
	if (g->spec.image_kind == GLOB_IMAGE_LIB && uf->o.pid <= 0 && uf->o.binary &&
	    rc.first_image && !uf->script_said && cmd_launch__is_script(uf->o.binary)) {
		uf->script_said = true;
		pr(uf, LOG_WARN, "Note: %s is a script, so which libraries its program loads is unknown: '%s' traces %s%s, where the loader would look; if the script runs a program with libraries of its own (a pyenv or nvm shim, a wrapper), name that library by its path.\n",
		   uf->o.binary, buf, rc.first_image, rc.images > 1 ? " and others" : "");
	}
	/* a traced process (-p) or the program that will run: what it doesn't load is said */
	if (from == USER_IMAGE_SEARCH && (uf->o.pid > 0 || io.binary) && rc.first_image)
		note_not_loaded(uf, g, io.binary, buf, &rc);
	/*
	 * An entry glob whose every match is never probed would start no session: the run
	 * would wait for nothing. Other globs only lose what they can't have (said above).
	 */
	if (!rc.matched && rc.skipped) {
		if (g->role != FUNC_GLOB_ENTRY)
			return 0;
		pr(uf, LOG_ERROR, "'%s' matches only functions retsnoop can't probe (said above), so no session could start: name other functions with -e.\n",
		   buf);
		return -ENOENT;
	}
	if (!rc.matched && rc.said)
		return 0;	/* on_image() said why (an allow glob's warning) */
	if (!rc.matched && g->spec.kind == GLOB_SRC_PATH)
		return glob_unmatched(uf, g, buf, false, " matches no function's source file in DWARF.");
	if (!rc.matched && rc.denied)
		return glob_unmatched(uf, g, buf, true, " matches %zu name%s of the libraries named '%s' and a -d glob denies each: narrow the -d glob or drop this one.",
				      rc.denied, rc.denied == 1 ? "" : "s", g->spec.image);
	/* library globs: no file of any matching library had the function */
	if (!rc.matched)
		return glob_unmatched(uf, g, buf, false, " matches no function of the libraries named '%s'.",
				      g->spec.image);
	return 0;
}

int user_funcs__run(struct user_funcs *uf)
{
	size_t i;
	int err;

	for (i = 0; i < uf->glob_cnt; i++) {
		if (uf->globs[i].role == FUNC_GLOB_DENY)
			continue;
		err = run_glob(uf, &uf->globs[i]);
		if (err)
			return err;
	}
	/* the names globs matched are read no more (a large C++ library's: megabytes) */
	for (i = 0; i < uf->image_cnt; i++) {
		free_demangled(&uf->images[i]);
		end_scan(&uf->images[i]);
	}
	/* one line however many, -v named them (glob_unmatched()) */
	if (uf->idle_allow_cnt)
		pr(uf, LOG_WARN, "WARNING: %zu allow glob%s match%s no user-space function (-v names %s).\n",
		   uf->idle_allow_cnt, uf->idle_allow_cnt > 1 ? "s" : "",
		   uf->idle_allow_cnt > 1 ? "" : "es", uf->idle_allow_cnt > 1 ? "them" : "it");
	err = uf__apply_types(uf);
	if (err)
		return err;
	pr(uf, LOG_INFO, "Found %zu user-space functions in %zu images.\n", uf->func_cnt,
	   uf->image_cnt);
	return 0;
}

const struct func *user_funcs__funcs(const struct user_funcs *uf)
{
	return uf->funcs;
}

size_t user_funcs__cnt(const struct user_funcs *uf)
{
	return uf->func_cnt;
}

size_t user_funcs__image_cnt(const struct user_funcs *uf)
{
	return uf->image_cnt;
}
