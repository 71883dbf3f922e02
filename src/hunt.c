// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "glob.h"
#include "hunt.h"

/*
 * The syscall wrappers that take the registers: what every syscall enters first, native
 * ones and compat ones (32-bit processes). They never nest (missed_exit.bpf.h's
 * FUNC_SYSCALL rule); a glob-less hunt starts sessions at the native ones, and at the
 * compat ones too for a 32-bit command (its every syscall enters one of those: without
 * them it had no session at all). Attached as single kprobes (no kprobe.multi), the
 * compat ones would double the hunt's attach and release for every other command.
 */
#if defined(__aarch64__)
#define NATIVE_SYSCALL_PREFIX "__arm64_sys_"
#define COMPAT_SYSCALL_PREFIXES "__arm64_compat_sys_"
#else
#define NATIVE_SYSCALL_PREFIX "__x64_sys_"
#define COMPAT_SYSCALL_PREFIXES "__ia32_sys_", "__ia32_compat_sys_", "__x64_compat_sys_"
#endif

const char *hunt__entry_glob(void)
{
	return NATIVE_SYSCALL_PREFIX "*";
}

/* The syscall's name in entry wrapper @name ("openat"), or NULL if it is none */
static const char *syscall_of(const char *name)
{
	static const char *const prefixes[] = { NATIVE_SYSCALL_PREFIX, COMPAT_SYSCALL_PREFIXES };
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return name + strlen(prefixes[i]);
	return NULL;
}

bool hunt__is_syscall_entry(const char *name)
{
	return syscall_of(name) != NULL;
}

bool hunt__is_exit_syscall(const char *name)
{
	const char *sc = syscall_of(name);

	return sc && (strcmp(sc, "exit") == 0 || strcmp(sc, "exit_group") == 0);
}

static int push(struct glob_list *l, const char *glob, bool mandatory)
{
	struct glob_spec spec;
	int err;

	err = glob_spec__parse(glob, &spec);
	if (err)
		return err;
	spec.mandatory = mandatory;
	err = glob_list__push(l, &spec);
	if (err)
		glob_spec__free(&spec);
	return err;
}

int hunt__apply_defaults(struct env *env, bool compat, unsigned int *added)
{
	static const char *const compat_prefixes[] = { COMPAT_SYSCALL_PREFIXES };
	char glob[64];
	size_t i;
	int err;

	*added = 0;
	if (env->entry_globs.cnt || (!env->cmd_argv && !env->allow_pid_cnt))
		return 0;
	err = push(&env->entry_globs, hunt__entry_glob(), true);
	if (err)
		return err;
	*added |= HUNT_ENTRIES;
	/* a kernel without 32-bit emulation has none of them: not mandatory */
	for (i = 0; compat && i < sizeof(compat_prefixes) / sizeof(compat_prefixes[0]); i++) {
		snprintf(glob, sizeof(glob), "%s*", compat_prefixes[i]);
		err = push(&env->entry_globs, glob, false);
		if (err)
			return err;
		*added |= HUNT_COMPAT;
	}
	if (env->allow_globs.cnt)
		return 0;
	err = push(&env->allow_globs, "*", false);
	if (!err)
		*added |= HUNT_ALLOW_ALL;
	return err;
}

int hunt__syscalls_only(struct env *env, unsigned int *added)
{
	struct glob_list *l = &env->allow_globs;

	/* hunt__apply_defaults() only adds '-a *' to an empty allow list: it is the one spec */
	if (!(*added & HUNT_ALLOW_ALL) || l->cnt != 1 || strcmp(l->specs[0].name, "*") != 0)
		return -EINVAL;
	glob_spec__free(&l->specs[0]);
	l->cnt = 0;
	*added = (*added & ~HUNT_ALLOW_ALL) | HUNT_SYSCALLS_ONLY;
	return 0;
}
