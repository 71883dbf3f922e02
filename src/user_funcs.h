/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Discovery of the user-space functions a run traces: each "GLOB [IMAGE]" of -e/-a/-d
 * resolved to its binaries or libraries (user_images), their functions read once per
 * image (elf_funcs) and matched by any of their names; deny globs win. The result is a
 * table of struct func (FUNC_USER set, image and file offset filled in) that the caller
 * appends to the kernel's, so user function ids follow the kernel ones.
 */
#ifndef RETSNOOP_USER_FUNCS_H
#define RETSNOOP_USER_FUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include "func.h"
#include "func_discovery.h"
#include "glob.h"
#include "log.h"

struct user_funcs_opts {
	size_t sz;
	int pid;		/* the traced process: its maps find libraries (0: none) */
	const char *binary;	/* the traced program's binary: its RUNPATH (NULL: none) */
	log_print_fn print;
	bool arg_types;		/* -A: functions' parameters from DWARF (struct func's btf) */
	/*
	 * Leave functions whose first instruction the kernel refuses to its own verdict at
	 * attach (skipped then, at the cost of a refused link each) instead of skipping them
	 * here: tests compare the two
	 */
	bool kernel_judges_code;
};

struct user_funcs;

struct user_funcs *user_funcs__new(const struct user_funcs_opts *opts);
void user_funcs__free(struct user_funcs *uf);

/* Add a user-space glob (glob_spec__is_user()); the spec is copied. */
int user_funcs__add_glob(struct user_funcs *uf, enum func_glob_role role,
			 const struct glob_spec *spec);
/* How many globs were added (0: the run traces no user space). */
size_t user_funcs__glob_cnt(const struct user_funcs *uf);

/*
 * Discover. Returns 0, or a negative errno after one line at LOG_WARN that says what is
 * wrong and what to try: -ENOENT a missing image or a glob that matches no function of
 * its image (a source glob: or an image without DWARF), -EOPNOTSUPP a Go binary (return
 * probes corrupt Go's stacks), another errno for an image that can't be read. Functions of
 * images with DWARF get their return type's error rule (user_dwarf).
 */
int user_funcs__run(struct user_funcs *uf);

/* The functions found, in the order of images and offsets; borrowed until free. */
const struct func *user_funcs__funcs(const struct user_funcs *uf);
size_t user_funcs__cnt(const struct user_funcs *uf);
/* How many distinct images they are in. */
size_t user_funcs__image_cnt(const struct user_funcs *uf);

#endif
