// SPDX-License-Identifier: BSD-2-Clause
/*
 * The symbolization sidecar against a fixture built at test time with -g -O2: exact
 * functions, file:line:col and inline chains, source-path globs, malformed requests; then
 * the same through src/addr2line.c running the embedded (static) sidecar from memory.
 * Addresses come from the fixture's own symbols (nm), line numbers from @tags in its sources.
 * The symbolization tests run on the fixture built with DWARF 5 and again with DWARF 4
 * (range lists, line-table headers and string forms differ).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "unit.h"
#include "addr2line.h"

#define FIX_C "tests/sidecar/fixture/fixture.c"
#define FIX_H "tests/sidecar/fixture/fixture_inl.h"
#define FIX_B "tests/sidecar/fixture/fixture_b.c"
#define FIX_S "tests/sidecar/fixture/fixture_split.c"
#define FIX_F "tests/sidecar/fixture/fixture_fold.c"

/* the fixture binary the symbolization tests run on */
static const char *fixture = SIDECAR_FIXTURE;

struct sidecar {
	pid_t pid;
	FILE *in;	/* our requests */
	FILE *out;	/* its replies */
};

static unsigned long long nm_addr(const char *sym)
{
	char cmd[512], line[512], name[256], type;
	unsigned long long addr, found = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm -- '%s'", fixture);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 && strcmp(name, sym) == 0)
			found = addr;
	}
	pclose(f);
	assert_true(found != 0);
	return found;
}

/* Line of the @tag comment in a fixture source, and the column of @word on it (1-based). */
static int tag_line(const char *file, const char *tag, const char *word, int *col)
{
	char path[512], line[512], t[64];
	int n = 0, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", SIDECAR_FIXTURE_DIR, strrchr(file, '/') + 1);
	snprintf(t, sizeof(t), "/* @%s */", tag);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, t)) {
			found = n;
			if (col) {
				char *w = strstr(line, word);

				assert_non_null(w);
				*col = w - line + 1;
			}
			break;
		}
	}
	fclose(f);
	assert_true(found > 0);
	return found;
}

static void sc_start(struct sidecar *sc, const char *elf)
{
	int to[2], from[2];

	assert_int_equal(pipe(to), 0);
	assert_int_equal(pipe(from), 0);
	sc->pid = fork();
	assert_true(sc->pid >= 0);
	if (sc->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execl(SIDECAR_SAN, "retsnoop-sidecar", elf, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	sc->in = fdopen(to[1], "w");
	sc->out = fdopen(from[0], "r");
	assert_non_null(sc->in);
	assert_non_null(sc->out);
}

/* Close its stdin; it must exit 0 (a sanitizer report would make it exit non-zero). */
static void sc_stop(struct sidecar *sc)
{
	int status;

	fclose(sc->in);
	assert_int_equal(waitpid(sc->pid, &status, 0), sc->pid);
	fclose(sc->out);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/*
 * Send one request (raw bytes, newline added) and read the reply: returns the line count
 * of "ok N" with the lines in @lines (NULL-terminated copies), or -errno of "err".
 */
static int sc_req(struct sidecar *sc, const char *req, size_t len, char lines[][512], int max)
{
	char hdr[1024];
	int n, e, i;

	assert_int_equal(fwrite(req, 1, len, sc->in), len);
	fputc('\n', sc->in);
	fflush(sc->in);
	assert_non_null(fgets(hdr, sizeof(hdr), sc->out));
	if (sscanf(hdr, "err %d ", &e) == 1)
		return -e;
	assert_int_equal(sscanf(hdr, "ok %d", &n), 1);
	for (i = 0; i < n; i++) {
		char tmp[512];

		assert_non_null(fgets(tmp, sizeof(tmp), sc->out));
		tmp[strcspn(tmp, "\n")] = '\0';
		if (i < max)
			strcpy(lines[i], tmp);
	}
	return n;
}

static int sc_sym(struct sidecar *sc, unsigned long long addr, char lines[][512], int max)
{
	char req[64];

	snprintf(req, sizeof(req), "sym %llx", addr);
	return sc_req(sc, req, strlen(req), lines, max);
}

static void expect_frame(const char *got, const char *func, const char *file, int line, int col)
{
	char want[512];

	snprintf(want, sizeof(want), "%s\t%s\t%d\t%d", func, file, line, col);
	assert_string_equal(got, want);
}

static void test_inline_chain(void **state)
{
	int call_mid_col, call_inner_col, mark_col;
	int call_mid = tag_line(FIX_C, "call_mid", "fixture_mid(", &call_mid_col);
	int call_inner = tag_line(FIX_H, "call_inner", "fixture_inner(", &call_inner_col);
	int mark = tag_line(FIX_H, "mark_inner", "asm", &mark_col);
	struct sidecar sc;
	char l[8][512];

	sc_start(&sc, fixture);
	/* outermost first: each frame's location is where it calls the next one */
	assert_int_equal(sc_sym(&sc, nm_addr("fixture_mark_inner"), l, 8), 3);
	expect_frame(l[0], "fixture_outer", FIX_C, call_mid, call_mid_col);
	expect_frame(l[1], "fixture_mid", FIX_H, call_inner, call_inner_col);
	expect_frame(l[2], "fixture_inner", FIX_H, mark, mark_col);
	/* the reply cache answers a repeated address identically */
	assert_int_equal(sc_sym(&sc, nm_addr("fixture_mark_inner"), l, 8), 3);
	expect_frame(l[2], "fixture_inner", FIX_H, mark, mark_col);
	sc_stop(&sc);
}

static void test_plain_function(void **state)
{
	int mark_col, mark = tag_line(FIX_C, "mark_plain", "asm", &mark_col);
	int body_col, body = tag_line(FIX_B, "body_b_one", "* 11", &body_col);
	struct sidecar sc;
	char l[8][512];

	sc_start(&sc, fixture);
	assert_int_equal(sc_sym(&sc, nm_addr("fixture_mark_plain"), l, 8), 1);
	expect_frame(l[0], "fixture_plain", FIX_C, mark, mark_col);
	/*
	 * A function's entry, in the second compile unit: of the rows GCC emits at that
	 * address ('{', then the body), the last one wins, as with addr2line/llvm-symbolizer.
	 */
	assert_int_equal(sc_sym(&sc, nm_addr("fixture_b_one"), l, 8), 1);
	expect_frame(l[0], "fixture_b_one", FIX_B, body, body_col);
	/* 0x prefix and upper case are accepted */
	{
		char req[64];

		snprintf(req, sizeof(req), "sym 0x%llX", nm_addr("fixture_mark_plain"));
		assert_int_equal(sc_req(&sc, req, strlen(req), l, 8), 1);
		expect_frame(l[0], "fixture_plain", FIX_C, mark, mark_col);
	}
	sc_stop(&sc);
}

static void test_source_globs(void **state)
{
	unsigned long long one = nm_addr("fixture_b_one"), two = nm_addr("fixture_b_two");
	struct sidecar sc;
	char l[16][512], want1[256], want2[256];
	int n, i, seen = 0;

	snprintf(want1, sizeof(want1), "0x%llx\tfixture_b_one\t" FIX_B, one);
	snprintf(want2, sizeof(want2), "0x%llx\tfixture_b_two\t" FIX_B, two);
	sc_start(&sc, fixture);

	n = sc_req(&sc, "glob " FIX_B, strlen("glob " FIX_B), l, 16);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++)
		seen |= (strcmp(l[i], want1) == 0) << 0 | (strcmp(l[i], want2) == 0) << 1;
	assert_int_equal(seen, 3);

	/* '?' is one character; '*' crosses '/' */
	assert_int_equal(sc_req(&sc, "glob *fixture_?.c", 17, l, 16), 2);
	n = sc_req(&sc, "glob tests/*.c", 14, l, 16);
	/* main, fixture_outer, fixture_plain, fixture_b_one/two, fixture_split(_report), fold x3 */
	assert_int_equal(n, 10);
	for (i = 0, seen = 0; i < n; i++)
		seen += strstr(l[i], "\tfixture_outer\t" FIX_C) != NULL;
	assert_int_equal(seen, 1);
	/* the always-inline helpers have no out-of-line copy: not listed */
	for (i = 0; i < n; i++)
		assert_null(strstr(l[i], "fixture_inner"));
	/* fixture.c declares fixture_b_one: defined in fixture_b.c, it is not fixture.c's */
	assert_int_equal(sc_req(&sc, "glob *fixture.c", 15, l, 16), 3);
	for (i = 0; i < 3; i++)
		assert_null(strstr(l[i], "fixture_b_"));
	assert_int_equal(sc_req(&sc, "glob [fixture", 13, l, 16), 0);
	assert_int_equal(sc_req(&sc, "glob kernel/bpf/*.c", 19, l, 16), 0);
	sc_stop(&sc);
}

/*
 * A function whose DWARF has no address (identical code folding, like the kernel's
 * btf_enum_log): listed by a source glob at its symbol's address, once.
 */
static void test_glob_folded_function(void **state)
{
	unsigned long long a = nm_addr("fixture_fold_a"), b = nm_addr("fixture_fold_b");
	unsigned long long log = nm_addr("fixture_fold_log");
	char l[8][512], want[3][256];
	struct sidecar sc;
	int i, k, seen = 0;

	snprintf(want[0], sizeof(want[0]), "0x%llx\tfixture_fold_log\t" FIX_F, log);
	snprintf(want[1], sizeof(want[1]), "0x%llx\tfixture_fold_a\t" FIX_F, a);
	snprintf(want[2], sizeof(want[2]), "0x%llx\tfixture_fold_b\t" FIX_F, b);
	sc_start(&sc, fixture);
	assert_int_equal(sc_req(&sc, "glob " FIX_F, strlen("glob " FIX_F), l, 8), 3);
	for (i = 0; i < 3; i++) {
		for (k = 0; k < 3; k++)
			seen |= (strcmp(l[i], want[k]) == 0) << k;
	}
	assert_int_equal(seen, 7);
	sc_stop(&sc);
}

/* A function in two parts (hot and .cold): its DWARF ranges come from a range list. */
static void test_split_function(void **state)
{
	int mark_col, mark = tag_line(FIX_S, "mark_cold", "asm", &mark_col);
	unsigned long long cold = nm_addr("fixture_mark_cold"), hot = nm_addr("fixture_split");
	struct sidecar sc;
	char l[8][512];

	sc_start(&sc, fixture);
	assert_int_equal(sc_sym(&sc, cold, l, 8), 1);
	expect_frame(l[0], "fixture_split", FIX_S, mark, mark_col);
	assert_int_equal(sc_sym(&sc, hot, l, 8), 1);
	assert_non_null(strstr(l[0], "fixture_split\t" FIX_S "\t"));
	sc_stop(&sc);
}

static void test_malformed_requests(void **state)
{
	static const struct {
		const char *req;
		int err;
	} cases[] = {
		{ "sym", -EINVAL },
		{ "sym xyz", -EINVAL },
		{ "sym 0x", -EINVAL },
		{ "sym 12g4", -EINVAL },
		{ "sym -1", -EINVAL },
		{ "sym 123456789abcdef01", -ERANGE },	/* more than 64 bits */
		{ "sym 0", -ERANGE },			/* not in any executable section */
		{ "sym ffffffffffffffff", -ERANGE },
		{ "", -EINVAL },
		{ "frob 1", -EINVAL },
		{ "glob", -EINVAL },
		{ "info please", -EINVAL },
	};
	char l[8][512], *big;
	struct sidecar sc;
	size_t i;

	sc_start(&sc, fixture);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = sc_req(&sc, cases[i].req, strlen(cases[i].req), l, 8);

		if (r != cases[i].err)
			fail_msg("'%s': got %d, want %d", cases[i].req, r, cases[i].err);
	}
	/* NUL byte inside a request, an over-long request */
	assert_int_equal(sc_req(&sc, "sym 11\0" "22", 9, l, 8), -EINVAL);
	big = malloc(100000);
	assert_non_null(big);
	memset(big, 'a', 100000);
	memcpy(big, "sym ", 4);
	assert_int_equal(sc_req(&sc, big, 100000, l, 8), -E2BIG);
	free(big);
	/* still in sync and working afterwards */
	assert_int_equal(sc_sym(&sc, nm_addr("fixture_mark_inner"), l, 8), 3);
	assert_int_equal(sc_req(&sc, "info", 4, l, 8), 4);
	assert_string_equal(l[0], "version\t1");
	assert_string_equal(l[2], "kernel\t0");
	assert_int_equal(sc_req(&sc, "quit", 4, l, 8), 0);
	sc_stop(&sc);
}

/* Offsets and sizes of the fixture's .debug_* sections, from readelf. */
static int debug_sections(const char *elf, unsigned long off[], unsigned long size[], int max)
{
	char cmd[512], line[512];
	int n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -SW -- '%s'", elf);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && n < max) {
		char *p = strstr(line, " .debug_");
		char name[64], type[64];
		unsigned long addr;

		if (p && sscanf(p, "%63s %63s %lx %lx %lx", name, type, &addr, &off[n], &size[n]) == 5 &&
		    size[n])
			n++;
	}
	pclose(f);
	return n;
}

/*
 * Corrupt DWARF (random bytes overwritten in the .debug_* sections, fixed seeds): every
 * request still gets one well-formed reply and the sanitized sidecar exits 0.
 */
static void test_corrupt_dwarf(void **state)
{
	static const char *syms[] = {
		"fixture_mark_inner", "fixture_mark_plain", "fixture_b_one", "fixture_b_two",
		"fixture_mark_cold", "fixture_split", "main",
	};
	unsigned long off[32], size[32], addrs[7];
	char path[] = "/tmp/sidecar-corrupt-XXXXXX", l[64][512];
	int nsec, fd, seed, i, k;
	size_t len;
	char *img;
	FILE *f;

	for (i = 0; i < 7; i++)
		addrs[i] = nm_addr(syms[i]);
	nsec = debug_sections(fixture, off, size, 32);
	assert_true(nsec >= 4);
	f = fopen(fixture, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	img = malloc(len);
	assert_non_null(img);
	assert_int_equal(fread(img, 1, len, f), len);
	fclose(f);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);

	for (seed = 1; seed <= 60; seed++) {
		char *bad = malloc(len);
		struct sidecar sc;

		assert_non_null(bad);
		memcpy(bad, img, len);
		srand(seed);
		for (k = 0, i = 1 + rand() % 40; k < i; k++) {
			int s = rand() % nsec;

			/* a quarter are newlines and tabs: they would break a reply's framing */
			bad[off[s] + rand() % size[s]] = rand() % 4 ? rand() & 0xff : "\n\t"[rand() % 2];
		}
		f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(bad, 1, len, f), len);
		fclose(f);
		free(bad);

		sc_start(&sc, path);
		for (i = 0; i < 7; i++) {
			for (k = 0; k < 4; k++) {
				int n = sc_sym(&sc, addrs[i] + k, l, 64);

				/* a reply line with a tab or newline too many would show here */
				for (int j = 0; j < n && j < 64; j++) {
					char *t1 = strchr(l[j], '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;

					assert_non_null(t2);
					assert_non_null(strchr(t2 + 1, '\t'));
				}
			}
		}
		sc_req(&sc, "glob *", 6, l, 64);
		sc_req(&sc, "glob tests/*", 12, l, 64);
		/* still in step: the last request is answered as itself */
		assert_int_equal(sc_req(&sc, "quit", 4, l, 64), 0);
		sc_stop(&sc);
	}
	unlink(path);
	free(img);
}

/* Read a whole file. */
static char *slurp(const char *path, size_t *len)
{
	char *img;
	FILE *f;

	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = ftell(f);
	rewind(f);
	img = malloc(*len);
	assert_non_null(img);
	assert_int_equal(fread(img, 1, *len, f), *len);
	fclose(f);
	return img;
}

/* Overwrite every 4-byte value of attribute @at (as readelf -wi shows them) with @val. */
static int patch_refs(char *img, unsigned long info_off, const char *at, unsigned int val)
{
	char cmd[512], line[512], *p;
	unsigned long off;
	int n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -wi -- '%s'", fixture);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, at);
		if (!p || (p[strlen(at)] != ' ' && p[strlen(at)] != ':') ||
		    sscanf(line, " <%lx>", &off) != 1)
			continue;
		memcpy(img + info_off + off, &val, 4);	/* DW_FORM_ref4 in both fixtures */
		n++;
	}
	pclose(f);
	return n;
}

/*
 * References that point past the end of the file: DW_AT_sibling is ignored (the scanner
 * descends instead, so the answers do not change), DW_AT_abstract_origin sends the DIE to
 * libdw. The scanner checks such offsets before making pointers of them (it used to add
 * them to the section's address first).
 */
static void test_refs_out_of_range(void **state)
{
	static const char *syms[] = {
		"fixture_mark_inner", "fixture_mark_plain", "fixture_b_one", "fixture_mark_cold",
	};
	char path[] = "/tmp/sidecar-refs-XXXXXX", want[4][8][512], l[8][512];
	unsigned long off[32], size[32], info_off = 0;
	int nsec, fd, i, k, n[4], m;
	const char *attrs[] = { "DW_AT_sibling", "DW_AT_abstract_origin" };
	char cmd[512], line[512];
	struct sidecar sc;
	size_t len;
	char *img;
	FILE *f;

	nsec = debug_sections(fixture, off, size, 32);
	snprintf(cmd, sizeof(cmd), "readelf -SW -- '%s'", fixture);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, " .debug_info ");
		char type[64];
		unsigned long addr;

		if (p)
			assert_int_equal(sscanf(p, " .debug_info %63s %lx %lx", type, &addr,
						&info_off), 3);
	}
	pclose(f);
	assert_true(nsec > 0 && info_off > 0);

	sc_start(&sc, fixture);
	for (i = 0; i < 4; i++)
		n[i] = sc_sym(&sc, nm_addr(syms[i]), want[i], 8);
	sc_stop(&sc);

	for (k = 0; k < 2; k++) {
		img = slurp(fixture, &len);
		assert_true(patch_refs(img, info_off, attrs[k], 0xfffffff0u) > 0);
		fd = mkstemp(path);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, img, len), (ssize_t)len);
		close(fd);
		free(img);

		sc_start(&sc, path);
		for (i = 0; i < 4; i++) {
			m = sc_sym(&sc, nm_addr(syms[i]), l, 8);
			if (k == 1) {
				/* the same frames; names through a broken origin may be lost */
				assert_int_equal(m, n[i]);
				continue;
			}
			assert_int_equal(m, n[i]);
			while (m--)
				assert_string_equal(l[m], want[i][m]);
		}
		assert_int_equal(sc_req(&sc, "quit", 4, l, 8), 0);
		sc_stop(&sc);
		unlink(path);
		strcpy(path, "/tmp/sidecar-refs-XXXXXX");
	}
}

static void test_unopenable_file(void **state)
{
	struct sidecar sc;
	char l[4][512];

	sc_start(&sc, "/nonexistent/vmlinux");
	assert_int_equal(sc_sym(&sc, 0x1000, l, 4), -ENOENT);
	assert_int_equal(sc_req(&sc, "glob *", 6, l, 4), -ENOENT);
	sc_stop(&sc);

	sc_start(&sc, SIDECAR_FIXTURE_DIR "/fixture.c");
	assert_int_equal(sc_sym(&sc, 0x1000, l, 4), -ENOEXEC);
	sc_stop(&sc);
}

struct glob_seen {
	unsigned long long one, two;
	int n, ok;
};

static int glob_cb(void *ctx, const char *func, __u64 addr, const char *file)
{
	struct glob_seen *g = ctx;

	g->n++;
	if (strcmp(file, FIX_B) == 0 &&
	    ((strcmp(func, "fixture_b_one") == 0 && addr == g->one) ||
	     (strcmp(func, "fixture_b_two") == 0 && addr == g->two)))
		g->ok++;
	return 0;
}

static int stop_cb(void *ctx, const char *func, __u64 addr, const char *file)
{
	return -ECANCELED;
}

/* The client module, running the sidecar embedded in this test binary from memory. */
static void test_client_embedded(void **state)
{
	int call_mid_col, call_mid = tag_line(FIX_C, "call_mid", "fixture_mid(", &call_mid_col);
	int mark_col, mark = tag_line(FIX_H, "mark_inner", "asm", &mark_col);
	struct glob_seen g = { nm_addr("fixture_b_one"), nm_addr("fixture_b_two") };
	struct addr2line_opts opts = { .sz = sizeof(opts) };
	struct addr2line_frame f[8];
	struct addr2line *a;

	assert_int_equal(addr2line__new(SIDECAR_FIXTURE, &opts, &a), 0);
	assert_true(addr2line__pid(a) > 0);
	assert_int_equal(addr2line__symbolize(a, nm_addr("fixture_mark_inner"), f, 8), 3);
	assert_string_equal(f[0].func, "fixture_outer");
	assert_string_equal(f[0].file, FIX_C);
	assert_int_equal(f[0].line, call_mid);
	assert_int_equal(f[0].col, call_mid_col);
	assert_string_equal(f[1].func, "fixture_mid");
	assert_string_equal(f[2].func, "fixture_inner");
	assert_int_equal(f[2].line, mark);
	assert_int_equal(f[2].col, mark_col);
	/* too few slots: the innermost frames are kept */
	assert_int_equal(addr2line__symbolize(a, nm_addr("fixture_mark_inner"), f, 2), 2);
	assert_string_equal(f[0].func, "fixture_mid");
	assert_string_equal(f[1].func, "fixture_inner");
	/* outside the code: nothing known, not an error */
	assert_int_equal(addr2line__symbolize(a, 0, f, 8), 0);

	assert_int_equal(addr2line__find_by_source_glob(a, "*/fixture_b.c", glob_cb, &g), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.ok, 2);
	assert_int_equal(addr2line__find_by_source_glob(a, "tests/*", stop_cb, NULL), -ECANCELED);
	assert_int_equal(addr2line__find_by_source_glob(a, "a\nb", glob_cb, &g), -EINVAL);
	/* still in sync after a callback stopped the walk early */
	assert_int_equal(addr2line__symbolize(a, nm_addr("fixture_mark_plain"), f, 8), 1);
	assert_string_equal(f[0].func, "fixture_plain");

	/* the sidecar dies mid-run: an error to degrade on, every time, no SIGPIPE */
	assert_int_equal(kill(addr2line__pid(a), SIGKILL), 0);
	assert_int_equal(addr2line__symbolize(a, nm_addr("fixture_mark_plain") + 1, f, 8), -EPIPE);
	assert_int_equal(addr2line__symbolize(a, nm_addr("fixture_mark_plain"), f, 8), -EPIPE);
	assert_int_equal(addr2line__find_by_source_glob(a, "*", glob_cb, &g), -EPIPE);
	addr2line__free(a);
}

static void test_client_errors(void **state)
{
	struct addr2line_opts opts = { .sz = sizeof(opts) };
	struct addr2line *a = (void *)1;

	assert_int_equal(addr2line__new("/nonexistent/vmlinux", &opts, &a), -ENOENT);
	assert_null(a);
	assert_int_equal(addr2line__new(SIDECAR_FIXTURE_DIR "/fixture.c", NULL, &a), -ENOEXEC);
	/* an explicit sidecar binary instead of the embedded one */
	opts.sidecar_path = SIDECAR_SAN;
	assert_int_equal(addr2line__new(SIDECAR_FIXTURE, &opts, &a), 0);
	addr2line__free(a);
	opts.sidecar_path = "/nonexistent/sidecar";
	assert_int_equal(addr2line__new(SIDECAR_FIXTURE, &opts, &a), -EPIPE);
}

/* The sidecar runs in a session (and so a process group) of its own. */
static void test_client_own_session(void **state)
{
	struct addr2line *a;
	pid_t pid;

	assert_int_equal(addr2line__new(SIDECAR_FIXTURE, NULL, &a), 0);
	pid = addr2line__pid(a);
	assert_int_equal(getsid(pid), pid);
	assert_int_equal(getpgid(pid), pid);
	assert_int_not_equal(getpgid(pid), getpgrp());
	addr2line__free(a);
}

static volatile sig_atomic_t got_sigint;

static void on_sigint(int sig)
{
	got_sigint++;
}

/*
 * Ctrl-C on a terminal signals the whole foreground process group: retsnoop's handler
 * runs, and the sidecar must not see it, so what is drained afterwards still gets lines.
 */
static void test_client_survives_group_sigint(void **state)
{
	unsigned long long addr = nm_addr("fixture_mark_inner");
	int status;
	pid_t child;

	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct addr2line_frame f[8];
		struct addr2line *a;

		setpgid(0, 0);	/* a group like a shell gives retsnoop */
		signal(SIGINT, on_sigint);
		if (addr2line__new(SIDECAR_FIXTURE, NULL, &a))
			_exit(10);
		kill(0, SIGINT);
		if (!got_sigint)
			_exit(11);
		if (addr2line__symbolize(a, addr, f, 8) != 3 || strcmp(f[2].func, "fixture_inner"))
			_exit(12);
		addr2line__free(a);
		_exit(0);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* waitpid() for at most @ms; fails the test if @pid is still running then. */
static void wait_exit(pid_t pid, int *status, int ms)
{
	pid_t r;

	while ((r = waitpid(pid, status, WNOHANG)) == 0 && ms > 0) {
		usleep(10 * 1000);
		ms -= 10;
	}
	if (r != pid)
		kill(pid, SIGKILL);
	assert_int_equal(r, pid);
}

/*
 * When the process that started it dies without a word, the sidecar dies too, even while
 * another process keeps its connection open (so no EOF tells it to exit).
 */
static void test_client_dies_with_parent(void **state)
{
	pid_t child, pids[2];	/* the sidecar, and a process holding its socket */
	int p[2], status;

	/* orphans come to us, so the sidecar's end can be waited for */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_int_equal(pipe(p), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct addr2line *a;

		if (addr2line__new(SIDECAR_FIXTURE, NULL, &a))
			_exit(10);
		pids[0] = addr2line__pid(a);
		pids[1] = fork();
		if (pids[1] == 0) {
			/* inherited the client's end of the socket; gone in 10 s whatever happens */
			close(1);
			close(2);
			alarm(10);
			pause();
			_exit(0);
		}
		if (write(p[1], pids, sizeof(pids)) != sizeof(pids))
			_exit(11);
		pause();	/* killed below, the sidecar still running */
		_exit(12);
	}
	close(p[1]);
	assert_int_equal(read(p[0], pids, sizeof(pids)), sizeof(pids));
	close(p[0]);
	assert_true(pids[1] > 0);
	assert_int_equal(kill(child, SIGKILL), 0);
	assert_int_equal(waitpid(child, &status, 0), child);
	/* reparented to us: killed by PR_SET_PDEATHSIG, its socket still open in pids[1] */
	wait_exit(pids[0], &status, 5000);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	assert_int_equal(kill(pids[1], SIGKILL), 0);
	assert_int_equal(waitpid(pids[1], &status, 0), pids[1]);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static volatile sig_atomic_t cancel_flag;
static struct addr2line *alarm_a2l;

static void on_alarm_flag(int sig)
{
	cancel_flag = 1;
}

static void on_alarm_interrupt(int sig)
{
	addr2line__interrupt(alarm_a2l);
}

static void alarm_in(int ms, void (*handler)(int))
{
	struct itimerval it = { .it_value = { .tv_sec = ms / 1000, .tv_usec = ms % 1000 * 1000 } };
	struct sigaction sa = { .sa_handler = handler, .sa_flags = SA_RESTART };

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
}

static void *flag_later(void *arg)
{
	usleep(100 * 1000);
	cancel_flag = 2;	/* no signal: the wait must notice by itself */
	return NULL;
}

/*
 * A slow reply (the stand-in sidecar takes a second per address) can be interrupted by
 * a flag a signal handler changes, by addr2line__interrupt() from a handler, and by a flag
 * changed without any signal; later calls skip the interrupted replies and work.
 */
static void test_client_interruptible(void **state)
{
	struct addr2line_opts opts = { .sz = sizeof(opts), .sidecar_path = SIDECAR_SLOW,
				       .cancel = &cancel_flag };
	struct addr2line_frame f[4];
	struct addr2line *a;
	pthread_t th;
	long long t0;

	cancel_flag = 0;
	assert_int_equal(addr2line__new("/dev/null", &opts, &a), 0);
	alarm_a2l = a;

	/* SIGINT-like: the handler sets the flag */
	alarm_in(100, on_alarm_flag);
	t0 = mono_ms();
	assert_int_equal(addr2line__symbolize(a, 0x1, f, 4), -EINTR);
	assert_true(mono_ms() - t0 < 500);

	/* the flag stays set: later calls are not interrupted, and get their own reply */
	assert_int_equal(addr2line__symbolize(a, 0x2, f, 4), 1);
	assert_string_equal(f[0].func, "slow_2");

	/* the handler calls addr2line__interrupt() */
	alarm_in(100, on_alarm_interrupt);
	t0 = mono_ms();
	assert_int_equal(addr2line__symbolize(a, 0x3, f, 4), -EINTR);
	assert_true(mono_ms() - t0 < 500);

	/* changed by another thread, no signal at all */
	assert_int_equal(pthread_create(&th, NULL, flag_later, NULL), 0);
	t0 = mono_ms();
	assert_int_equal(addr2line__symbolize(a, 0x4, f, 4), -EINTR);
	assert_true(mono_ms() - t0 < 500);
	pthread_join(th, NULL);

	/* two interrupted replies to skip, then this one's */
	assert_int_equal(addr2line__symbolize(a, 0x5, f, 4), 1);
	assert_string_equal(f[0].func, "slow_5");
	signal(SIGALRM, SIG_DFL);
	/* a pending reply would make free wait: it kills instead, so this is quick too */
	alarm_in(100, on_alarm_flag);
	cancel_flag = 0;
	assert_int_equal(addr2line__symbolize(a, 0x6, f, 4), -EINTR);
	t0 = mono_ms();
	addr2line__free(a);
	assert_true(mono_ms() - t0 < 500);
	signal(SIGALRM, SIG_DFL);
}

static void test_client_stats(void **state)
{
	struct addr2line_stats st;
	struct addr2line_frame f[8];
	struct addr2line *a;

	assert_int_equal(addr2line__new(SIDECAR_FIXTURE, NULL, &a), 0);
	assert_int_equal(addr2line__stats(a, &st), 0);
	assert_int_equal(st.requests, 0);
	assert_int_equal(st.cus_indexed, 0);
	assert_int_equal(addr2line__symbolize(a, nm_addr("fixture_mark_inner"), f, 8), 3);
	assert_int_equal(addr2line__symbolize(a, nm_addr("fixture_mark_inner"), f, 8), 3);
	assert_int_equal(addr2line__stats(a, &st), 0);
	assert_int_equal(st.requests, 2);
	assert_int_equal(st.cache_hits, 1);
	assert_int_equal(st.cus_indexed, 1);
	addr2line__free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inline_chain),
		cmocka_unit_test(test_plain_function),
		cmocka_unit_test(test_source_globs),
		cmocka_unit_test(test_glob_folded_function),
		cmocka_unit_test(test_split_function),
		cmocka_unit_test(test_corrupt_dwarf),
		cmocka_unit_test(test_refs_out_of_range),
		cmocka_unit_test(test_malformed_requests),
		cmocka_unit_test(test_unopenable_file),
		cmocka_unit_test(test_client_embedded),
		cmocka_unit_test(test_client_errors),
		cmocka_unit_test(test_client_own_session),
		cmocka_unit_test(test_client_survives_group_sigint),
		cmocka_unit_test(test_client_dies_with_parent),
		cmocka_unit_test(test_client_interruptible),
		cmocka_unit_test(test_client_stats),
	};
	const struct CMUnitTest dwarf4[] = {
		cmocka_unit_test(test_inline_chain),
		cmocka_unit_test(test_plain_function),
		cmocka_unit_test(test_source_globs),
		cmocka_unit_test(test_glob_folded_function),
		cmocka_unit_test(test_split_function),
		cmocka_unit_test(test_corrupt_dwarf),
		cmocka_unit_test(test_refs_out_of_range),
	};
	int failed;

	failed = cmocka_run_group_tests_name("sidecar", tests, NULL, NULL);
	fixture = SIDECAR_FIXTURE4;
	failed += cmocka_run_group_tests_name("sidecar-dwarf4", dwarf4, NULL, NULL);
	return failed;
}
