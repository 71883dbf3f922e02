// SPDX-License-Identifier: BSD-2-Clause
/*
 * src/ustack.c with the sanitized sidecar: a real capture of tests/userprog (ptrace at its
 * openat, tests/userprog/snap.h) unwound after the process has exited, through the maps
 * snapshot taken when it was first seen; without one, the frames are missing and the note
 * says why. Captures that can't be unwound (a kernel thread, unreadable registers) say so.
 * The unwinder gives addresses and images; lines come from the symbols object, so a
 * build whose DWARF is only in its .gnu_debuglink file has them too (addr2line the oracle).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "elf_vaddr.h"
#include "symbolize.h"
#include "ustack.h"
#include "../userprog/snap.h"

#define MISSING "/nonexistent/retsnoop-userprog.conf"

struct got {
	struct sym_resolver syms;
	char syms_[16][64];
	char paths[16][512];
	char files[16][128];
	int lines[16];
	__u64 pcs[16], offs[16];
	bool activation[16];
	int cnt;
};

/* Each frame as the sample builder resolves it: through the one symbols object. */
static int collect(void *ctx, const struct ustack_frame *f)
{
	struct addr_space as = { ADDR_SPACE_USER, f->tgid };
	struct got *g = ctx;
	struct src_frame src[8];
	struct sym_hit hit = {};
	int n;

	if (g->cnt == 16)
		return 0;
	g->pcs[g->cnt] = f->pc;
	g->activation[g->cnt] = f->activation;
	if (g->syms.sym(g->syms.ctx, &as, f->pc, &hit) && hit.name)
		snprintf(g->syms_[g->cnt], sizeof(g->syms_[0]), "%s", hit.name);
	g->offs[g->cnt] = hit.image.file_off;
	snprintf(g->paths[g->cnt], sizeof(g->paths[0]), "%s", hit.image.path ?: "");
	n = g->syms.src(g->syms.ctx, &as, f->activation ? f->pc : f->pc - 1, src, 8, NULL);
	if (n > 0) {
		/* the innermost of an inline chain: where the code is, as addr2line's first */
		snprintf(g->files[g->cnt], sizeof(g->files[0]), "%s", src[n - 1].file);
		g->lines[g->cnt] = src[n - 1].line;
	}
	g->cnt++;
	return 0;
}

struct fixture {
	struct symbolize *sym;
	struct ustack *u;
};

static void new_ustack(struct fixture *fx, struct got *g)
{
	struct symbolize_opts so = {
		.sz = sizeof(so), .sidecar_path = SIDECAR_SAN, .inlines = true,
		.user_inlines = true, .debug_root = "/nonexistent",
	};
	struct ustack_opts o = { .sz = sizeof(o) };

	fx->sym = symbolize__new(&so);
	assert_non_null(fx->sym);
	o.syms = fx->sym;
	assert_int_equal(ustack__new(&o, &fx->u), 0);
	g->syms = symbolize__resolver(fx->sym);
}

static void free_ustack(struct fixture *fx)
{
	ustack__free(fx->u);
	symbolize__free(fx->sym);
}

static void capture(const char *dir, struct rec_ustack **rec, pid_t *pid)
{
	char prog[4096], *argv[2] = { prog, NULL };

	snprintf(prog, sizeof(prog), "%s/%s/userprog", USERPROG_DIR, dir);
	assert_int_equal(snap_capture(MISSING, USTACK_DEFAULT_SIZE, argv, rec, pid), 0);
}

/* Capture @dir's userprog at its openat, snapshot it, let it exit, unwind: @g. */
static void unwind_exited(struct fixture *fx, const char *dir, struct got *g)
{
	struct rec_ustack *rec = NULL;
	const char *note = "unset";
	char maps[64];
	pid_t pid;

	new_ustack(fx, g);
	capture(dir, &rec, &pid);
	/* first seen while it runs: the snapshot is taken now */
	ustack__note_process(fx->u, pid);
	snap_kill(pid);
	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	assert_int_not_equal(access(maps, F_OK), 0);
	assert_int_equal(ustack__unwind(fx->u, rec, sizeof(*rec) + rec->stack_len, collect, g,
					&note), 0);
	assert_null(note);
	assert_true(g->cnt >= 5);
	assert_true(g->activation[0]);
	assert_false(g->activation[1]);
	assert_string_equal(g->syms_[1], "open_config");
	assert_string_equal(g->syms_[2], "do_work");
	assert_string_equal(g->syms_[3], "main");
	free(rec);
}

static void test_exited_process(void **state)
{
	struct fixture fx;
	struct got g = {};

	unwind_exited(&fx, "nofp", &g);
	assert_string_equal(g.files[1], "tests/userprog/ucfg.c");
	assert_string_equal(g.files[3], "tests/userprog/main.c");
	assert_true(g.lines[1] > 0 && g.lines[2] > 0 && g.lines[3] > 0);
	free_ustack(&fx);
}

/* addr2line's first (innermost) file:line for @addr of @elf; 0 if it knows none. */
static int addr2line_at(const char *elf, unsigned long long addr, char *file, size_t sz)
{
	char cmd[1200], func[256], loc[1024], *colon;
	FILE *f;
	int line = 0;

	snprintf(cmd, sizeof(cmd), "addr2line -f -i -e '%s' 0x%llx", elf, addr);
	f = popen(cmd, "r");
	assert_non_null(f);
	if (fgets(func, sizeof(func), f) && fgets(loc, sizeof(loc), f)) {
		loc[strcspn(loc, " \n")] = '\0';	/* " (discriminator N)" */
		colon = strrchr(loc, ':');
		if (colon && strcmp(loc, "??")) {
			*colon = '\0';
			snprintf(file, sz, "%s", loc);
			line = atoi(colon + 1);
		}
	}
	pclose(f);
	return line;
}

/*
 * DWARF only in a separate file named by .gnu_debuglink: the unwinder (libdwfl in the
 * sandbox) can't open it, the symbols object can; every frame of the program and its
 * library has the line addr2line gives on that debug file for the same address.
 */
static void test_debuglink(void **state)
{
	struct fixture fx;
	struct got g = {};
	int i, checked = 0;

	unwind_exited(&fx, "dl", &g);
	for (i = 0; i < g.cnt; i++) {
		const char *slash = strrchr(g.paths[i], '/');
		char dbg[600], file[1024] = "";
		unsigned long long va;
		int line;

		if (!slash || !strstr(g.paths[i], "/dl/"))
			continue;	/* libc, ld.so: not ours */
		snprintf(dbg, sizeof(dbg), "%s/dl/%s.debug", USERPROG_DIR, slash + 1);
		va = file_vaddr(g.paths[i], g.offs[i]);
		line = addr2line_at(dbg, g.activation[i] ? va : va - 1, file, sizeof(file));
		print_message("  %s %s+0x%llx: retsnoop %s:%d, addr2line %s:%d\n", g.syms_[i],
			      slash + 1, va, g.files[i], g.lines[i], file, line);
		if (!line) {
			/* _start: none known, none made up */
			assert_int_equal(g.lines[i], 0);
			assert_string_equal(g.files[i], "");
			continue;
		}
		/* addr2line joins DWARF's directory to the name DWARF gives */
		assert_true(strlen(file) >= strlen(g.files[i]) && g.files[i][0]);
		assert_string_equal(g.files[i], file + strlen(file) - strlen(g.files[i]));
		assert_int_equal(g.lines[i], line);
		checked++;
	}
	/* _start has no line; open_config, do_work, main do */
	assert_true(checked >= 3);
	free_ustack(&fx);
}

/* Never seen while alive: no snapshot, no frames, and the note says why. */
static void test_never_seen(void **state)
{
	struct rec_ustack *rec = NULL;
	const char *note = NULL;
	struct fixture fx;
	struct got g = {};
	pid_t pid;

	new_ustack(&fx, &g);
	capture("nofp", &rec, &pid);
	snap_kill(pid);
	assert_int_equal(ustack__unwind(fx.u, rec, sizeof(*rec) + rec->stack_len, collect, &g,
					&note), 0);
	assert_int_equal(g.cnt, 0);
	assert_non_null(note);
	assert_non_null(strstr(note, "exited before its mappings could be read"));
	free(rec);
	free_ustack(&fx);
}

static void test_not_unwindable(void **state)
{
	struct rec_ustack rec = { .type = REC_USTACK, .tgid = 1, .pid = 1 };
	const char *note = NULL;
	struct fixture fx;
	struct got g = {};

	new_ustack(&fx, &g);
	rec.flags = USTACK_F_NOT_USER;
	assert_int_equal(ustack__unwind(fx.u, &rec, sizeof(rec), collect, &g, &note), 0);
	assert_string_equal(note, "a kernel thread: no user stack");
	rec.flags = 0;
	rec.err = -EFAULT;
	assert_int_equal(ustack__unwind(fx.u, &rec, sizeof(rec), collect, &g, &note), 0);
	assert_non_null(strstr(note, "registers could not be read (Bad address)"));
	assert_int_equal(ustack__unwind(fx.u, &rec, 8, collect, &g, &note), 0);
	assert_string_equal(note, "malformed user stack record");
	/* a 32-bit program: x86's compat code segment, arm64's AArch32 state */
	rec.err = 0;
	rec.arch = USTACK_ARCH_X86_64;
	rec.reg_cnt = 21;
	rec.regs[17] = 0x23;
	assert_int_equal(ustack__unwind(fx.u, &rec, sizeof(rec), collect, &g, &note), 0);
	assert_string_equal(note, "a 32-bit program: retsnoop unwinds 64-bit programs' stacks only");
	rec.arch = USTACK_ARCH_ARM64;
	rec.reg_cnt = 34;
	rec.regs[33] = 0x10;
	note = NULL;
	assert_int_equal(ustack__unwind(fx.u, &rec, sizeof(rec), collect, &g, &note), 0);
	assert_string_equal(note, "a 32-bit program: retsnoop unwinds 64-bit programs' stacks only");
	/* 64-bit code (__USER_CS, EL0t): the process is looked up as usual (pid 1's maps) */
	rec.regs[33] = 0;
	note = NULL;
	ustack__unwind(fx.u, &rec, sizeof(rec), collect, &g, &note);
	assert_true(!note || !strstr(note, "32-bit"));
	rec.arch = USTACK_ARCH_X86_64;
	rec.reg_cnt = 21;
	rec.regs[17] = 0x33;
	note = NULL;
	ustack__unwind(fx.u, &rec, sizeof(rec), collect, &g, &note);
	assert_true(!note || !strstr(note, "32-bit"));
	assert_int_equal(g.cnt, 0);
	free_ustack(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exited_process),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_never_seen),
		cmocka_unit_test(test_not_unwindable),
	};

	return cmocka_run_group_tests_name("ustack", tests, NULL, NULL);
}
