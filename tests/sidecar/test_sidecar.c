// SPDX-License-Identifier: BSD-2-Clause
/*
 * The symbolization sidecar (its sanitized build, over pipes) against a fixture built at
 * test time with -g -O2: exact functions, file:line:col and inline chains, source-path
 * globs, malformed requests, corrupt DWARF. The client is tested in test_client.c.
 * Addresses come from the fixture's own symbols (nm), line numbers from @tags in its sources.
 * The symbolization tests run on the fixture built with DWARF 5 and again with DWARF 4
 * (range lists, line-table headers and string forms differ).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "unit.h"
#include "fixture_util.h"

/* the fixture binary the symbolization tests run on */
static const char *fixture = SIDECAR_FIXTURE;

#define nm_addr(sym) nm_addr_in(fixture, sym)

struct sidecar {
	pid_t pid;
	FILE *in;	/* our requests */
	FILE *out;	/* its replies */
};

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
	assert_string_equal(l[0], "version\t2");
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
