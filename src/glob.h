/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Function selection globs: `*` and `?` matching, the "GLOB [MODGLOB]" and ":PATHGLOB" spec
 * forms of -e/-a/-d, and @FILE lists.
 */
#ifndef RETSNOOP_GLOB_H
#define RETSNOOP_GLOB_H

#include <stdbool.h>
#include <stddef.h>

/* Longest name or module glob kept; longer ones are truncated, as upstream does. */
#define GLOB_MAX_LEN 127

/*
 * Anchored match of @str against @glob: `*` is any run of characters (also empty), `?` is
 * exactly one character, everything else is literal.
 */
bool glob__match(const char *glob, const char *str);

enum glob_kind {
	GLOB_NAME,		/* function name glob, optionally with a module glob */
	GLOB_SRC_PATH,		/* ":kernel/bpf/...": functions defined in matching sources */
};

struct glob_spec {
	char *name;		/* function name glob, or the source path glob */
	char *mod;		/* module glob, NULL: vmlinux and every module */
	enum glob_kind kind;
	bool mandatory;		/* an entry glob that must match something */
};

/*
 * Parse one spec: "GLOB", "GLOB [MODGLOB]" (the blank is optional) or ":PATHGLOB".
 * Errors: -EINVAL empty glob, -EOPNOTSUPP the glob "**", -EBADMSG a malformed module part
 * ("foo [", "foo []", "foo [m] x").
 */
int glob_spec__parse(const char *arg, struct glob_spec *spec);
void glob_spec__free(struct glob_spec *spec);

/* Does function @name of module @mod (NULL: vmlinux) match @spec (a GLOB_NAME spec)? */
bool glob_spec__match(const struct glob_spec *spec, const char *name, const char *mod);

/* "name" or "name [mod]" for messages; returns @buf. */
const char *glob_spec__str(const struct glob_spec *spec, char *buf, size_t buf_sz);

/* A growable list of specs. Zero-initialised is empty. */
struct glob_list {
	struct glob_spec *specs;
	size_t cnt;
	size_t cap;
};

/* Take ownership of @spec's strings (on success). */
int glob_list__push(struct glob_list *list, struct glob_spec *spec);
void glob_list__free(struct glob_list *list);

/*
 * Call @cb for each whitespace-separated token of file @path (the @FILE form of -e/-a/-d,
 * -n/-N and -J). Stops at and returns the first non-zero @cb result; -errno if unreadable.
 */
int glob__for_each_file_token(const char *path, int (*cb)(const char *tok, void *ctx),
			      void *ctx);

#endif
