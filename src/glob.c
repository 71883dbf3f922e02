// SPDX-License-Identifier: BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "glob.h"

bool glob__match(const char *glob, const char *str)
{
	const char *star_g = NULL, *star_s = NULL;

	/*
	 * Greedy scan remembering the last `*`: on a mismatch, let that star swallow one more
	 * character and retry. Only the last star ever needs to backtrack, so this is linear in
	 * practice and never recursive.
	 */
	while (*str) {
		if (*glob == '*') {
			while (*glob == '*')
				glob++;
			if (!*glob)
				return true;
			star_g = glob;
			star_s = str;
			continue;
		}
		if (*glob == '?' || *glob == *str) {
			glob++;
			str++;
			continue;
		}
		if (!star_g)
			return false;
		glob = star_g;
		str = ++star_s;
	}
	while (*glob == '*')
		glob++;
	return *glob == '\0';
}

static char *dup_trunc(const char *s, size_t len)
{
	if (len > GLOB_MAX_LEN)
		len = GLOB_MAX_LEN;
	return strndup(s, len);
}

static int check_glob(const char *g)
{
	if (!g[0])
		return -EINVAL;
	if (strcmp(g, "**") == 0)
		return -EOPNOTSUPP;
	return 0;
}

int glob_spec__parse(const char *arg, struct glob_spec *spec)
{
	const char *lb, *rb, *p;
	size_t name_len;
	int err;

	memset(spec, 0, sizeof(*spec));

	if (arg[0] == ':') {
		err = check_glob(arg + 1);
		if (err)
			return err;
		spec->kind = GLOB_SRC_PATH;
		spec->name = strdup(arg + 1);
		return spec->name ? 0 : -ENOMEM;
	}

	/* name runs up to the first blank or '['; then optional blanks and "[MOD]" */
	name_len = strcspn(arg, " \t[");
	p = arg + name_len;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p && *p != '[')
		return -EBADMSG;	/* "foo bar": a second word that is not a module glob */
	lb = *p == '[' ? p : NULL;
	if (lb) {
		rb = strchr(lb, ']');
		if (!rb || rb == lb + 1 || rb[1])
			return -EBADMSG;
		if (memchr(lb + 1, '[', rb - lb - 1))
			return -EBADMSG;
		if (name_len == 0)
			return -EINVAL;
	}

	spec->kind = GLOB_NAME;
	spec->name = dup_trunc(arg, name_len);
	if (!spec->name)
		return -ENOMEM;
	err = check_glob(spec->name);
	if (err)
		goto err_out;
	if (lb) {
		spec->mod = dup_trunc(lb + 1, rb - lb - 1);
		if (!spec->mod) {
			err = -ENOMEM;
			goto err_out;
		}
		err = check_glob(spec->mod);
		if (err)
			goto err_out;
	}
	return 0;

err_out:
	glob_spec__free(spec);
	return err;
}

void glob_spec__free(struct glob_spec *spec)
{
	free(spec->name);
	free(spec->mod);
	spec->name = spec->mod = NULL;
}

bool glob_spec__match(const struct glob_spec *spec, const char *name, const char *mod)
{
	if (spec->kind != GLOB_NAME)
		return false;
	if (spec->mod && (!mod || !glob__match(spec->mod, mod)))
		return false;
	return glob__match(spec->name, name);
}

const char *glob_spec__str(const struct glob_spec *spec, char *buf, size_t buf_sz)
{
	if (spec->kind == GLOB_SRC_PATH)
		snprintf(buf, buf_sz, ":%s", spec->name);
	else if (spec->mod)
		snprintf(buf, buf_sz, "%s [%s]", spec->name, spec->mod);
	else
		snprintf(buf, buf_sz, "%s", spec->name);
	return buf;
}

int glob_list__push(struct glob_list *list, struct glob_spec *spec)
{
	if (list->cnt == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 8;
		struct glob_spec *specs = realloc(list->specs, cap * sizeof(*specs));

		if (!specs)
			return -ENOMEM;
		list->specs = specs;
		list->cap = cap;
	}
	list->specs[list->cnt++] = *spec;
	memset(spec, 0, sizeof(*spec));
	return 0;
}

void glob_list__free(struct glob_list *list)
{
	size_t i;

	for (i = 0; i < list->cnt; i++)
		glob_spec__free(&list->specs[i]);
	free(list->specs);
	memset(list, 0, sizeof(*list));
}

int glob__for_each_file_token(const char *path, int (*cb)(const char *tok, void *ctx),
			      void *ctx)
{
	char *line = NULL, *tok, *save;
	size_t line_sz = 0;
	FILE *f;
	int err = 0;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &line_sz, f) > 0) {
		for (tok = strtok_r(line, " \t\r\n\v\f", &save); tok;
		     tok = strtok_r(NULL, " \t\r\n\v\f", &save)) {
			err = cb(tok, ctx);
			if (err)
				goto out;
		}
	}
	if (ferror(f))
		err = -EIO;
out:
	free(line);
	fclose(f);
	return err;
}
