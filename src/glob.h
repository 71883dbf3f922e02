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

/*
 * What the bracket names. A user image can never be read as a kernel module name: module
 * names have neither '/' nor '.', so "[./prog]", "[/usr/bin/x]" and "[libssl.so*]" are
 * free for user space and every existing "[MODGLOB]" keeps its meaning.
 */
enum glob_image {
	GLOB_IMAGE_NONE,	/* kernel: vmlinux and modules (mod says which) */
	GLOB_IMAGE_PATH,	/* user binary or library by path: it contains a '/' */
	GLOB_IMAGE_LIB,		/* shared library by file name glob: "lib*.so*" */
};

/*
 * When a user function's result is an error ("GLOB [IMAGE] =RULE"). Kernel functions
 * have one rule (the errno range, NULL, ERR_PTR) and take no override.
 */
enum glob_err_rule {
	GLOB_ERR_DEFAULT,	/* by the DWARF return type: negative or NULL; never for
				 * void, bool and unsigned types */
	GLOB_ERR_ERRNO_POS,	/* "=errno-positive": non-zero is an errno (pthreads) */
	GLOB_ERR_LE0,		/* "=le0": zero or negative */
	GLOB_ERR_FALSE,		/* "=false": zero (bool false, NULL, 0 items) */
	GLOB_ERR_NEVER,		/* "=never": no result is an error */
};

struct glob_spec {
	char *name;		/* function name glob, or the source path glob */
	char *mod;		/* module glob, NULL: vmlinux and every module */
	char *image;		/* user image path or library glob, NULL: kernel */
	enum glob_kind kind;
	enum glob_image image_kind;
	enum glob_err_rule err_rule;
	bool mandatory;		/* an entry glob that must match something */
};

/*
 * Parse one spec: "GLOB", "GLOB [MODGLOB]" (the blank is optional), ":PATHGLOB", or for
 * user space "GLOB [IMAGE]" and ":PATHGLOB [IMAGE]", optionally followed by " =RULE"
 * (errno-positive, le0, false, never, default).
 * Errors: -EINVAL empty glob, -EOPNOTSUPP the glob "**", -EBADMSG a malformed module part
 * ("foo [", "foo []", "foo [m] x"), -ENOMSG an unknown rule or a rule on a kernel glob.
 */
int glob_spec__parse(const char *arg, struct glob_spec *spec);
void glob_spec__free(struct glob_spec *spec);

/* Does function @name of module @mod (NULL: vmlinux) match @spec (a GLOB_NAME spec)? */
bool glob_spec__match(const struct glob_spec *spec, const char *name, const char *mod);

/* Is @spec a user-space glob (it names a binary or library)? */
static inline bool glob_spec__is_user(const struct glob_spec *spec)
{
	return spec->image_kind != GLOB_IMAGE_NONE;
}

/* Does user image @path (a binary or library file) match @spec's image? */
bool glob_spec__match_image(const struct glob_spec *spec, const char *path);

/* The rule's name as written after '=' ("default" for GLOB_ERR_DEFAULT). */
const char *glob_err_rule__str(enum glob_err_rule rule);

/* "name", "name [mod]" or "name [image] =rule" for messages; returns @buf. */
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
