/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers of the sidecar tests: the fixture's sources (tests/sidecar/fixture/), symbol
 * addresses from nm, line numbers from @tags in the sources.
 */
#ifndef RETSNOOP_TESTS_SIDECAR_FIXTURE_UTIL_H
#define RETSNOOP_TESTS_SIDECAR_FIXTURE_UTIL_H

#include <stdio.h>
#include <string.h>

#include "unit.h"

#define FIX_C "tests/sidecar/fixture/fixture.c"
#define FIX_H "tests/sidecar/fixture/fixture_inl.h"
#define FIX_B "tests/sidecar/fixture/fixture_b.c"
#define FIX_S "tests/sidecar/fixture/fixture_split.c"
#define FIX_F "tests/sidecar/fixture/fixture_fold.c"

/* Address of symbol @sym of the ELF file @elf, from nm; fails the test if there is none. */
static inline unsigned long long nm_addr_in(const char *elf, const char *sym)
{
	char cmd[512], line[512], name[256], type;
	unsigned long long addr, found = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm -- '%s'", elf);
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
static inline int tag_line(const char *file, const char *tag, const char *word, int *col)
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

#endif
