// SPDX-License-Identifier: BSD-2-Clause
/*
 * Globs (src/glob.c). Input: a spec line ("GLOB", "GLOB [MODGLOB]", ":PATHGLOB"), then
 * candidate lines "NAME" or "NAME<TAB>MODULE". The spec parses or is refused with a
 * documented error; glob__match() agrees with a straightforward dynamic-programming
 * matcher on every glob/name pair; glob_spec__match() agrees with its two halves.
 */
#include <errno.h>
#include <stdbool.h>
#include "fuzz.h"
#include "glob.h"

/* Lines longer than this are cut, so the reference matcher's table stays small. */
#define MAX_LINE 256

/* Reference: m[i][j] = glob[i:] matches str[j:]. */
static bool ref_match(const char *g, const char *s)
{
	size_t gl = strlen(g), sl = strlen(s), i, j;
	bool *m = calloc((gl + 1) * (sl + 1), sizeof(*m)), res;

	if (!m)
		abort();
#define M(i, j) m[(i) * (sl + 1) + (j)]
	M(gl, sl) = true;
	for (i = gl; i-- > 0;) {
		for (j = sl + 1; j-- > 0;) {
			if (g[i] == '*')
				M(i, j) = M(i + 1, j) || (j < sl && M(i, j + 1));
			else
				M(i, j) = j < sl && (g[i] == '?' || g[i] == s[j]) && M(i + 1, j + 1);
		}
	}
	res = M(0, 0);
#undef M
	free(m);
	return res;
}

static void check_match(const char *g, const char *s)
{
	FUZZ_CHECK(glob__match(g, s) == ref_match(g, s));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_strdup(data, size), *line, *next, *tab, str[GLOB_MAX_LEN * 2 + 16];
	struct glob_spec spec;
	struct glob_list list = {};
	bool have_spec;
	int err;

	next = strchr(buf, '\n');
	if (next)
		*next++ = '\0';
	err = glob_spec__parse(buf, &spec);
	FUZZ_CHECK(!err || err == -EINVAL || err == -EOPNOTSUPP || err == -EBADMSG);
	have_spec = !err;
	if (have_spec) {
		FUZZ_CHECK(spec.name && spec.name[0]);
		FUZZ_CHECK(spec.kind != GLOB_NAME || strlen(spec.name) <= GLOB_MAX_LEN);
		FUZZ_CHECK(!spec.mod || (spec.kind == GLOB_NAME && strlen(spec.mod) <= GLOB_MAX_LEN));
		glob_spec__str(&spec, str, sizeof(str));
		glob_spec__str(&spec, str, 4);		/* truncation */
	}

	for (line = next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strlen(line) > MAX_LINE)
			line[MAX_LINE] = '\0';
		tab = strchr(line, '\t');
		if (tab)
			*tab++ = '\0';
		/* the line's parts as globs against each other, then the spec against them */
		check_match(line, tab ? tab : line);
		if (tab)
			check_match(tab, line);
		if (have_spec && spec.kind == GLOB_NAME) {
			bool want = glob__match(spec.name, line) &&
				    (!spec.mod || (tab && glob__match(spec.mod, tab)));

			FUZZ_CHECK(glob_spec__match(&spec, line, tab) == want);
		}
	}

	if (have_spec) {
		FUZZ_CHECK(glob_list__push(&list, &spec) == 0);
		FUZZ_CHECK(!spec.name && !spec.mod);	/* the list owns them now */
		glob_list__free(&list);
	}
	free(buf);
	return 0;
}
