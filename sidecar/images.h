/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The user-space images a sidecar holds open: each a binary or shared library handed over
 * as a descriptor, optionally with a separate debug file (found by the client through the
 * build ID or .gnu_debuglink) that is only used when its build ID (or, without one, the
 * debuglink CRC) matches. Addresses come in as file offsets of the mapped file.
 */
#ifndef __SIDECAR_IMAGES_H
#define __SIDECAR_IMAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolizer.h"

/* Open images at most; each holds a descriptor and an mmap. */
#define MAX_IMAGES 4096

struct images;

struct image_info {
	const uint8_t *build_id;	/* NULL if none */
	size_t build_id_len;
	const char *debuglink;		/* .gnu_debuglink name, NULL if none */
	bool dwarf;			/* DWARF of its own, or from the attached debug file */
	bool symtab;			/* a full .symtab (its own or the debug file's) */
	bool debug_file;		/* a separate debug file is attached */
};

struct images *images__new(const struct symbolizer_opts *opts);
void images__free(struct images *im);

/*
 * Open @fd (owned from now on, closed even on failure) as a new image named @path (the
 * client's path for it, for images__find()): *id >= 1.
 */
int images__open(struct images *im, int fd, const char *path, int *id);
int images__close(struct images *im, int id);
/* -ENOENT: no such image. */
int images__info(struct images *im, int id, struct image_info *info);

/*
 * Attach the debug file @fd (owned) to image @id. -ESTALE: its build ID (or CRC) does not
 * match; -ENOKEY: the image has neither to check it against; -ENODATA: it has no DWARF;
 * -EEXIST: one is attached already.
 */
int images__attach_debug(struct images *im, int id, int fd);

/*
 * The function symbol covering file offset @off of image @id: its name, how far @off's
 * address is into it, and its size (0: unknown). 0 with *name NULL if none covers it;
 * -ERANGE if @off is not loaded code.
 */
int images__sym(struct images *im, int id, uint64_t off, const char **name, uint64_t *delta,
		uint64_t *size);
/*
 * The image opened under @path, or else (@path NULL or not found) the one whose build ID is
 * @build_id (@len bytes; NULL: none): its id, -ENOENT if none. For code that is told about
 * files by name (libdwfl's find_elf callback): the sidecar cannot open files itself.
 */
int images__find(struct images *im, const char *path, const uint8_t *build_id, size_t len);

/*
 * The descriptor of image @id's binary (borrowed: dup() it to hand it to a library that
 * closes what it gets, such as libdwfl); -ENOENT if there is no such image.
 */
int images__fd(struct images *im, int id);

/* Source frames of file offset @off (symbolizer__symbolize()'s answer). */
int images__lines(struct images *im, int id, uint64_t off, struct src_frame *frames, int max);

#endif /* __SIDECAR_IMAGES_H */
