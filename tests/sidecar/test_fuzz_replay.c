// SPDX-License-Identifier: BSD-2-Clause
/*
 * The sidecar's fuzz targets (sidecar/fuzz/) without libFuzzer, under ASan/UBSan: every
 * seed of tests/fuzz/sidecar-<name>/ and every crash input kept in
 * tests/sidecar/fuzz-regressions/<name>/ must run through without a report or a broken
 * reply (which aborts).
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"
#include "fuzz_sidecar.h"

/* Run @fn on every file of @dir; how many there were (0 if there is no such directory). */
static int replay_dir(const char *dir, int (*fn)(const uint8_t *, size_t))
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[1024];
		uint8_t *buf;
		size_t len;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "rb");
		assert_non_null(f);
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		rewind(f);
		buf = malloc(len ? len : 1);
		assert_non_null(buf);
		assert_int_equal(fread(buf, 1, len, f), len);
		fclose(f);
		fn(buf, len);
		free(buf);
		n++;
	}
	closedir(d);
	return n;
}

static void replay(const char *name, int (*fn)(const uint8_t *, size_t))
{
	char dir[1024];
	int seeds, crashes;

	snprintf(dir, sizeof(dir), "%s/sidecar-%s", SIDECAR_FUZZ_SEEDS, name);
	seeds = replay_dir(dir, fn);
	snprintf(dir, sizeof(dir), "%s/%s", SIDECAR_FUZZ_REGRESSIONS, name);
	crashes = replay_dir(dir, fn);
	fprintf(stderr, "fuzz target %s: %d seeds, %d crash inputs replayed\n", name, seeds, crashes);
	assert_true(seeds > 0);
}

static void test_request(void **state)
{
	replay("request", fuzz_request);
}

static void test_elf(void **state)
{
	replay("elf", fuzz_elf);
}

static void test_dwarf(void **state)
{
	replay("dwarf", fuzz_dwarf);
}

static void test_unwind(void **state)
{
	replay("unwind", fuzz_unwind);
}

static void test_image(void **state)
{
	replay("image", fuzz_image);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_elf),
		cmocka_unit_test(test_dwarf),
		cmocka_unit_test(test_unwind),
		cmocka_unit_test(test_image),
	};

	return cmocka_run_group_tests_name("sidecar-fuzz-replay", tests, NULL, NULL);
}
