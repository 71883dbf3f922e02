// SPDX-License-Identifier: BSD-2-Clause
/*
 * The user ELF function reader and library resolution, on the uprobe test program built
 * at test time (tests/uprobe/uprobe.mk, $UPROG_DIR): PIE, non-PIE, shared library,
 * stripped (.dynsym only), aliases, debuglink, a Go marker. File offsets are checked
 * against the loader: the library is dlopen()ed and each function's bytes in memory must
 * be the bytes at the offset the reader computed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "unit.h"
#include "elf_funcs.h"
#include "user_images.h"

static const char *uprog_path(const char *name, char *buf, size_t sz)
{
	const char *d = getenv("UPROG_DIR");

	if (!d)
		return NULL;
	snprintf(buf, sz, "%s/%s", d, name);
	return access(buf, R_OK) == 0 ? buf : NULL;
}

static struct elf_funcs *open_uprog(const char *name)
{
	char buf[PATH_MAX];
	struct elf_funcs *e;

	if (!uprog_path(name, buf, sizeof(buf))) {
		print_message("no %s: run through make test-unit (UPROG_DIR)\n", name);
		skip();
	}
	e = elf_funcs__open(buf, NULL);
	assert_non_null(e);
	return e;
}

/* Every name of the program's own functions resolves, aliases to one function. */
static void check_prog_funcs(struct elf_funcs *e)
{
	const struct elf_func *dw = elf_funcs__find(e, "do_work");
	const struct elf_func *alias = elf_funcs__find(e, "do_work_alias");
	const struct elf_func *oc = elf_funcs__find(e, "open_config");
	size_t i, n = 0;

	assert_non_null(dw);
	assert_non_null(oc);
	assert_non_null(elf_funcs__find(e, "main"));
	assert_non_null(elf_funcs__find(e, "bench_leaf"));
	assert_null(elf_funcs__find(e, "uprog_lib_probe"));	/* the library's, undefined here */
	assert_null(elf_funcs__find(e, "open"));
	/* aliases: one function, named by its global name, found by either */
	assert_ptr_equal(dw, alias);
	assert_true(dw->offset != oc->offset);
	for (i = 0; i < elf_funcs__func_cnt(e); i++)
		n += elf_funcs__func(e, i)->offset == dw->offset;
	assert_int_equal(n, 1);
	assert_true(elf_funcs__name_cnt(e) > elf_funcs__func_cnt(e));
	/* sorted by offset, each once */
	for (i = 1; i < elf_funcs__func_cnt(e); i++)
		assert_true(elf_funcs__func(e, i - 1)->offset < elf_funcs__func(e, i)->offset);
	assert_false(elf_funcs__is_go(e));
}

static void test_pie(void **state)
{
	struct elf_funcs *e = open_uprog("uprog");
	const struct elf_func *dw;

	check_prog_funcs(e);
	assert_true(elf_funcs__is_dyn(e));
	assert_int_equal(elf_funcs__source(e), ELF_FUNCS_SYMTAB);
	dw = elf_funcs__find(e, "do_work");
	/* a PIE is linked at 0: vaddr and file offset agree in their page offset */
	assert_int_equal(dw->addr & 0xfff, dw->offset & 0xfff);
	assert_non_null(elf_funcs__build_id(e));
	assert_int_equal(strlen(elf_funcs__build_id(e)), 40);
	assert_null(elf_funcs__debuglink(e, NULL));
	elf_funcs__free(e);
}

static void test_non_pie(void **state)
{
	struct elf_funcs *e = open_uprog("uprog-nopie");
	const struct elf_func *dw;

	check_prog_funcs(e);
	assert_false(elf_funcs__is_dyn(e));
	dw = elf_funcs__find(e, "do_work");
	/* linked at its load address: the address is far above the file offset */
	assert_true(dw->addr > dw->offset);
	assert_int_equal(dw->addr & 0xfff, dw->offset & 0xfff);
	elf_funcs__free(e);
}

static void test_stripped_dynsym(void **state)
{
	struct elf_funcs *full = open_uprog("uprog");
	struct elf_funcs *e = open_uprog("uprog-stripped");

	/* exported with -rdynamic, so .dynsym still names them */
	check_prog_funcs(e);
	assert_int_equal(elf_funcs__source(e), ELF_FUNCS_DYNSYM);
	/* fewer names than .symtab had (no static or crt functions) */
	assert_true(elf_funcs__name_cnt(e) < elf_funcs__name_cnt(full));
	elf_funcs__free(e);
	elf_funcs__free(full);
}

/* The library's offsets are where the loader put its code: compare bytes in memory. */
static void check_lib_offsets(const char *name)
{
	char path[PATH_MAX], code[16];
	const struct elf_func *f, *alias;
	struct elf_funcs *e = open_uprog(name);
	void *h, *sym;
	Dl_info info;
	int fd;

	f = elf_funcs__find(e, "uprog_lib_probe");
	alias = elf_funcs__find(e, "uprog_lib_probe_alias");
	assert_non_null(f);
	assert_ptr_equal(f, alias);
	assert_string_equal(f->name, "uprog_lib_probe");
	assert_true(elf_funcs__is_dyn(e));

	uprog_path(name, path, sizeof(path));
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	sym = dlsym(h, "uprog_lib_probe");
	assert_non_null(sym);
	assert_true(dladdr(sym, &info));
	/* the file's bytes at the computed offset are the function's code in memory */
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, code, sizeof(code), f->offset), sizeof(code));
	close(fd);
	assert_memory_equal(code, sym, sizeof(code));
	/* and the offset is the address's distance from the load base (one-segment layout) */
	assert_true((char *)sym - (char *)info.dli_fbase == (long)f->addr);
	dlclose(h);
	elf_funcs__free(e);
}

static void test_shared_lib(void **state)
{
	check_lib_offsets("libuprog.so");
}

static void test_shared_lib_stripped(void **state)
{
	struct elf_funcs *e = open_uprog("libuprog-stripped.so");

	assert_int_equal(elf_funcs__source(e), ELF_FUNCS_DYNSYM);
	elf_funcs__free(e);
	check_lib_offsets("libuprog-stripped.so");
}

static void test_debuglink_and_go(void **state)
{
	struct elf_funcs *e = open_uprog("uprog-dbglink");
	__u32 crc = 0;

	/* --strip-debug keeps .symtab */
	assert_int_equal(elf_funcs__source(e), ELF_FUNCS_SYMTAB);
	assert_string_equal(elf_funcs__debuglink(e, &crc), "uprog.debug");
	assert_true(crc != 0);
	elf_funcs__free(e);

	e = open_uprog("uprog-fakego");
	assert_true(elf_funcs__is_go(e));
	elf_funcs__free(e);
}

/*
 * The C++ note's model: C++ code's exception tables count; static glibc's in a C program
 * (tables without C++'s personality routine) and a C program without tables don't.
 */
static void test_cxx_eh_tables(void **state)
{
	static const struct { const char *name; bool cxx; } cases[] = {
		{ "uexc", true },		/* C++, dynamic: personality imported */
		{ "uprog-static", false },	/* C, static glibc: tables only */
		{ "uprog", false },		/* C, dynamic: no tables */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct elf_funcs *e = open_uprog(cases[i].name);

		if (elf_funcs__has_eh_table(e) != cases[i].cxx)
			fail_msg("%s: has_eh_table %d, expected %d", cases[i].name,
				 !cases[i].cxx, cases[i].cxx);
		elf_funcs__free(e);
	}
}

/*
 * Stripped as distributions ship it: nothing of its own in .dynsym; the debug file's
 * .symtab gives every function, at the offsets the image's own segments say.
 */
static void test_debug_symtab(void **state)
{
	struct elf_funcs *full = open_uprog("uprog");
	struct elf_funcs *e = open_uprog("uprog-dbgsym");
	char dbg[PATH_MAX];
	size_t i;

	assert_false(elf_funcs__has_symtab(e));
	assert_int_equal(elf_funcs__source(e), ELF_FUNCS_NONE);
	assert_null(elf_funcs__find(e, "do_work"));
	assert_non_null(uprog_path("uprog.debug", dbg, sizeof(dbg)));
	assert_int_equal(elf_funcs__use_debug_symtab(e, dbg), 0);
	assert_int_equal(elf_funcs__source(e), ELF_FUNCS_DEBUG_SYMTAB);
	check_prog_funcs(e);
	assert_int_equal(elf_funcs__func_cnt(e), elf_funcs__func_cnt(full));
	for (i = 0; i < elf_funcs__func_cnt(e); i++) {
		assert_string_equal(elf_funcs__func(e, i)->name, elf_funcs__func(full, i)->name);
		assert_int_equal(elf_funcs__func(e, i)->offset, elf_funcs__func(full, i)->offset);
	}
	/* an image with its own table keeps it */
	assert_int_equal(elf_funcs__use_debug_symtab(full, dbg), -EEXIST);
	/* a file without function symbols leaves the image as it was */
	elf_funcs__free(e);
	e = open_uprog("uprog-dbgsym");
	assert_int_equal(elf_funcs__use_debug_symtab(e, "/dev/null"), -ENODATA);
	assert_int_equal(elf_funcs__source(e), ELF_FUNCS_NONE);
	elf_funcs__free(e);
	elf_funcs__free(full);
}

static void test_bad_files(void **state)
{
	char buf[PATH_MAX], tmp[] = "/tmp/retsnoop-elf-XXXXXX";
	struct elf_funcs *e;
	struct stat st;
	char *img;
	size_t cut;
	int fd;

	assert_null(elf_funcs__open("/nonexistent/retsnoop-prog", NULL));
	assert_int_equal(errno, ENOENT);
	assert_null(elf_funcs__open_mem("not an ELF file at all", 22, NULL));
	assert_int_equal(errno, EBADF);

	/* truncated images: an error or fewer functions, never a crash */
	if (!uprog_path("uprog", buf, sizeof(buf)))
		skip();
	fd = open(buf, O_RDONLY);
	assert_true(fd >= 0 && fstat(fd, &st) == 0);
	img = malloc(st.st_size);
	assert_non_null(img);
	assert_int_equal(read(fd, img, st.st_size), st.st_size);
	close(fd);
	for (cut = 0; cut < (size_t)st.st_size; cut += 997) {
		e = elf_funcs__open_mem(img, cut, NULL);
		elf_funcs__free(e);
	}
	free(img);

	/* a relocatable object is no image to probe */
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "\177ELF", 4), 4);
	close(fd);
	assert_null(elf_funcs__open(tmp, NULL));
	assert_int_equal(errno, EBADF);
	unlink(tmp);
}

struct found {
	char paths[4][PATH_MAX];
	int cnt;
};

static int collect(const char *path, void *ctx)
{
	struct found *f = ctx;

	if (f->cnt < 4)
		snprintf(f->paths[f->cnt], PATH_MAX, "%s", path);
	f->cnt++;
	return 0;
}

static void test_resolve_images(void **state)
{
	enum user_image_from from = -1;
	struct user_images_opts uo = { .sz = sizeof(uo), .from = &from };
	char prog[PATH_MAX], lib[PATH_MAX], real[PATH_MAX], spec[PATH_MAX + 16];
	struct found f = {};
	struct glob_spec s;

	if (!uprog_path("uprog", prog, sizeof(prog)) ||
	    !uprog_path("libuprog.so", lib, sizeof(lib)))
		skip();

	/* a path: that file, by its real path; a missing one is ENOENT */
	assert_int_equal(glob_spec__parse("do_* [/nonexistent/prog]", &s), 0);
	assert_int_equal(user_images__resolve(&s, &uo, collect, &f), -ENOENT);
	assert_int_equal((int)from, -1);	/* nothing found: not set */
	glob_spec__free(&s);
	snprintf(spec, sizeof(spec), "do_* [%s]", prog);
	assert_int_equal(glob_spec__parse(spec, &s), 0);
	assert_int_equal(user_images__resolve(&s, &uo, collect, &f), 0);
	assert_int_equal(from, USER_IMAGE_PATH);
	f.cnt = 0;
	glob_spec__free(&s);

	/* a library by file name: through the program's RUNPATH ($ORIGIN) */
	assert_int_equal(glob_spec__parse("uprog_* [libuprog.so*]", &s), 0);
	uo.binary = prog;
	assert_int_equal(user_images__resolve(&s, &uo, collect, &f), 0);
	assert_int_equal(f.cnt, 1);
	assert_non_null(realpath(lib, real));
	assert_string_equal(f.paths[0], real);
	assert_int_equal(from, USER_IMAGE_NEEDED);
	/* without the binary the loader's paths don't know it */
	uo.binary = NULL;
	f.cnt = 0;
	assert_int_equal(user_images__resolve(&s, &uo, collect, &f), -ENOENT);
	glob_spec__free(&s);

	/* through a running process's maps: ours maps libc */
	assert_int_equal(glob_spec__parse("malloc [libc.so*]", &s), 0);
	uo.pid = getpid();
	f.cnt = 0;
	assert_int_equal(user_images__resolve(&s, &uo, collect, &f), 0);
	assert_int_equal(f.cnt, 1);
	assert_non_null(strstr(f.paths[0], "libc.so"));
	assert_int_equal(from, USER_IMAGE_MAPS);
	glob_spec__free(&s);
}

/*
 * `-- CMD` before exec: a library glob names what the program's loader would map, its
 * DT_NEEDED found as ld.so(8) searches. Each expectation below is what ldd said of the same
 * binaries (uprog: RUNPATH $ORIGIN, uprog-rpath: DT_RPATH $ORIGIN, uprog-norunpath: none).
 */
static void test_resolve_needed(void **state)
{
	char prog[PATH_MAX], rprog[PATH_MAX], nprog[PATH_MAX], lib[PATH_MAX], real[PATH_MAX];
	char alt[] = "/tmp/retsnoop-alt-XXXXXX", altlib[PATH_MAX], ldlp[PATH_MAX * 2];
	static char cmd[PATH_MAX * 4];
	enum user_image_from from = -1;
	struct user_images_opts uo = { .sz = sizeof(uo), .from = &from };
	struct found f = {};
	struct glob_spec s;

	if (!uprog_path("uprog", prog, sizeof(prog)) ||
	    !uprog_path("uprog-rpath", rprog, sizeof(rprog)) ||
	    !uprog_path("uprog-norunpath", nprog, sizeof(nprog)) ||
	    !uprog_path("libuprog.so", lib, sizeof(lib)))
		skip();
	assert_non_null(realpath(lib, real));

	/* needed: libuprog.so, not libuprog-stripped.so beside it in the RUNPATH */
	assert_int_equal(glob_spec__parse("uprog_* [libuprog*.so]", &s), 0);
	uo.binary = prog;
	assert_int_equal(user_images__resolve(&s, &uo, collect, &f), 0);
	assert_int_equal(f.cnt, 1);
	assert_string_equal(f.paths[0], real);

	/* no RUNPATH: not found (a dir scan of the loader's paths neither) ... */
	uo.binary = nprog;
	f.cnt = 0;
	assert_int_equal(user_images__resolve(&s, &uo, collect, &f), -ENOENT);
	/* ... but through LD_LIBRARY_PATH, past a directory that doesn't exist */
	snprintf(ldlp, sizeof(ldlp), "/nonexistent:%s", getenv("UPROG_DIR"));
	uo.ld_library_path = ldlp;
	f.cnt = 0;
	assert_int_equal(user_images__resolve(&s, &uo, collect, &f), 0);
	assert_int_equal(f.cnt, 1);
	assert_string_equal(f.paths[0], real);
	assert_int_equal(from, USER_IMAGE_NEEDED);	/* needed, found through LD_LIBRARY_PATH */

	/* LD_LIBRARY_PATH comes before DT_RUNPATH, after DT_RPATH */
	assert_non_null(mkdtemp(alt));
	snprintf(cmd, sizeof(cmd), "cp %s %s/", lib, alt);
	assert_int_equal(system(cmd), 0);
	snprintf(altlib, sizeof(altlib), "%s/libuprog.so", alt);
	uo.ld_library_path = alt;
	uo.binary = prog;
	f.cnt = 0;
	assert_int_equal(user_images__resolve(&s, &uo, collect, &f), 0);
	assert_int_equal(f.cnt, 1);
	assert_string_equal(f.paths[0], altlib);
	uo.binary = rprog;
	f.cnt = 0;
	assert_int_equal(user_images__resolve(&s, &uo, collect, &f), 0);
	assert_int_equal(f.cnt, 1);
	assert_string_equal(f.paths[0], real);
	glob_spec__free(&s);

	/* the needed library's own needs: libuprog.so's libc, by DT_NEEDED name */
	assert_int_equal(glob_spec__parse("write [libc.so.6]", &s), 0);
	uo.ld_library_path = NULL;
	f.cnt = 0;
	assert_int_equal(user_images__resolve(&s, &uo, collect, &f), 0);
	assert_int_equal(f.cnt, 1);
	assert_non_null(strstr(f.paths[0], "/libc.so.6"));
	glob_spec__free(&s);

	/* not needed, but in the RUNPATH: one the program may dlopen() */
	assert_int_equal(glob_spec__parse("uprog_* [libuprog-stripped.so]", &s), 0);
	uo.binary = prog;
	f.cnt = 0;
	assert_int_equal(user_images__resolve(&s, &uo, collect, &f), 0);
	assert_int_equal(f.cnt, 1);
	assert_non_null(strstr(f.paths[0], "/libuprog-stripped.so"));
	assert_int_equal(from, USER_IMAGE_SEARCH);
	glob_spec__free(&s);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", alt);
	assert_int_equal(system(cmd), 0);
}

/* The loader's paths under a root: ld.so.conf, its "include" glob, the lib dirs. */
static void test_resolve_ld_conf(void **state)
{
	char root[] = "/tmp/retsnoop-root-XXXXXX", path[PATH_MAX], lib[PATH_MAX];
	static char cmd[PATH_MAX * 16];
	struct user_images_opts uo = { .sz = sizeof(uo) };
	struct found f = {};
	struct glob_spec s;

	if (!uprog_path("libuprog.so", lib, sizeof(lib)))
		skip();
	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/etc/ld.so.conf.d %s/opt/a %s/opt/b %s/usr/lib && "
		 "echo 'include /etc/ld.so.conf.d/*.conf' >%s/etc/ld.so.conf && "
		 "echo '/opt/a  # comment' >%s/etc/ld.so.conf.d/a.conf && "
		 "echo '/opt/b' >%s/etc/ld.so.conf.d/b.notconf && "
		 "cp %s %s/opt/a/libzz.so.1 && cp %s %s/opt/b/libzz.so.2 && "
		 "cp %s %s/usr/lib/libzz.so.3 && ln -s libzz.so.1 %s/opt/a/libzz.so && "
		 /* a 32-bit twin (the class byte) and one for another machine: never loaded */
		 "cp %s %s/usr/lib/libzz.so.4 && cp %s %s/usr/lib/libzz.so.5 && "
		 "printf '\\001' | dd of=%s/usr/lib/libzz.so.4 bs=1 seek=4 conv=notrunc 2>/dev/null && "
		 "printf '\\377' | dd of=%s/usr/lib/libzz.so.5 bs=1 seek=18 conv=notrunc 2>/dev/null",
		 root, root, root, root, root, root, root, lib, root, lib, root, lib, root, root,
		 lib, root, lib, root, root, root);
	assert_int_equal(system(cmd), 0);
	uo.root = root;
	assert_int_equal(glob_spec__parse("f [libzz.so*]", &s), 0);
	assert_int_equal(user_images__resolve(&s, &uo, collect, &f), 0);
	/* /opt/a (the symlink is the same file), the default /usr/lib; not /opt/b, nor
	 * the copies of another ELF class or machine */
	assert_int_equal(f.cnt, 2);
	snprintf(path, sizeof(path), "%s/opt/a/libzz.so.1", root);
	assert_string_equal(f.paths[0], path);
	snprintf(path, sizeof(path), "%s/usr/lib/libzz.so.3", root);
	assert_string_equal(f.paths[1], path);
	glob_spec__free(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pie),
		cmocka_unit_test(test_non_pie),
		cmocka_unit_test(test_stripped_dynsym),
		cmocka_unit_test(test_shared_lib),
		cmocka_unit_test(test_shared_lib_stripped),
		cmocka_unit_test(test_debuglink_and_go),
		cmocka_unit_test(test_cxx_eh_tables),
		cmocka_unit_test(test_debug_symtab),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_resolve_images),
		cmocka_unit_test(test_resolve_needed),
		cmocka_unit_test(test_resolve_ld_conf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
