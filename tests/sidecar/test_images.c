// SPDX-License-Identifier: BSD-2-Clause
/*
 * The symbols object on user space (src/symbolize.c, src/usyms.c) over real ELF files built
 * at test time (tests/sidecar/uprog/build.sh): a PIE and its own shared library, with
 * DWARF, with a .gnu_debuglink debug file, with a debug file found by build ID under an
 * injected debug root, with a debug file of another build, and with nothing. The program
 * runs, its mappings are snapshotted, it exits, and only then are its addresses resolved.
 * Source lines are checked against binutils' addr2line on the unstripped files. Also: the
 * sidecar (the production one embedded in this binary) runs unprivileged under seccomp,
 * survives a corrupt ELF, and its crash leaves frames with their binary and a note.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "unit.h"
#include "elf_vaddr.h"
#include "render.h"
#include "symbolize.h"

#define MAX_MAPS 64
#define USER(pid) ((struct addr_space){ ADDR_SPACE_USER, (pid) })

/* A run of uprog: its pid, the code addresses it printed, its mappings. */
struct run {
	pid_t pid;
	int in;				/* its stdin: closing it makes it exit */
	__u64 do_work, lib_ret, lib_inner_ret;
	struct user_mapping maps[MAX_MAPS];
	char paths[MAX_MAPS][512];
	size_t map_cnt;
};

static void read_maps(struct run *r)
{
	char path[64], line[1024];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", r->pid);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && r->map_cnt < MAX_MAPS) {
		unsigned long long start, end, off;
		char perms[8], file[512] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %511s", &start, &end, perms, &off,
			   file) < 4 || perms[2] != 'x' || file[0] != '/')
			continue;
		snprintf(r->paths[r->map_cnt], sizeof(r->paths[0]), "%s", file);
		r->maps[r->map_cnt] = (struct user_mapping){ start, end, off, r->paths[r->map_cnt] };
		r->map_cnt++;
	}
	fclose(f);
}

/* Start @dir/uprog and read what it prints; it waits until finish() closes its stdin. */
static void start(struct run *r, const char *dir)
{
	char exe[512], line[256], name[64];
	int in[2], out[2], got = 0;
	unsigned long long addr;
	FILE *f;

	memset(r, 0, sizeof(*r));
	snprintf(exe, sizeof(exe), "%s/%s/uprog", UPROG_DIR, dir);
	/* close-on-exec: a sidecar started later must not hold the child's stdin open */
	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	r->pid = fork();
	assert_true(r->pid >= 0);
	if (!r->pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(exe, exe, NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	r->in = in[1];
	f = fdopen(out[0], "r");
	assert_non_null(f);
	while (got < 3 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %llx", name, &addr) != 2)
			continue;
		if (!strcmp(name, "do_work"))
			r->do_work = addr, got++;
		else if (!strcmp(name, "lib_ret"))
			r->lib_ret = addr, got++;
		else if (!strcmp(name, "lib_inner_ret"))
			r->lib_inner_ret = addr, got++;
	}
	fclose(f);
	assert_int_equal(got, 3);
	read_maps(r);
	assert_true(r->map_cnt >= 2);
}

/* Let it exit and reap it: what follows resolves a process that is gone. */
static void finish(struct run *r)
{
	int status;

	close(r->in);
	assert_int_equal(waitpid(r->pid, &status, 0), r->pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static struct symbolize *make(const char *debug_root, struct addr2line *sidecar)
{
	struct symbolize_opts o = {
		.sz = sizeof(o), .inlines = true, .user_inlines = true, .debug_root = debug_root,
		.sidecar = sidecar,
	};
	struct symbolize *s = symbolize__new(&o);

	assert_non_null(s);
	return s;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/*
 * The oracle: binutils' addr2line -f -i on the unstripped @elf prints the chain innermost
 * first as function / file:line pairs; @fr holds it outermost first.
 */
static void check_with_addr2line(const char *elf, __u64 off, const struct src_frame *fr, int n)
{
	char cmd[1024], func[256], loc[1024];
	int k = n - 1, line;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "addr2line -f -i -e '%s' 0x%llx", elf, file_vaddr(elf, off));
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(func, sizeof(func), f) && fgets(loc, sizeof(loc), f)) {
		char *colon = strrchr(loc, ':');

		func[strcspn(func, "\n")] = '\0';
		assert_non_null(colon);
		*colon = '\0';
		line = atoi(colon + 1);
		if (k < 0)
			fail_msg("addr2line shows more frames than %d at 0x%llx", n,
				 (unsigned long long)off);
		assert_string_equal(fr[k].func, func);
		assert_string_equal(base(fr[k].file), base(loc));
		assert_int_equal(fr[k].line, line);
		k--;
	}
	pclose(f);
	assert_int_equal(k, -1);	/* as many frames as addr2line */
}

static void build_id_of(const char *elf, char *id, size_t len)
{
	char cmd[600], line[256];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s'", elf);
	f = popen(cmd, "r");
	assert_non_null(f);
	id[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "Build ID: ");

		if (p)
			snprintf(id, len, "%.*s", (int)strcspn(p + 10, "\n"), p + 10);
	}
	pclose(f);
	assert_true(id[0]);
}

struct answer {
	struct sym_hit hit;
	char name[128], path[512], build_id[129];
	struct src_frame fr[MAX_SRC_FRAMES];
	char strs[MAX_SRC_FRAMES][2][256];
	int n;
	const char *note;
};

/* What the resolver says about @addr (its source frames at @addr - @back), copied. */
static void ask(struct sym_resolver *r, pid_t pid, __u64 addr, int back, struct answer *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	assert_true(r->sym(r->ctx, &USER(pid), addr, &a->hit));
	snprintf(a->name, sizeof(a->name), "%s", a->hit.name ?: "");
	snprintf(a->path, sizeof(a->path), "%s", a->hit.image.path ?: "");
	snprintf(a->build_id, sizeof(a->build_id), "%s", a->hit.image.build_id ?: "");
	a->n = r->src(r->ctx, &USER(pid), addr - back, a->fr, MAX_SRC_FRAMES, &a->note);
	for (i = 0; i < a->n; i++) {
		snprintf(a->strs[i][0], sizeof(a->strs[i][0]), "%s", a->fr[i].func);
		snprintf(a->strs[i][1], sizeof(a->strs[i][1]), "%s", a->fr[i].file);
		a->fr[i].func = a->strs[i][0];
		a->fr[i].file = a->strs[i][1];
	}
}

/*
 * Every variant with debug info gives the same answers as addr2line on the unstripped
 * files: function start, a return address (the call before it), and an inline chain in
 * the library. @dir: the variant, @root: its debug root.
 */
static void check_variant(const char *dir, const char *root)
{
	char full_prog[512], full_lib[512], id[129];
	struct symbolize *s = make(root, NULL);
	struct sym_resolver r = symbolize__resolver(s);
	struct answer a;
	struct run run;

	snprintf(full_prog, sizeof(full_prog), "%s/full/uprog", UPROG_DIR);
	snprintf(full_lib, sizeof(full_lib), "%s/full/libuprog.so", UPROG_DIR);
	start(&run, dir);
	assert_int_equal(symbolize__add_process(s, run.pid, run.maps, run.map_cnt), 0);
	finish(&run);

	ask(&r, run.pid, run.do_work, 0, &a);
	assert_string_equal(a.name, "do_work");
	assert_int_equal(a.hit.start, run.do_work);
	assert_string_equal(base(a.path), "uprog");
	assert_non_null(strstr(a.path, dir));
	build_id_of(full_prog, id, sizeof(id));
	assert_string_equal(a.build_id, id);	/* stripping keeps the build ID */
	assert_null(a.note);
	check_with_addr2line(full_prog, a.hit.image.file_off, a.fr, a.n);

	/* a return address: its symbol at the address, its line at the call before it */
	ask(&r, run.pid, run.lib_ret, 1, &a);
	assert_string_equal(a.name, "do_work");
	assert_true(a.n >= 1);
	check_with_addr2line(full_prog, a.hit.image.file_off - 1, a.fr, a.n);

	/* in the library, inside a function inlined into uprog_lib_report() */
	ask(&r, run.pid, run.lib_inner_ret, 1, &a);
	assert_string_equal(a.name, "uprog_lib_report");
	assert_string_equal(base(a.path), "libuprog.so");
	assert_int_equal(a.n, 2);
	assert_string_equal(a.fr[1].func, "lib_inner");
	check_with_addr2line(full_lib, a.hit.image.file_off - 1, a.fr, a.n);
	symbolize__free(s);
}

static void test_dwarf_in_binary(void **state)
{
	check_variant("full", NULL);
}

struct walk {
	int maps, with_image;
	bool seen_lib;
};

static int walk_cb(void *ctx, const struct user_mapping *m, int image_id)
{
	struct walk *w = ctx;

	w->maps++;
	w->with_image += image_id > 0;
	w->seen_lib |= !strcmp(base(m->path), "libuprog.so") && image_id > 0;
	return 0;
}

/* The unwinder's view of a snapshot: every mapping with the sidecar's id of its file. */
static void test_mapping_walk(void **state)
{
	struct symbolize *s = make(NULL, NULL);
	struct walk w = {};
	struct run run;

	assert_null(symbolize__usyms(s));
	start(&run, "full");
	assert_int_equal(symbolize__add_process(s, run.pid, run.maps, run.map_cnt), 0);
	finish(&run);
	assert_non_null(usyms__sidecar(symbolize__usyms(s)));
	assert_int_equal(usyms__for_each_mapping(symbolize__usyms(s), run.pid, walk_cb, &w), 0);
	assert_int_equal(w.maps, run.map_cnt);
	assert_int_equal(w.with_image, run.map_cnt);	/* uprog, libuprog, libc, ld.so */
	assert_true(w.seen_lib);
	assert_int_equal(usyms__for_each_mapping(symbolize__usyms(s), run.pid + 100000, walk_cb,
						 &w), -ESRCH);
	symbolize__free(s);
}

static void test_debuglink(void **state)
{
	check_variant("dl", UPROG_DIR "/nonexistent");
}

static void test_build_id_dir(void **state)
{
	check_variant("bid", UPROG_DIR "/debugroot");
}

/* A debug file of another build is not used, and the frame says why it has no lines. */
static void test_build_id_mismatch(void **state)
{
	struct symbolize *s = make(UPROG_DIR "/nonexistent", NULL);
	struct sym_resolver r = symbolize__resolver(s);
	struct answer a;
	struct run run;

	start(&run, "mm");
	assert_int_equal(symbolize__add_process(s, run.pid, run.maps, run.map_cnt), 0);
	finish(&run);
	ask(&r, run.pid, run.lib_ret, 1, &a);
	assert_string_equal(a.name, "do_work");		/* .symtab is still there */
	assert_int_equal(a.n, 0);
	assert_string_equal(a.note, "debug file build ID mismatch");
	/* its library has DWARF of its own */
	ask(&r, run.pid, run.lib_inner_ret, 1, &a);
	assert_int_equal(a.n, 2);
	symbolize__free(s);
}

/* Nothing to go by: the binary and the offset in it, and why there are no lines. */
static void test_stripped_bare(void **state)
{
	struct symbolize *s = make(UPROG_DIR "/nonexistent", NULL);
	struct sym_resolver r = symbolize__resolver(s);
	struct view_opts view = {};
	struct code_loc loc = {};
	char cell[256], want[256];
	struct answer a;
	struct run run;

	start(&run, "bare");
	assert_int_equal(symbolize__add_process(s, run.pid, run.maps, run.map_cnt), 0);
	finish(&run);
	ask(&r, run.pid, run.do_work, 0, &a);
	assert_string_equal(a.name, "");	/* do_work is not exported: no .dynsym entry */
	assert_int_equal(a.n, 0);
	assert_string_equal(a.note, "no debug info");
	loc = (struct code_loc){ .as = USER(run.pid), .addr = run.do_work,
				 .image = a.hit.image };
	render__fmt_sym(cell, sizeof(cell), &loc, false, &view);
	snprintf(want, sizeof(want), "[uprog+0x%llx]", (unsigned long long)a.hit.image.file_off);
	assert_string_equal(cell, want);
	/* addresses outside any snapshotted mapping, and unknown processes: nothing */
	assert_false(r.sym(r.ctx, &USER(run.pid), 0x10, &a.hit));
	assert_false(r.sym(r.ctx, &USER(run.pid + 100000), run.do_work, &a.hit));
	symbolize__free(s);
}

/* Files unlinked after the snapshot still resolve: they were opened while it ran. */
static void test_deleted_files(void **state)
{
	char tmp[] = "/tmp/test_images.XXXXXX", cmd[1024];
	struct symbolize *s = make(NULL, NULL);
	struct sym_resolver r = symbolize__resolver(s);
	char dir[600];
	struct answer a;
	struct run run;

	assert_non_null(mkdtemp(tmp));
	snprintf(cmd, sizeof(cmd), "cp %s/full/uprog %s/full/libuprog.so %s/", UPROG_DIR,
		 UPROG_DIR, tmp);
	assert_int_equal(system(cmd), 0);
	/* start() runs UPROG_DIR/<dir>/uprog: a relative way into the temporary copy */
	snprintf(dir, sizeof(dir), "../../../../../../../../..%s", tmp);
	start(&run, dir);
	assert_int_equal(symbolize__add_process(s, run.pid, run.maps, run.map_cnt), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	assert_int_equal(system(cmd), 0);
	finish(&run);
	ask(&r, run.pid, run.lib_inner_ret, 1, &a);
	assert_string_equal(a.name, "uprog_lib_report");
	assert_int_equal(a.n, 2);
	symbolize__free(s);
}

/*
 * A debug file is opened with retsnoop's privileges on a name the binary's owner controls
 * (a symlink next to it may point anywhere): it is handed over only if that owner could
 * read it anyway.
 */
static void test_debug_file_owner(void **state)
{
	char tmp[] = "/tmp/test_images.XXXXXX", cmd[8192], dir[600], secret[600];
	struct symbolize *s;
	struct sym_resolver r;
	struct answer a;
	struct run run;
	int pass;

	if (geteuid() != 0)
		skip();		/* needs to give the binary to another user */
	assert_non_null(mkdtemp(tmp));
	snprintf(secret, sizeof(secret), "%s/secret.debug", tmp);
	/* dl/: DWARF only in .debug/uprog.debug, which becomes a symlink to a root-only copy */
	snprintf(cmd, sizeof(cmd), "cp -a %s/dl/. %s/ && cp %s/dl/.debug/uprog.debug %s && "
		 "chmod 600 %s && ln -sf %s %s/.debug/uprog.debug && chown 65534 %s/uprog && "
		 "chmod 755 %s", UPROG_DIR, tmp, UPROG_DIR, secret, secret, secret, tmp, tmp, tmp);
	assert_int_equal(system(cmd), 0);
	snprintf(dir, sizeof(dir), "../../../../../../../../..%s", tmp);
	for (pass = 0; pass < 2; pass++) {
		s = make(UPROG_DIR "/nonexistent", NULL);
		r = symbolize__resolver(s);
		start(&run, dir);
		assert_int_equal(symbolize__add_process(s, run.pid, run.maps, run.map_cnt), 0);
		finish(&run);
		ask(&r, run.pid, run.lib_ret, 1, &a);
		assert_string_equal(a.name, "do_work");
		if (pass == 0) {
			/* root-only, and the binary belongs to nobody: not used */
			assert_int_equal(a.n, 0);
			assert_string_equal(a.note, "no debug info");
			assert_int_equal(chmod(secret, 0644), 0);
		} else {
			/* readable by everyone: used */
			assert_true(a.n >= 1);
			assert_null(a.note);
		}
		symbolize__free(s);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	assert_int_equal(system(cmd), 0);
}

/*
 * The sidecar parses files any user controls: it runs as nobody, without capabilities,
 * with no_new_privs and a seccomp filter (the production build embedded in this binary).
 */
static void test_sidecar_unprivileged(void **state)
{
	struct addr2line_opts ao = { .sz = sizeof(ao) };
	char path[64], line[256];
	int seen = 0;
	struct addr2line *a;
	FILE *f;

	a = addr2line__new(NULL, &ao);
	assert_non_null(a);
	snprintf(path, sizeof(path), "/proc/%d/status", addr2line__pid(a));
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned int r, e, sv, fs;

		if (sscanf(line, "Uid: %u %u %u %u", &r, &e, &sv, &fs) == 4) {
			/* from root to nobody; an unprivileged caller keeps its own id */
			if (getuid() == 0)
				assert_true(r == 65534 && e == 65534 && sv == 65534 && fs == 65534);
			else
				assert_true(r == getuid() && e == getuid());
			seen++;
		} else if (!strncmp(line, "CapEff:", 7) || !strncmp(line, "CapPrm:", 7) ||
			   !strncmp(line, "CapBnd:", 7) || !strncmp(line, "CapAmb:", 7)) {
			assert_int_equal(strtoull(line + 7, NULL, 16), 0);
			seen++;
		} else if (!strncmp(line, "NoNewPrivs:", 11)) {
			assert_int_equal(atoi(line + 11), 1);
			seen++;
		} else if (!strncmp(line, "Seccomp:", 8)) {
			assert_int_equal(atoi(line + 8), 2);	/* filter mode */
			seen++;
		}
	}
	fclose(f);
	assert_int_equal(seen, 7);
	addr2line__free(a);
}

/*
 * A corrupt ELF costs its own answers, nothing else: requests about it fail or find
 * nothing, the sidecar keeps serving, the process's other files resolve.
 */
static void test_corrupt_elf(void **state)
{
	struct addr2line_opts ao = { .sz = sizeof(ao) };
	struct addr2line_image img, good;
	struct src_frame fr[8];
	struct symbolize *s;
	struct sym_resolver r;
	struct addr2line *a;
	struct answer ans;
	const char *name;
	__u64 delta, size;
	struct run run;
	int fd;

	a = addr2line__new(NULL, &ao);
	assert_non_null(a);
	fd = open(UPROG_DIR "/corrupt", O_RDONLY);
	assert_true(fd >= 0);
	/* an ELF header over garbage: libelf may accept it, but nothing is found in it */
	if (addr2line__open_image(a, fd, "corrupt", &img) == 0) {
		assert_false(img.dwarf);
		assert_true(addr2line__image_sym(a, img.id, 0x10, &name, &delta, &size) <= 0);
		assert_true(addr2line__image_lines(a, img.id, 0x10, fr, 8) <= 0);
	}
	close(fd);
	fd = open(UPROG_DIR "/full/uprog", O_RDONLY);
	assert_int_equal(addr2line__open_image(a, fd, "uprog", &good), 0);
	assert_true(good.dwarf);
	close(fd);
	/* a mapping in the snapshot whose file is corrupt: only it goes without symbols */
	s = make(NULL, a);
	r = symbolize__resolver(s);
	start(&run, "full");
	snprintf(run.paths[run.map_cnt], sizeof(run.paths[0]), "%s/corrupt", UPROG_DIR);
	run.maps[run.map_cnt] = (struct user_mapping){ 0x1000, 0x2000, 0, run.paths[run.map_cnt] };
	run.map_cnt++;
	assert_int_equal(symbolize__add_process(s, run.pid, run.maps, run.map_cnt), 0);
	finish(&run);
	ask(&r, run.pid, 0x1010, 0, &ans);
	assert_string_equal(ans.name, "");
	assert_int_equal(ans.hit.image.file_off, 0x10);
	assert_int_equal(ans.n, 0);
	assert_non_null(ans.note);
	ask(&r, run.pid, run.lib_inner_ret, 1, &ans);
	assert_string_equal(ans.name, "uprog_lib_report");
	assert_int_equal(ans.n, 2);
	symbolize__free(s);
	addr2line__free(a);
}

/*
 * The sidecar dies (as a hostile file could make it): later frames keep their binary and
 * offset and say why they have no lines; nothing else fails.
 */
static void test_sidecar_crash(void **state)
{
	struct addr2line_opts ao = { .sz = sizeof(ao) };
	struct symbolize *s;
	struct sym_resolver r;
	struct addr2line *a;
	struct answer ans;
	struct run run;

	a = addr2line__new(NULL, &ao);
	assert_non_null(a);
	s = make(NULL, a);
	r = symbolize__resolver(s);
	start(&run, "full");
	assert_int_equal(symbolize__add_process(s, run.pid, run.maps, run.map_cnt), 0);
	finish(&run);
	ask(&r, run.pid, run.do_work, 0, &ans);
	assert_string_equal(ans.name, "do_work");
	assert_int_equal(kill(addr2line__pid(a), SIGSEGV), 0);
	ask(&r, run.pid, run.lib_inner_ret, 1, &ans);
	assert_string_equal(base(ans.path), "libuprog.so");
	assert_true(ans.hit.image.file_off > 0);
	assert_int_equal(ans.n, 0);
	assert_string_equal(ans.note, "symbolizer sidecar failed");
	ask(&r, run.pid, run.do_work, 0, &ans);
	assert_string_equal(ans.note, "symbolizer sidecar failed");
	symbolize__free(s);
	addr2line__free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dwarf_in_binary),
		cmocka_unit_test(test_mapping_walk),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_build_id_dir),
		cmocka_unit_test(test_build_id_mismatch),
		cmocka_unit_test(test_stripped_bare),
		cmocka_unit_test(test_deleted_files),
		cmocka_unit_test(test_debug_file_owner),
		cmocka_unit_test(test_sidecar_unprivileged),
		cmocka_unit_test(test_corrupt_elf),
		cmocka_unit_test(test_sidecar_crash),
	};

	/* a dead sidecar must not kill the test with SIGPIPE either */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
