// SPDX-License-Identifier: BSD-2-Clause
/*
 * tracefs available_filter_functions parser (src/ftrace_funcs.c): any text parses or fails
 * cleanly; every entry is a non-empty name without blanks, never an unresolved placeholder.
 * And its image (src/ftrace_funcs_image.c): a parsed list written as an image opens as the
 * same entries; the input itself as an image (the magic put in front) opens with every
 * entry's strings inside the file, or is refused.
 */
#include <fcntl.h>
#include "fuzz.h"
#include "ftrace_funcs.h"

static const char magic[8] = "RSAFF\0\0\1";

static char path[64];

static void remove_image(void)
{
	unlink(path);
}

/* The per-process file the images go through, removed at exit */
static const char *image_path(void)
{
	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/retsnoop-fuzz-aff.%d", (int)getpid());
		atexit(remove_image);
	}
	return path;
}

static void roundtrip(const struct ftrace_funcs *ff)
{
	FILE *f = fopen(image_path(), "w");
	struct ftrace_funcs *got;
	size_t i;

	FUZZ_CHECK(f);
	FUZZ_CHECK(ftrace_funcs__write_image(ff, f) == 0);
	FUZZ_CHECK(fclose(f) == 0);
	got = ftrace_funcs__open(image_path());
	FUZZ_CHECK(got && ftrace_funcs__cnt(got) == ftrace_funcs__cnt(ff));
	for (i = 0; i < ftrace_funcs__cnt(ff); i++) {
		const struct ftrace_func *a = ftrace_funcs__get(ff, i);
		const char *name = a->name, *mod = a->module;
		const struct ftrace_func *b = ftrace_funcs__get(got, i);

		FUZZ_CHECK(strcmp(name, b->name) == 0);
		FUZZ_CHECK(!mod == !b->module && (!mod || strcmp(mod, b->module) == 0));
	}
	ftrace_funcs__free(got);
}

/* @data behind the magic, as an image: refused, or every string ends inside the file */
static void as_image(const uint8_t *data, size_t size)
{
	FILE *f = fopen(image_path(), "w");
	const char *lo, *hi;
	struct ftrace_funcs *ff;
	size_t i;

	FUZZ_CHECK(f);
	fwrite(magic, sizeof(magic), 1, f);
	fwrite(data, 1, size, f);
	FUZZ_CHECK(fclose(f) == 0);
	ff = ftrace_funcs__open(image_path());
	if (!ff)
		return;
	for (i = 0; i < ftrace_funcs__cnt(ff); i++) {
		const struct ftrace_func *e = ftrace_funcs__get(ff, i);

		FUZZ_CHECK(e && e->name);
		/* read to their NULs: ASan or a fault would catch a string beyond the map */
		lo = e->name;
		hi = lo + strlen(lo);
		FUZZ_CHECK(hi >= lo);
		if (e->module)
			FUZZ_CHECK(strlen(e->module) < 1u << 31);
	}
	FUZZ_CHECK(!ftrace_funcs__get(ff, ftrace_funcs__cnt(ff)));
	ftrace_funcs__free(ff);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ftrace_funcs *ff = ftrace_funcs__parse((const char *)data, size);
	size_t i, cnt;

	as_image(data, size);
	if (!ff)
		return 0;
	cnt = ftrace_funcs__cnt(ff);
	FUZZ_CHECK(!ftrace_funcs__get(ff, cnt));
	for (i = 0; i < cnt; i++) {
		const struct ftrace_func *f = ftrace_funcs__get(ff, i);

		FUZZ_CHECK(f && f->name[0]);
		FUZZ_CHECK(!strpbrk(f->name, " \t\n"));
		FUZZ_CHECK(strncmp(f->name, "__ftrace_invalid_address___", 27) != 0);
		FUZZ_CHECK(!f->module || !strpbrk(f->module, "]\n"));
	}
	roundtrip(ff);
	ftrace_funcs__free(ff);
	return 0;
}
