// SPDX-License-Identifier: BSD-2-Clause
/*
 * The sidecar's own DIE scanner against libdw's walker, and its own line-table decoder
 * against libdw's (differential): all must give identical frames (function, file, line,
 * column, inline chain) for every address of the test fixtures, and for a sample of
 * addresses of the Debian 6.12 DWARF vmlinux when the kernel cache has it
 * (tests/vm/fetch-kernel 6.12 --dbg); without it that test is SKIPPED, never passed.
 * Also the abbreviation compiler's limits, on synthetic tables.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <gelf.h>

#include "unit.h"
#include "abbrev.h"
#include "symbolizer.h"

/* Addresses of the vmlinux sample: random offsets into random function symbols. */
#define VMLINUX_SAMPLE 20000

/* The symbolizer with the own decoders, then libdw's DIE walker, then libdw's line tables. */
#define NWAYS 3
static const char *const way_names[NWAYS] = { "own", "libdw walker", "libdw lines" };

struct walkers {
	struct symbolizer *s[NWAYS];
	unsigned long addrs, frames, differ[NWAYS];
};

static void walkers_open(struct walkers *w, const char *elf)
{
	struct symbolizer_opts o = { .sz = sizeof(o) };

	memset(w, 0, sizeof(*w));
	w->s[0] = symbolizer__open(elf, &o);
	assert_non_null(w->s[0]);
	o.libdw_dies = true;
	w->s[1] = symbolizer__open(elf, &o);
	assert_non_null(w->s[1]);
	o.libdw_dies = false;
	o.libdw_lines = true;
	w->s[2] = symbolizer__open(elf, &o);
	assert_non_null(w->s[2]);
}

static void walkers_close(struct walkers *w)
{
	int i;

	for (i = 0; i < NWAYS; i++)
		symbolizer__close(w->s[i]);
}

static void print_frames(const char *who, const struct src_frame *f, int n)
{
	int i;

	fprintf(stderr, "  %s: %d frame(s)\n", who, n);
	for (i = 0; i < n; i++)
		fprintf(stderr, "    %s\t%s\t%d\t%d\n", f[i].func, f[i].file, f[i].line, f[i].col);
}

static bool same_frames(const struct src_frame *a, int na, const struct src_frame *b, int nb)
{
	int i;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++) {
		if (strcmp(a[i].func, b[i].func) || strcmp(a[i].file, b[i].file) ||
		    a[i].line != b[i].line || a[i].col != b[i].col)
			return false;
	}
	return true;
}

/* Symbolize @addr every way; a difference is printed (the first few) and counted. */
static void compare(struct walkers *w, uint64_t addr)
{
	struct src_frame f[NWAYS][SYMB_MAX_FRAMES];
	int n[NWAYS], i;

	for (i = 0; i < NWAYS; i++)
		n[i] = symbolizer__symbolize(w->s[i], addr, f[i], SYMB_MAX_FRAMES);
	w->addrs++;
	if (n[0] > 0)
		w->frames += n[0];
	for (i = 1; i < NWAYS; i++) {
		if (same_frames(f[0], n[0], f[i], n[i]))
			continue;
		if (w->differ[i]++ < 5) {
			fprintf(stderr, "%s and %s differ at 0x%llx:\n", way_names[0], way_names[i],
				(unsigned long long)addr);
			print_frames(way_names[0], f[0], n[0]);
			print_frames(way_names[i], f[i], n[i]);
		}
	}
}

static void report(const struct walkers *w, const char *what)
{
	fprintf(stderr, "%s: %lu addresses, %lu frames; differ from the own decoders: "
		"libdw walker %lu, libdw lines %lu\n", what, w->addrs, w->frames, w->differ[1],
		w->differ[2]);
	assert_int_equal(w->differ[1], 0);
	assert_int_equal(w->differ[2], 0);
}

/* Executable sections of @elf: their address ranges. */
static int exec_ranges(const char *elf, uint64_t lo[], uint64_t hi[], int max)
{
	Elf_Scn *scn = NULL;
	int fd, n = 0;
	Elf *e;

	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	fd = open(elf, O_RDONLY);
	assert_true(fd >= 0);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(e);
	while ((scn = elf_nextscn(e, scn)) && n < max) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR))
			continue;
		lo[n] = sh.sh_addr;
		hi[n++] = sh.sh_addr + sh.sh_size;
	}
	elf_end(e);
	close(fd);
	return n;
}

/* Every byte of the fixture's code: a few thousand addresses. */
static void check_fixture(const char *elf)
{
	uint64_t lo[16], hi[16], a;
	struct walkers w;
	int n, i;

	n = exec_ranges(elf, lo, hi, 16);
	assert_true(n > 0);
	walkers_open(&w, elf);
	for (i = 0; i < n; i++) {
		for (a = lo[i]; a < hi[i]; a++)
			compare(&w, a);
	}
	walkers_close(&w);
	/* the fixture's functions, with inlined frames, must be among them */
	assert_true(w.frames > w.addrs / 2);
	report(&w, strrchr(elf, '/') + 1);
}

static void test_fixture_dwarf5(void **state)
{
	check_fixture(SIDECAR_FIXTURE);
}

static void test_fixture_dwarf4(void **state)
{
	check_fixture(SIDECAR_FIXTURE4);
}

/* The 6.12 DWARF vmlinux of the kernel cache (the layout of tests/vm/fetch-kernel). */
static bool find_vmlinux(char *path, size_t sz, char *where, size_t wsz)
{
	const char *cache = getenv("RETSNOOP_CACHE"), *xdg = getenv("XDG_CACHE_HOME");
	char dir[512];
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (cache)
		snprintf(dir, sizeof(dir), "%s/kernels", cache);
	else if (xdg)
		snprintf(dir, sizeof(dir), "%s/retsnoop/kernels", xdg);
	else
		snprintf(dir, sizeof(dir), "%s/.cache/retsnoop/kernels", getenv("HOME") ?: "");
	snprintf(where, wsz, "%s/6.12.*/vmlinux", dir);
	d = opendir(dir);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (strncmp(de->d_name, "6.12.", 5) != 0)
			continue;
		snprintf(path, sz, "%s/%s/vmlinux", dir, de->d_name);
		found = access(path, R_OK) == 0;
	}
	closedir(d);
	return found;
}

struct func_sym {
	uint64_t addr, size;
};

/* Function symbols with a size, from the ELF symbol table. */
static size_t func_syms(const char *elf, struct func_sym **out)
{
	struct func_sym *syms = NULL;
	size_t n = 0, cap = 0;
	Elf_Scn *scn = NULL;
	int fd;
	Elf *e;

	fd = open(elf, O_RDONLY);
	assert_true(fd >= 0);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(e);
	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		assert_non_null(data);
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;

			if (!gelf_getsym(data, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_size || sym.st_shndx == SHN_UNDEF)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 4096;
				syms = realloc(syms, cap * sizeof(*syms));
				assert_non_null(syms);
			}
			syms[n++] = (struct func_sym){ sym.st_value, sym.st_size };
		}
	}
	elf_end(e);
	close(fd);
	*out = syms;
	return n;
}

static void test_vmlinux_sample(void **state)
{
	char path[1024], where[600];
	struct func_sym *syms;
	uint64_t seed = 1;
	struct walkers w;
	size_t n, i;

	if (!find_vmlinux(path, sizeof(path), where, sizeof(where))) {
		printf("SKIP: no DWARF vmlinux at %s: the scanner-vs-libdw check on a real kernel "
		       "did not run (tests/vm/fetch-kernel 6.12 --dbg fetches it)\n", where);
		skip();
	}
	n = func_syms(path, &syms);
	assert_true(n > 10000);
	walkers_open(&w, path);
	for (i = 0; i < VMLINUX_SAMPLE; i++) {
		const struct func_sym *f;

		/* a fixed LCG: the same addresses every run */
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		f = &syms[(seed >> 33) % n];
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		compare(&w, f->addr + (seed >> 33) % f->size);
	}
	walkers_close(&w);
	free(syms);
	assert_true(w.frames > w.addrs);	/* inline chains: more frames than addresses */
	report(&w, path);
}

/*
 * An abbreviation whose constant-size values add up past the 24-bit step argument: once
 * the coalesced skip carried into the step kind. Now the sizes split across steps or, past
 * MAX_STEPS, the abbreviation is read value by value; either way the skip is exact.
 */
static void check_big_abbrev(uint32_t nattr, bool with_string)
{
	struct scan u = { .offsz = 4, .addrsz = 8, .version = 5 };
	uint64_t *specs = calloc(3 * (nattr + 1), sizeof(*specs));
	size_t total = (size_t)nattr * 16 + (with_string ? 2 : 0);
	unsigned char *die = calloc(total + 1, 1);
	struct abbrev a = { .tag = DW_TAG_variable };
	struct scan r;
	uint32_t i, k = 0;

	assert_non_null(specs);
	assert_non_null(die);
	if (with_string) {
		/* a variable-size value first: the DIE cannot be skipped as a whole */
		specs[k++] = DW_AT_name;
		specs[k++] = DW_FORM_string;
		specs[k++] = 0;
		die[0] = 'x';
	}
	for (i = 0; i < nattr; i++) {
		specs[k++] = DW_AT_const_value;
		specs[k++] = DW_FORM_data16;
		specs[k++] = 0;
	}
	a.nspec = k / 3;
	abbrev__layout(&a, specs, &u);
	r = (struct scan){ die, die + total + 1, 4, 8, 5, false };
	if (a.fixed >= 0) {
		assert_int_equal(a.fixed, total);
	} else if (a.nstep) {
		for (i = 0; i < a.nstep; i++) {
			uint32_t kind = a.steps[i] >> STEP_SHIFT;

			assert_true(kind == STEP_SKIP || kind == STEP_STRING);
		}
		abbrev__run_steps(&r, &a);
		assert_false(r.bad);
		assert_ptr_equal(r.p, die + total);
	} else {
		/* read value by value, as the scanner does for such a DIE */
		uint64_t ref;

		for (i = 0; i < a.nspec; i++)
			assert_int_equal(sc_form(&r, specs[3 * i + 1], &ref), 0);
		assert_ptr_equal(r.p, die + total);
	}
	free(specs);
	free(die);
}

static void test_abbrev_skip_limit(void **state)
{
	/* just below, at and above 2^24 bytes of constant-size values */
	check_big_abbrev(STEP_ARG_MAX / 16, true);
	check_big_abbrev(STEP_ARG_MAX / 16 + 1, true);
	check_big_abbrev(2 * (STEP_ARG_MAX / 16) + 2, true);
	/* all constant: fixed size up to the limit, variable (stepped) beyond it */
	check_big_abbrev(STEP_ARG_MAX / 16, false);
	check_big_abbrev(STEP_ARG_MAX / 16 + 1, false);
}

/*
 * symbolizer_opts follow the extensible-opts rule (src/opts.h): an older caller's smaller
 * struct (heap-allocated to its exact size, so ASan sees a read past it), a newer one's
 * with a zero tail and NULL are accepted; a non-zero unknown tail is refused.
 */
static void test_opts_sizes(void **state)
{
	size_t sizes[] = { sizeof(size_t), sizeof(struct symbolizer_opts),
			   sizeof(struct symbolizer_opts) + 16 };
	struct symbolizer *s;
	unsigned char *o;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		o = calloc(1, sizes[i]);
		assert_non_null(o);
		memcpy(o, &sizes[i], sizeof(size_t));
		s = symbolizer__open(SIDECAR_FIXTURE, (void *)o);
		assert_non_null(s);
		symbolizer__close(s);
		if (sizes[i] > sizeof(struct symbolizer_opts)) {
			o[sizes[i] - 1] = 1;
			assert_null(symbolizer__open(SIDECAR_FIXTURE, (void *)o));
			assert_int_equal(errno, EINVAL);
		}
		free(o);
	}
	s = symbolizer__open(SIDECAR_FIXTURE, NULL);
	assert_non_null(s);
	symbolizer__close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opts_sizes),
		cmocka_unit_test(test_abbrev_skip_limit),
		cmocka_unit_test(test_fixture_dwarf5),
		cmocka_unit_test(test_fixture_dwarf4),
		cmocka_unit_test(test_vmlinux_sample),
	};

	return cmocka_run_group_tests_name("sidecar-walkers", tests, NULL, NULL);
}
