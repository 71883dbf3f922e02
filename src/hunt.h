/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The whole-kernel hunt: what retsnoop traces when it is given a command (`-- CMD`) or a
 * process (-p) and no globs. Sessions start at the architecture's syscall entry points and
 * record every traceable kernel function, so the first answer to "why does this command
 * fail" needs no knowledge of which subsystem failed.
 */
#ifndef RETSNOOP_HUNT_H
#define RETSNOOP_HUNT_H

#include <stdbool.h>
#include "env.h"

/* The syscall entry glob of the architecture retsnoop was built for ("__x64_sys_*"). */
const char *hunt__entry_glob(void);

/*
 * Is @name one of vmlinux's syscall entry wrappers, native or compat, of the architecture
 * retsnoop was built for? Only the syscall dispatch calls them (one per syscall, never
 * nested): FUNC_SYSCALL.
 */
bool hunt__is_syscall_entry(const char *name);

/*
 * Is @name the entry wrapper of exit() or exit_group() (hunt__is_syscall_entry()), the
 * syscalls that never return: FUNC_EXIT_SYSCALL.
 */
bool hunt__is_exit_syscall(const char *name);

/* What hunt__apply_defaults() added. */
enum hunt_defaults {
	HUNT_ENTRIES	= 0x1,		/* the syscall entry glob */
	HUNT_ALLOW_ALL	= 0x2,		/* every traceable function */
	HUNT_SYSCALLS_ONLY = 0x4,	/* HUNT_ALLOW_ALL taken back: hunt__syscalls_only() */
	HUNT_COMPAT	= 0x8,		/* the compat syscall entry globs too */
};

/*
 * Fill in the hunt's globs where @env has none: the syscall entries when no -e/-c gave
 * any (the compat ones too if @compat: a 32-bit command), everything (-a '*') when no -a
 * did either; -d stays the user's. Only for a command or -p; *@added gets enum
 * hunt_defaults flags. 0 or a negative errno.
 */
int hunt__apply_defaults(struct env *env, bool compat, unsigned int *added);

/*
 * Take back the '-a *' that hunt__apply_defaults() added (HUNT_ALLOW_ALL in *@added):
 * the hunt then traces the syscall entry points alone, for kernels that can't attach the
 * whole kernel at once (no kprobe.multi). *@added gets HUNT_SYSCALLS_ONLY instead.
 * 0, or -EINVAL when there was no such glob to take back.
 */
int hunt__syscalls_only(struct env *env, unsigned int *added);

#endif
