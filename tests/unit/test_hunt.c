// SPDX-License-Identifier: BSD-2-Clause
/* The whole-kernel hunt's defaults: which globs a command or -p without globs gets. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "unit.h"
#include "cli.h"
#include "hunt.h"

static int parse(struct env *env, int argc, char **argv)
{
	return cli__parse(argc, argv, env, NULL);
}

#define PARSE(env, ...) ({						\
	char *_argv[] = { (char *)"retsnoop", __VA_ARGS__, NULL };	\
	parse(env, sizeof(_argv) / sizeof(_argv[0]) - 1, _argv);	\
})

static void test_command_without_globs(void **state)
{
	unsigned int added;
	struct env env;

	assert_int_equal(PARSE(&env, "--", "ls"), 0);
	assert_int_equal(hunt__apply_defaults(&env, false, &added), 0);
	assert_int_equal(added, HUNT_ENTRIES | HUNT_ALLOW_ALL);
	assert_int_equal(env.entry_globs.cnt, 1);
	assert_string_equal(env.entry_globs.specs[0].name, hunt__entry_glob());
	/* an entry glob that matches nothing still stops the run */
	assert_true(env.entry_globs.specs[0].mandatory);
	assert_int_equal(env.allow_globs.cnt, 1);
	assert_string_equal(env.allow_globs.specs[0].name, "*");
	assert_false(env.allow_globs.specs[0].mandatory);
	env__free(&env);
}

/* A 32-bit command's syscalls enter the compat wrappers: they start sessions too */
static void test_compat_command(void **state)
{
	unsigned int added;
	struct env env;
	size_t i;

	assert_int_equal(PARSE(&env, "--", "./prog32"), 0);
	assert_int_equal(hunt__apply_defaults(&env, true, &added), 0);
	assert_int_equal(added, HUNT_ENTRIES | HUNT_COMPAT | HUNT_ALLOW_ALL);
	assert_true(env.entry_globs.cnt > 1);
	assert_string_equal(env.entry_globs.specs[0].name, hunt__entry_glob());
	assert_true(env.entry_globs.specs[0].mandatory);
	for (i = 1; i < env.entry_globs.cnt; i++) {
		char name[64];

		/* each a compat prefix: what it matches are syscall entries */
		snprintf(name, sizeof(name), "%.*sread",
			 (int)strlen(env.entry_globs.specs[i].name) - 1, env.entry_globs.specs[i].name);
		assert_true(hunt__is_syscall_entry(name));
		assert_string_not_equal(env.entry_globs.specs[i].name, hunt__entry_glob());
		/* a kernel without 32-bit emulation has none */
		assert_false(env.entry_globs.specs[i].mandatory);
	}
#if defined(__x86_64__)
	assert_int_equal(env.entry_globs.cnt, 4);
	assert_string_equal(env.entry_globs.specs[1].name, "__ia32_sys_*");
#endif
	env__free(&env);
}

static void test_entry_glob_per_arch(void **state)
{
#if defined(__aarch64__)
	assert_string_equal(hunt__entry_glob(), "__arm64_sys_*");
#else
	assert_string_equal(hunt__entry_glob(), "__x64_sys_*");
#endif
}

/*
 * FUNC_SYSCALL: the wrappers the syscall dispatch calls, native and compat; not the
 * inner functions they call (__se_sys_, __do_sys_, ksys_), which other kernel code may.
 */
static void test_syscall_entries(void **state)
{
#if defined(__aarch64__)
	assert_true(hunt__is_syscall_entry("__arm64_sys_read"));
	assert_true(hunt__is_syscall_entry("__arm64_compat_sys_ioctl"));
	assert_false(hunt__is_syscall_entry("__x64_sys_read"));
#else
	assert_true(hunt__is_syscall_entry("__x64_sys_read"));
	assert_true(hunt__is_syscall_entry("__ia32_sys_read"));
	assert_true(hunt__is_syscall_entry("__ia32_compat_sys_ioctl"));
	assert_true(hunt__is_syscall_entry("__x64_compat_sys_recvmsg"));
	assert_false(hunt__is_syscall_entry("__arm64_sys_read"));
#endif
	assert_false(hunt__is_syscall_entry("__se_sys_read"));
	assert_false(hunt__is_syscall_entry("__do_sys_read"));
	assert_false(hunt__is_syscall_entry("ksys_read"));
	assert_false(hunt__is_syscall_entry("x64_sys_call"));
	assert_false(hunt__is_syscall_entry(""));
}

/*
 * FUNC_EXIT_SYSCALL: exit() and exit_group(), the syscalls that never return (a session
 * still open in any other at its thread's exit lost its return, exit_cut.bpf.h)
 */
static void test_exit_syscalls(void **state)
{
#if defined(__aarch64__)
	assert_true(hunt__is_exit_syscall("__arm64_sys_exit"));
	assert_true(hunt__is_exit_syscall("__arm64_sys_exit_group"));
	assert_false(hunt__is_exit_syscall("__x64_sys_exit"));
#else
	assert_true(hunt__is_exit_syscall("__x64_sys_exit"));
	assert_true(hunt__is_exit_syscall("__x64_sys_exit_group"));
	assert_true(hunt__is_exit_syscall("__ia32_sys_exit"));
	assert_true(hunt__is_exit_syscall("__ia32_sys_exit_group"));
	assert_false(hunt__is_exit_syscall("__arm64_sys_exit"));
#endif
	assert_false(hunt__is_exit_syscall("__x64_sys_exit_group_x"));
	assert_false(hunt__is_exit_syscall("__x64_sys_exitx"));
	assert_false(hunt__is_exit_syscall("__x64_sys_execve"));
	assert_false(hunt__is_exit_syscall("do_exit"));
	assert_false(hunt__is_exit_syscall("do_group_exit"));
	assert_false(hunt__is_exit_syscall("__do_sys_exit_group"));
	assert_false(hunt__is_exit_syscall(""));
}

/* -p alone hunts too; -a given keeps the user's allow set, -d stays */
static void test_pid_and_partial_globs(void **state)
{
	unsigned int added;
	struct env env;

	assert_int_equal(PARSE(&env, "-p", "42", "-a", "vfs_*", "-d", "vfs_read"), 0);
	assert_int_equal(hunt__apply_defaults(&env, false, &added), 0);
	assert_int_equal(added, HUNT_ENTRIES);
	assert_int_equal(env.entry_globs.cnt, 1);
	assert_int_equal(env.allow_globs.cnt, 1);
	assert_string_equal(env.allow_globs.specs[0].name, "vfs_*");
	assert_int_equal(env.deny_globs.cnt, 1);
	env__free(&env);
}

/* globs given, or nothing to hunt for: nothing added */
/*
 * No kprobe.multi: the hunt's own '-a *' is taken back (the syscall entry points alone),
 * a user's -a never is.
 */
static void test_syscalls_only(void **state)
{
	unsigned int added;
	struct env env;

	assert_int_equal(PARSE(&env, "--", "ls"), 0);
	assert_int_equal(hunt__apply_defaults(&env, false, &added), 0);
	assert_int_equal(hunt__syscalls_only(&env, &added), 0);
	assert_int_equal(added, HUNT_ENTRIES | HUNT_SYSCALLS_ONLY);
	assert_int_equal(env.allow_globs.cnt, 0);
	assert_int_equal(env.entry_globs.cnt, 1);
	assert_string_equal(env.entry_globs.specs[0].name, hunt__entry_glob());
	/* twice: nothing left to take back */
	assert_int_equal(hunt__syscalls_only(&env, &added), -EINVAL);
	env__free(&env);

	assert_int_equal(PARSE(&env, "-p", "42", "-a", "*"), 0);
	assert_int_equal(hunt__apply_defaults(&env, false, &added), 0);
	assert_int_equal(added, HUNT_ENTRIES);
	assert_int_equal(hunt__syscalls_only(&env, &added), -EINVAL);
	assert_int_equal(env.allow_globs.cnt, 1);
	assert_string_equal(env.allow_globs.specs[0].name, "*");
	assert_int_equal(added, HUNT_ENTRIES);
	env__free(&env);
}

static void test_no_defaults(void **state)
{
	unsigned int added = 99;
	struct env env;

	assert_int_equal(PARSE(&env, "-e", "foo", "--", "ls"), 0);
	assert_int_equal(hunt__apply_defaults(&env, false, &added), 0);
	assert_int_equal(added, 0);
	assert_int_equal(env.entry_globs.cnt, 1);
	assert_int_equal(env.allow_globs.cnt, 0);
	env__free(&env);

	assert_int_equal(PARSE(&env, "-c", "bpf", "--", "ls"), 0);
	assert_int_equal(hunt__apply_defaults(&env, false, &added), 0);
	assert_int_equal(added, 0);
	env__free(&env);

	/* no command, no -p: today's "entry glob mandatory" error stays main's to say */
	assert_int_equal(PARSE(&env, "-a", "x"), 0);
	assert_int_equal(hunt__apply_defaults(&env, false, &added), 0);
	assert_int_equal(added, 0);
	assert_int_equal(env.entry_globs.cnt, 0);
	env__free(&env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_without_globs),
		cmocka_unit_test(test_compat_command),
		cmocka_unit_test(test_entry_glob_per_arch),
		cmocka_unit_test(test_syscall_entries),
		cmocka_unit_test(test_exit_syscalls),
		cmocka_unit_test(test_pid_and_partial_globs),
		cmocka_unit_test(test_syscalls_only),
		cmocka_unit_test(test_no_defaults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
