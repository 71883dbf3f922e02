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

static const char *const err_rule_names[] = {
	[GLOB_ERR_DEFAULT] = "default",
	[GLOB_ERR_ERRNO_POS] = "errno-positive",
	[GLOB_ERR_LE0] = "le0",
	[GLOB_ERR_FALSE] = "false",
	[GLOB_ERR_NEVER] = "never",
};

const char *glob_err_rule__str(enum glob_err_rule rule)
{
	return (unsigned int)rule < sizeof(err_rule_names) / sizeof(err_rule_names[0]) ?
	       err_rule_names[rule] : "?";
}

static int parse_err_rule(const char *s, enum glob_err_rule *rule)
{
	size_t i;

	for (i = 0; i < sizeof(err_rule_names) / sizeof(err_rule_names[0]); i++) {
		if (strcmp(s, err_rule_names[i]) == 0) {
			*rule = i;
			return 0;
		}
	}
	return -ENOMSG;
}

/*
 * A bracket naming user space: a path ("./prog", "/usr/lib/x.so") or a shared library's
 * file name (glob) with ".so" followed by its end, a version or a star.
 */
static enum glob_image classify_image(const char *s, size_t len)
{
	const char *p;

	if (memchr(s, '/', len))
		return GLOB_IMAGE_PATH;
	for (p = s; p + 3 <= s + len; p++) {
		if (memcmp(p, ".so", 3) != 0)
			continue;
		if (p + 3 == s + len || p[3] == '.' || p[3] == '*')
			return GLOB_IMAGE_LIB;
	}
	return GLOB_IMAGE_NONE;
}

/* Split "BODY =RULE": the rule must follow a blank or the closing bracket. */
static int split_rule(const char *arg, size_t *body_len, enum glob_err_rule *rule)
{
	const char *eq = strrchr(arg, '=');
	size_t len;

	*rule = GLOB_ERR_DEFAULT;
	*body_len = strlen(arg);
	if (!eq || eq == arg || !(eq[-1] == ' ' || eq[-1] == '\t' || eq[-1] == ']'))
		return 0;
	if (parse_err_rule(eq + 1, rule))
		return -ENOMSG;
	len = eq - arg;
	while (len && (arg[len - 1] == ' ' || arg[len - 1] == '\t'))
		len--;
	*body_len = len;
	/* explicit "=default" still marks a rule as given: only user globs may have one */
	return 1;
}

/* ":PATHGLOB [IMAGE]": the bracket is split off only when it names user space. */
static int parse_src(const char *body, size_t len, struct glob_spec *spec)
{
	const char *lb = NULL, *p;
	size_t name_len = len;
	int err;

	if (len && body[len - 1] == ']') {
		for (p = body + len - 1; p > body; p--) {
			if (*p == '[') {
				lb = p;
				break;
			}
		}
	}
	if (lb && lb + 1 < body + len - 1 &&
	    classify_image(lb + 1, body + len - 1 - (lb + 1)) != GLOB_IMAGE_NONE) {
		spec->image_kind = classify_image(lb + 1, body + len - 1 - (lb + 1));
		spec->image = strndup(lb + 1, body + len - 1 - (lb + 1));
		if (!spec->image)
			return -ENOMEM;
		name_len = lb - body;
		while (name_len && (body[name_len - 1] == ' ' || body[name_len - 1] == '\t'))
			name_len--;
	}
	spec->kind = GLOB_SRC_PATH;
	spec->name = strndup(body, name_len);
	if (!spec->name)
		return -ENOMEM;
	err = check_glob(spec->name);
	return err;
}

static int parse_name(const char *body, size_t len, struct glob_spec *spec)
{
	const char *lb, *rb, *p, *end = body + len;
	size_t name_len;
	int err;

	/* name runs up to the first blank or '['; then optional blanks and "[MOD]" */
	for (name_len = 0; name_len < len; name_len++)
		if (strchr(" \t[", body[name_len]))
			break;
	p = body + name_len;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && *p != '[')
		return -EBADMSG;	/* "foo bar": a second word that is not a module glob */
	lb = p < end ? p : NULL;
	rb = NULL;
	if (lb) {
		rb = memchr(lb, ']', end - lb);
		if (!rb || rb == lb + 1 || rb + 1 != end)
			return -EBADMSG;
		if (memchr(lb + 1, '[', rb - lb - 1))
			return -EBADMSG;
		if (name_len == 0)
			return -EINVAL;
	}

	spec->kind = GLOB_NAME;
	spec->name = dup_trunc(body, name_len);
	if (!spec->name)
		return -ENOMEM;
	err = check_glob(spec->name);
	if (err || !lb)
		return err;
	spec->image_kind = classify_image(lb + 1, rb - lb - 1);
	if (spec->image_kind != GLOB_IMAGE_NONE) {
		/* a path is not truncated: a shortened one would name another file */
		spec->image = strndup(lb + 1, rb - lb - 1);
		return spec->image ? check_glob(spec->image) : -ENOMEM;
	}
	spec->mod = dup_trunc(lb + 1, rb - lb - 1);
	return spec->mod ? check_glob(spec->mod) : -ENOMEM;
}

int glob_spec__parse(const char *arg, struct glob_spec *spec)
{
	enum glob_err_rule rule;
	size_t len;
	int err, has_rule;

	memset(spec, 0, sizeof(*spec));
	has_rule = split_rule(arg, &len, &rule);
	if (has_rule < 0)
		return has_rule;
	if (len == 0)
		return -EINVAL;
	if (arg[0] == ':') {
		if (len == 1)
			return -EINVAL;
		err = parse_src(arg + 1, len - 1, spec);
	} else {
		err = parse_name(arg, len, spec);
	}
	if (!err && has_rule && !glob_spec__is_user(spec))
		err = -ENOMSG;
	if (err) {
		glob_spec__free(spec);
		return err;
	}
	spec->err_rule = rule;
	return 0;
}

void glob_spec__free(struct glob_spec *spec)
{
	free(spec->name);
	free(spec->mod);
	free(spec->image);
	spec->name = spec->mod = spec->image = NULL;
}

bool glob_spec__match(const struct glob_spec *spec, const char *name, const char *mod)
{
	if (spec->kind != GLOB_NAME || glob_spec__is_user(spec))
		return false;
	if (spec->mod && (!mod || !glob__match(spec->mod, mod)))
		return false;
	return glob__match(spec->name, name);
}

bool glob_spec__match_image(const struct glob_spec *spec, const char *path)
{
	const char *base;

	switch (spec->image_kind) {
	case GLOB_IMAGE_PATH:
		return strcmp(spec->image, path) == 0;
	case GLOB_IMAGE_LIB:
		base = strrchr(path, '/');
		return glob__match(spec->image, base ? base + 1 : path);
	default:
		return false;
	}
}

const char *glob_spec__str(const struct glob_spec *spec, char *buf, size_t buf_sz)
{
	if (glob_spec__is_user(spec))
		snprintf(buf, buf_sz, "%s%s [%s]%s%s", spec->kind == GLOB_SRC_PATH ? ":" : "",
			 spec->name, spec->image, spec->err_rule ? " =" : "",
			 spec->err_rule ? glob_err_rule__str(spec->err_rule) : "");
	else if (spec->kind == GLOB_SRC_PATH)
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
