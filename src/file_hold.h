/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Files held open by their device and inode: a process's code opened through /proc while
 * it lives, so that its samples read after its exit still find the very files it mapped,
 * where the paths it saw name other files here, or none (a chroot, another mount
 * namespace). Bounded: past its size nothing more is held.
 */
#ifndef RETSNOOP_FILE_HOLD_H
#define RETSNOOP_FILE_HOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct file_hold;

/* Up to @max files (0: 512); NULL and errno on failure. */
struct file_hold *file_hold__new(size_t max);
void file_hold__free(struct file_hold *h);

/*
 * Hold @fd, which the call takes, as the file its fstat() names: 0, -EEXIST (that file is
 * held already), -ENOSPC (full) or -errno of fstat(); @fd is closed unless 0.
 */
int file_hold__add(struct file_hold *h, int fd);
/* A new descriptor of the held file with @dev and @ino (close it), or -ENOENT (@h NULL too). */
int file_hold__dup(const struct file_hold *h, dev_t dev, ino_t ino);
/* Whether the file with @dev and @ino is held (@h may be NULL: none is). */
bool file_hold__has(const struct file_hold *h, dev_t dev, ino_t ino);

#endif
