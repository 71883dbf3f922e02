// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <string.h>
#include "glob.h"
#include "hunt.h"

/*
 * The syscall wrappers that take the registers: what every syscall of a native process
 * enters first. Compat entries (__ia32_sys_*, __arm64_compat_sys_*) serve 32-bit
 * processes only, which a glob-less hunt leaves to -e.
 */
#if defined(__aarch64__)
#define SYSCALL_ENTRY_GLOB "__arm64_sys_*"
#else
#define SYSCALL_ENTRY_GLOB "__x64_sys_*"
#endif

const char *hunt__entry_glob(void)
{
	return SYSCALL_ENTRY_GLOB;
}

bool hunt__is_syscall_entry(const char *name)
{
	static const char *const prefixes[] = {
#if defined(__aarch64__)
		"__arm64_sys_", "__arm64_compat_sys_",
#else
		"__x64_sys_", "__ia32_sys_", "__ia32_compat_sys_", "__x64_compat_sys_",
#endif
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
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

int hunt__apply_defaults(struct env *env, unsigned int *added)
{
	int err;

	*added = 0;
	if (env->entry_globs.cnt || (!env->cmd_argv && !env->allow_pid_cnt))
		return 0;
	err = push(&env->entry_globs, SYSCALL_ENTRY_GLOB, true);
	if (err)
		return err;
	*added |= HUNT_ENTRIES;
	if (env->allow_globs.cnt)
		return 0;
	err = push(&env->allow_globs, "*", false);
	if (!err)
		*added |= HUNT_ALLOW_ALL;
	return err;
}
