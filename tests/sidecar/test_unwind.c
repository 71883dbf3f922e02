// SPDX-License-Identifier: BSD-2-Clause
/*
 * The sidecar's unwinder on real captures: tests/userprog's builds (frame pointers, none,
 * stripped) stopped under ptrace at the openat() of open_config (tests/userprog/snap.h,
 * the registers and stack window BPF would copy there), parsed from the "unwind" request
 * and unwound. Every frame of the test program's own binaries must carry the line
 * addr2line gives for the same file and address. Also windows cut short, a pc outside
 * every mapping, the request parser's refusals and the server's framing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "server.h"
#include "unwind.h"
#include "unwind_req.h"
#include "../userprog/snap.h"

#define MISSING "/nonexistent/retsnoop-userprog.conf"

/*
 * A capture of @build's userprog, @env_var (if not NULL) set in its environment: the
 * variable is gone again before any assertion, so a failed capture leaves no later test
 * running the program's other way.
 */
static char *snap_env(const char *build, const char *env_var)
{
	char prog[4096], *argv[2] = { prog, NULL }, *line = NULL;
	int err;

	snprintf(prog, sizeof(prog), "%s/%s/userprog", USERPROG_DIR, build);
	if (env_var)
		assert_int_equal(setenv(env_var, "1", 1), 0);
	err = snap_take(MISSING, USTACK_DEFAULT_SIZE, argv, &line, NULL);
	if (env_var)
		unsetenv(env_var);
	assert_int_equal(err, 0);
	assert_int_equal(strncmp(line, "unwind ", 7), 0);
	return line;
}

static char *snap_of(const char *build)
{
	return snap_env(build, NULL);
}

static struct unwind_req *parse(const char *line)
{
	struct unwind_req *r = NULL;

	assert_int_equal(unwind_req__parse(line + 7, strlen(line + 7), &r), 0);
	return r;
}

/* addr2line's "file:line" for @addr of @path (the oracle), basename only */
static void addr2line(const char *path, uint64_t addr, char *file, size_t sz, int *line)
{
	char cmd[8192], out[4096], *colon;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "addr2line -e '%s' %#llx", path, (unsigned long long)addr);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, sizeof(out), p));
	pclose(p);
	out[strcspn(out, " \n")] = '\0';
	colon = strrchr(out, ':');
	assert_non_null(colon);
	*colon = '\0';
	*line = atoi(colon + 1);
	snprintf(file, sz, "%s", strrchr(out, '/') ? strrchr(out, '/') + 1 : out);
}

static int find_sym(const struct unwind_result *res, const char *sym)
{
	size_t i;

	for (i = 0; i < res->cnt; i++) {
		if (res->frames[i].sym && !strcmp(res->frames[i].sym, sym))
			return i;
	}
	return -1;
}

static void check_build(const char *build)
{
	struct unwind_opts o = { .sz = sizeof(o), .symbolize = true };
	struct unwind_result res;
	struct unwinder *u;
	struct unwind_req *r;
	char *line = snap_of(build), file[256];
	int oc, dw, mn, n, i;

	r = parse(line);
	assert_int_equal(unwinder__new(&o, &u), 0);
	assert_int_equal(unwinder__run(u, &r->in, &res), 0);
	if (res.stop)
		fail_msg("%s: stopped early: %s", build, res.stop);
	/* the innermost frame is libc's open wrapper, where the thread entered the kernel */
	assert_true(res.cnt >= 5);
	assert_true(res.frames[0].activation);
	assert_non_null(strstr(res.frames[0].module, "libc.so"));
	oc = find_sym(&res, "open_config");
	dw = find_sym(&res, "do_work");
	mn = find_sym(&res, "main");
	assert_true(oc == 1 && dw == 2 && mn == 3);
	/* every frame unwound from CFI: none is a frame-pointer guess */
	for (i = 0; i < (int)res.cnt; i++)
		assert_false(res.frames[i].guessed);
	for (i = 1; i <= 3; i++) {
		const struct unwind_frame *f = &res.frames[i];

		assert_false(f->activation);
		assert_non_null(strstr(f->module, USERPROG_DIR));
		assert_int_equal(strlen(f->build_id), 40);
		assert_non_null(f->file);
		/* a return address: the call is the instruction before it */
		addr2line(f->module, f->vaddr - 1, file, sizeof(file), &n);
		assert_string_equal(strrchr(f->file, '/') + 1, file);
		assert_int_equal(f->line, n);
		assert_true(f->col > 0);
	}
	/* the same capture again: the unwinder's kept Dwfl answers the same */
	assert_int_equal(unwinder__run(u, &r->in, &res), 0);
	assert_int_equal(find_sym(&res, "main"), 3);
	unwinder__free(u);
	unwind_req__free(r);
	free(line);
}

static void test_nofp(void **state)
{
	check_build("nofp");
}

static void test_fp(void **state)
{
	check_build("fp");
}

/* No symbols but .dynsym, no DWARF: what is known, and why lines are not. */
static void test_stripped(void **state)
{
	struct unwind_opts o = { .sz = sizeof(o), .symbolize = true };
	struct unwind_result res;
	struct unwinder *u;
	struct unwind_req *r;
	char *line = snap_of("stripped");

	r = parse(line);
	assert_int_equal(unwinder__new(&o, &u), 0);
	assert_int_equal(unwinder__run(u, &r->in, &res), 0);
	assert_null(res.stop);
	assert_int_equal(find_sym(&res, "open_config"), 1);
	assert_null(res.frames[1].file);
	assert_string_equal(res.frames[1].no_lines, "No DWARF information found");
	/* do_work and main: static functions of a stripped executable */
	assert_null(res.frames[2].sym);
	assert_null(res.frames[3].sym);
	assert_non_null(strstr(res.frames[2].module, "stripped/userprog"));
	assert_int_equal(res.frames[2].file_off, res.frames[2].vaddr);	/* PIE text */
	unwinder__free(u);
	unwind_req__free(r);
	free(line);
}

/* A window shorter than the stack: unwound as far as it reaches, and said. */
static void test_short_window(void **state)
{
	struct unwind_opts o = { .sz = sizeof(o) };
	struct unwind_result res;
	struct unwinder *u;
	struct unwind_req *r;
	char *line = snap_of("nofp");

	r = parse(line);
	r->in.stack_len = 16;
	assert_int_equal(unwinder__new(&o, &u), 0);
	assert_int_equal(unwinder__run(u, &r->in, &res), 0);
	assert_non_null(res.stop);
	assert_non_null(strstr(res.stop, "beyond the 16 bytes captured"));
	assert_true(res.cnt >= 1 && res.cnt < 4);
	unwinder__free(u);
	unwind_req__free(r);
	free(line);
}

/* A pc in no mapping: one frame without a module, and why it goes no further. */
static void test_pc_unmapped(void **state)
{
	struct unwind_opts o = { .sz = sizeof(o), .symbolize = true };
	struct unwind_result res;
	struct unwinder *u;
	struct unwind_req *r;
	char *line = snap_of("nofp");

	r = parse(line);
	r->regs[16] = 0x1000;
	assert_int_equal(unwinder__new(&o, &u), 0);
	assert_int_equal(unwinder__run(u, &r->in, &res), 0);
	assert_int_equal(res.cnt, 1);
	assert_null(res.frames[0].module);
	assert_non_null(res.stop);
	/* no maps at all: nothing to unwind with */
	r->in.map_cnt = 0;
	assert_int_equal(unwinder__run(u, &r->in, &res), 0);
	assert_non_null(res.stop);
	assert_non_null(strstr(res.stop, "no binary of the process could be read"));
	unwinder__free(u);
	unwind_req__free(r);
	free(line);
}

/* Every caller reported is code: its return address is in an executable mapping. */
static void assert_all_code(const struct unwind_input *in, const struct unwind_result *res)
{
	size_t i, j;

	for (i = 1; i < res->cnt; i++) {
		for (j = 0; j < in->map_cnt; j++) {
			if (res->frames[i].pc - 1 >= in->maps[j].start &&
			    res->frames[i].pc - 1 < in->maps[j].end)
				break;
		}
		assert_true(j < in->map_cnt);
		assert_true(in->maps[j].exec);
	}
}

/*
 * A process still being linked: the dynamic linker's openat() of its cache, before main.
 * Its stack ends in ld.so's entry code, which has no CFI (glibc's _start has, marking the
 * end); that is the process's first frame, so the stack is whole, not "no unwind
 * information for ld-linux-x86-64.so.2+0x1ab78" (bpftool's library search in the 7.2 guest).
 */
static void test_in_dynamic_linker(void **state)
{
	struct unwind_opts o = { .sz = sizeof(o), .symbolize = true };
	char prog[4096], *argv[2] = { prog, NULL }, *line = NULL;
	const struct unwind_frame *last;
	struct unwind_result res;
	struct unwinder *u;
	struct unwind_req *r;
	size_t i;

	snprintf(prog, sizeof(prog), "%s/nofp/userprog", USERPROG_DIR);
	assert_int_equal(snap_take("/etc/ld.so.cache", USTACK_DEFAULT_SIZE, argv, &line, NULL), 0);
	r = parse(line);
	assert_int_equal(unwinder__new(&o, &u), 0);
	assert_int_equal(unwinder__run(u, &r->in, &res), 0);
	if (res.stop)
		fail_msg("stopped early: %s", res.stop);
	/* every frame is the linker's: _start, _dl_start, ..., its open */
	assert_true(res.cnt >= 3);
	for (i = 0; i < res.cnt; i++) {
		assert_non_null(res.frames[i].module);
		assert_non_null(strstr(res.frames[i].module, "/ld-linux"));
	}
	last = &res.frames[res.cnt - 1];
	assert_false(last->activation);
	assert_false(last->guessed);
	assert_all_code(&r->in, &res);
	unwinder__free(u);
	unwind_req__free(r);
	free(line);
}

/*
 * A page of the window that was not in memory when BPF read it (a hole, zeros): a word
 * the unwinder needs there is not taken for data, the stack stops and says why. The
 * holes travel in the request (ustack_req.c writes them, unwind_req.c reads them).
 */
static void test_holes(void **state)
{
	struct unwind_opts o = { .sz = sizeof(o), .symbolize = true };
	char prog[4096], *argv[2] = { prog, NULL }, *line = NULL;
	struct proc_maps *maps = NULL;
	struct rec_ustack *rec = NULL;
	struct unwind_result res;
	struct unwinder *u;
	struct unwind_req *r;
	size_t whole;
	pid_t pid = 0;

	snprintf(prog, sizeof(prog), "%s/nofp/userprog", USERPROG_DIR);
	assert_int_equal(snap_capture(MISSING, USTACK_DEFAULT_SIZE, argv, &rec, &pid), 0);
	assert_int_equal(proc_maps__read(pid, NULL, &maps), 0);
	/*
	 * sp's page and the next one holes: the open wrapper's return address is in them
	 * (sp + 0x68: in the next page when sp lies in its page's last 104 bytes, where a
	 * hole of sp's page alone left the stack whole, 1 run in some 40)
	 */
	rec->stack_holes = 0x3;
	assert_int_equal(ustack_req__format(rec, rec->stack_len, maps, NULL, &line), 0);
	snap_kill(pid);
	r = parse(line);
	/* the next page only if the window reaches it (the stack's top may be in sp's) */
	assert_true(r->in.holes == 0x3 || r->in.holes == 0x1);
	assert_int_equal(unwinder__new(&o, &u), 0);
	assert_int_equal(unwinder__run(u, &r->in, &res), 0);
	assert_int_equal(res.cnt, 1);
	assert_non_null(res.stop);
	assert_non_null(strstr(res.stop, "was not in memory when captured"));
	/* without it, the same capture unwinds whole */
	r->in.holes = 0;
	assert_int_equal(unwinder__run(u, &r->in, &res), 0);
	assert_null(res.stop);
	whole = res.cnt;
	assert_true(whole >= 5);
	/* a hole past the window's end is none: the request keeps only the window's pages */
	free(line);
	rec->stack_holes = 1 << 15;
	assert_int_equal(ustack_req__format(rec, 64, maps, NULL, &line), 0);
	unwind_req__free(r);
	r = parse(line);
	assert_int_equal(r->in.holes, 0);
	unwinder__free(u);
	unwind_req__free(r);
	proc_maps__free(maps);
	free(rec);
	free(line);
}

/*
 * No CFI and no frame pointers (nocfi/, like Debian's static busybox): libdwfl follows
 * the frame pointer register, which holds whatever the code put there. The unwinding
 * stops where the guess is not code, and says so, rather than print the guess as a frame
 * (busybox's sysctl in the 6.12 guest showed "0x3d454d4f4800333d (no mapped file)", an
 * environment string, as its caller).
 */
static void test_nocfi(void **state)
{
	static const uint64_t env_words = 0x3d454d4f4800333dULL;	/* "=3\0HOME=" */
	struct unwind_opts o = { .sz = sizeof(o), .symbolize = true };
	const struct unwind_map *code = NULL;
	struct unwind_result res;
	struct unwinder *u;
	struct unwind_req *r;
	char *line = snap_of("nocfi");
	uint64_t ret;
	size_t i;

	r = parse(line);
	assert_int_equal(unwinder__new(&o, &u), 0);
	/* the live capture: as far as the unwind information goes, then said why not further */
	assert_int_equal(unwinder__run(u, &r->in, &res), 0);
	assert_non_null(res.stop);
	assert_non_null(strstr(res.stop, "no unwind information for "));
	assert_all_code(&r->in, &res);

	/* the program's own code, which has no CFI */
	for (i = 0; i < r->in.map_cnt; i++) {
		if (r->in.maps[i].exec && r->in.maps[i].path &&
		    strstr(r->in.maps[i].path, "nocfi/userprog"))
			code = &r->in.maps[i];
	}
	assert_non_null(code);
	assert_true(r->in.stack_len >= 16);
	/* stopped there with the frame pointer at the window: its "return address" is text */
	r->regs[16] = code->start + 0x10;
	r->regs[4] = r->in.sp;
	memset(r->stack, 0, 8);
	memcpy(r->stack + 8, &env_words, 8);
	assert_int_equal(unwinder__run(u, &r->in, &res), 0);
	assert_int_equal(res.cnt, 1);
	assert_non_null(res.stop);
	assert_non_null(strstr(res.stop, "no unwind information for userprog+"));
	assert_non_null(strstr(res.stop, "frame pointer leads to 0x3d454d4f4800333d, which is not code"));
	/* the same guess landing in code is kept: frame pointers are followed where they exist */
	ret = code->start + 0x21;
	memcpy(r->stack + 8, &ret, 8);
	assert_int_equal(unwinder__run(u, &r->in, &res), 0);
	assert_true(res.cnt >= 2);
	assert_int_equal(res.frames[1].pc, ret);
	/* ... and marked as what it is: a caller only the frame pointer vouches for */
	assert_false(res.frames[0].guessed);
	assert_true(res.frames[1].guessed);
	unwinder__free(u);
	unwind_req__free(r);
	free(line);
}

/*
 * Native code called from JIT-compiled code (a JVM's interpreter calling a JNI function):
 * userprog's main calls do_work() through a trampoline in anonymous executable memory,
 * with no unwind information but a frame pointer. With that mapping in the request (no
 * path), the unwinder passes it by the frame pointer to main and on to the process's
 * start; without it the stack ended at do_work ("... is not code": a Java program's
 * stacks ended at the first JNI frame).
 */
static void test_jit_frame(void **state)
{
	struct unwind_opts o = { .sz = sizeof(o), .symbolize = true };
	struct unwind_result res = {};
	struct unwinder *u = NULL;
	const struct unwind_map *anon, *orig;
	struct unwind_req *r;
	struct unwind_map *kept;
	char *line;
	size_t i, n = 0;
	int dw, mn;

	line = snap_env("nofp", "USERPROG_JIT");
	r = parse(line);
	assert_int_equal(unwinder__new(&o, &u), 0);
	assert_int_equal(unwinder__run(u, &r->in, &res), 0);
	if (res.stop)
		fail_msg("stopped early: %s", res.stop);
	dw = find_sym(&res, "do_work");
	mn = find_sym(&res, "main");
	assert_true(dw > 0 && mn == dw + 2);
	/* the trampoline's frame: no file, in the anonymous executable mapping */
	assert_null(res.frames[dw + 1].module);
	for (i = 0; i < r->in.map_cnt; i++) {
		const struct unwind_map *m = &r->in.maps[i];

		if (res.frames[dw + 1].pc - 1 >= m->start && res.frames[dw + 1].pc - 1 < m->end)
			break;
	}
	assert_true(i < r->in.map_cnt && !r->in.maps[i].path && r->in.maps[i].exec);
	/* the trampoline had no CFI: main was found by its frame record, once */
	assert_true(res.frames[mn].guessed);
	assert_false(res.frames[mn].activation);
	assert_true(res.frames[dw + 1].pc != res.frames[mn].pc);
	/* ... and with the right stack pointer: main's CFI leads on into libc's start */
	assert_true((size_t)mn + 1 < res.cnt && res.frames[mn + 1].module &&
		    strstr(res.frames[mn + 1].module, "libc.so"));
	assert_non_null(res.frames[res.cnt - 1].sym);
	unwinder__free(u);

	/*
	 * As the kernel's mmap records of the exited process have it: the data file userprog
	 * mapped and let go around the trampoline's page still there (no munmap() is
	 * recorded). The code stays no file's: libdwfl made one module of the file's two
	 * pieces, which named the trampoline's frame "ld.so.cache+0x7f...".
	 */
	anon = &r->in.maps[i];
	kept = calloc(r->in.map_cnt + 2, sizeof(*kept));
	assert_non_null(kept);
	for (i = 0; i < r->in.map_cnt; i++) {
		const struct unwind_map *m = &r->in.maps[i];

		if (m == anon)
			kept[n++] = (struct unwind_map){ .start = anon->start - 4096,
							 .end = anon->start, .inode = 9,
							 .path = "/etc/ld.so.cache" };
		kept[n++] = *m;
		if (m == anon)
			kept[n++] = (struct unwind_map){ .start = anon->end, .end = anon->end + 4096,
							 .pgoff = 8192, .inode = 9,
							 .path = "/etc/ld.so.cache" };
		/* the pages around the trampoline's are free (userprog let them go) */
		assert_true(n < 2 || kept[n - 2].end <= kept[n - 1].start);
	}
	orig = r->in.maps;
	r->in.maps = kept;
	r->in.map_cnt = n;
	u = NULL;
	assert_int_equal(unwinder__new(&o, &u), 0);
	assert_int_equal(unwinder__run(u, &r->in, &res), 0);
	if (res.stop)
		fail_msg("stopped early with the stale file: %s", res.stop);
	dw = find_sym(&res, "do_work");
	assert_true(dw > 0 && find_sym(&res, "main") == dw + 2);
	if (res.frames[dw + 1].module)
		fail_msg("the trampoline's frame named %s", res.frames[dw + 1].module);
	unwinder__free(u);
	free(kept);
	r->in.maps = orig;
	r->in.map_cnt = n - 2;
	n = 0;

	/* the same capture without the anonymous mapping: it ends at do_work's caller */
	kept = calloc(r->in.map_cnt, sizeof(*kept));
	assert_non_null(kept);
	for (i = 0; i < r->in.map_cnt; i++) {
		if (r->in.maps[i].path)
			kept[n++] = r->in.maps[i];
	}
	assert_true(n < r->in.map_cnt);
	r->in.maps = kept;
	r->in.map_cnt = n;
	u = NULL;
	assert_int_equal(unwinder__new(&o, &u), 0);
	assert_int_equal(unwinder__run(u, &r->in, &res), 0);
	assert_non_null(res.stop);
	assert_non_null(strstr(res.stop, "is not code"));
	assert_int_equal(find_sym(&res, "main"), -1);
	unwinder__free(u);
	free(kept);
	unwind_req__free(r);
	free(line);
}

/*
 * A signal handler on a stack of its own (sigaltstack): the window is taken there, and
 * the code the signal interrupted has its frames on the thread's own stack, which was not
 * captured. The stack ends at that code (past the signal frame) and says so, not "a frame
 * pointer led to ..., outside the thread's stack" (a program's SIGALRM handler).
 */
static void test_sigaltstack(void **state)
{
	struct unwind_opts o = { .sz = sizeof(o), .symbolize = true };
	struct unwind_result res = {};
	struct unwinder *u = NULL;
	struct unwind_req *r;
	char *line = snap_env("nofp", "USERPROG_SIGALT");
	int dw;

	r = parse(line);
	assert_int_equal(unwinder__new(&o, &u), 0);
	assert_int_equal(unwinder__run(u, &r->in, &res), 0);
	dw = find_sym(&res, "do_work");
	assert_true(dw > 0);
	/* the handler's frames, then the interrupted code: where it stopped, as is */
	assert_true(res.cnt >= (size_t)dw + 3 && res.frames[res.cnt - 1].activation);
	assert_non_null(res.stop);
	if (!strstr(res.stop, "the signal handler ran on a stack of its own (sigaltstack)"))
		fail_msg("stopped: %s", res.stop);
	unwinder__free(u);
	unwind_req__free(r);
	free(line);
}

static void test_req_refused(void **state)
{
	static const char *const bad[] = {
		"", "x86_64", "sparc 1 10 -", "x86_64 0 10 " , "x86_64 1 10 1,2,3 - 0 -",
		/* odd hex count in the stack */
		"x86_64 1 10 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 abc 0 -",
		/* a map with end before start */
		"x86_64 1 10 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 - 0 2000-1000:0:5:0:0:0:0:2f61,-",
		/* trailing garbage */
		"x86_64 1 10 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 - 0 - x",
		/* a path with a NUL */
		"x86_64 1 10 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 - 0 1000-2000:0:5:0:0:0:0:2f00,-",
		/* a mapping without a path ('-'): only code, and no image of its own */
		"x86_64 1 10 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 - 0 1000-2000:0:3:0:0:0:0:-,-",
		"x86_64 1 10 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 - 0 1000-2000:0:5:0:0:0:4:-,-",
		/* no holes field, and holes past 32 pages */
		"x86_64 1 10 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 - -",
		"x86_64 1 10 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 - 100000000 -",
	};
	struct unwind_req *r = NULL;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (unwind_req__parse(bad[i], strlen(bad[i]), &r) != -EINVAL)
			fail_msg("accepted: '%s'", bad[i]);
	}
	/* the smallest valid one: no stack, no maps */
	assert_int_equal(unwind_req__parse(bad[7], strlen(bad[7]) - 2, &r), 0);
	assert_int_equal(r->in.reg_cnt, 21);
	assert_int_equal(r->in.stack_len, 0);
	unwind_req__free(r);
}

/* Through the server: framing, and a malformed request leaves it serving. */
static void test_server(void **state)
{
	struct reply_buf out = {};
	struct server *srv;
	char *line = snap_of("nofp");
	int n;

	srv = server__new(NULL, NULL);
	assert_non_null(srv);
	assert_int_equal(server__handle(srv, "unwind x", 8, NULL, &out), 0);
	assert_int_equal(strncmp(out.p, "err 22 ", 7), 0);
	out.len = 0;
	assert_int_equal(server__handle(srv, line, strlen(line), NULL, &out), 0);
	assert_int_equal(sscanf(out.p, "ok %d", &n), 1);
	assert_true(n >= 5);
	/* addresses and images only: the client symbolizes them (debug files included) */
	assert_non_null(strstr(out.p, "/nofp/libucfg.so"));
	assert_null(strstr(out.p, "\topen_config\t"));
	/* a file-less server still refuses what needs its file */
	out.len = 0;
	assert_int_equal(server__handle(srv, "sym 1000", 8, NULL, &out), 0);
	assert_int_equal(strncmp(out.p, "err 2 ", 6), 0);
	server__free(srv);
	free(out.p);
	free(line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nofp),
		cmocka_unit_test(test_fp),
		cmocka_unit_test(test_stripped),
		cmocka_unit_test(test_in_dynamic_linker),
		cmocka_unit_test(test_jit_frame),
		cmocka_unit_test(test_sigaltstack),
		cmocka_unit_test(test_short_window),
		cmocka_unit_test(test_pc_unmapped),
		cmocka_unit_test(test_holes),
		cmocka_unit_test(test_nocfi),
		cmocka_unit_test(test_req_refused),
		cmocka_unit_test(test_server),
	};

	return cmocka_run_group_tests_name("sidecar unwind", tests, NULL, NULL);
}
