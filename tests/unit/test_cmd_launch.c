// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmd_launch: the command of `retsnoop -- CMD`, held before exec and released. Real
 * processes (/bin/sh) on the host: holding, releasing, exit statuses, signals, exec
 * failures, PATH search and -u.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <sys/stat.h>
#include "unit.h"
#include "cmd_launch.h"

static char dir[] = "/tmp/test_cmd_launch.XXXXXX";
static char marker[256];

static int setup(void **state)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(marker, sizeof(marker), "%s/ran", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

/* Held means held: nothing of CMD runs until release, then it runs and its code is kept. */
static void test_held_until_release(void **state)
{
	char script[512];
	char *argv[] = { (char *)"sh", (char *)"-c", script, NULL };
	struct cmd_launch *c;

	unlink(marker);
	snprintf(script, sizeof(script), "echo x > '%s'; exit 3", marker);
	assert_int_equal(cmd_launch__new(argv, NULL, &c), 0);
	assert_true(cmd_launch__pid(c) > 0);
	assert_int_equal(cmd_launch__wait(c, 200), 0);
	assert_false(exists(marker));
	assert_int_equal(cmd_launch__exit_code(c), -1);
	assert_int_equal(cmd_launch__wstatus(c), -1);

	assert_int_equal(cmd_launch__release(c), 0);
	assert_int_equal(cmd_launch__release(c), -EALREADY);
	assert_int_equal(cmd_launch__wait(c, -1), 1);
	assert_true(exists(marker));
	assert_int_equal(cmd_launch__exit_code(c), 3);
	assert_int_equal(cmd_launch__term_signal(c), 0);
	/* reaped once, asked again: the same answer */
	assert_int_equal(cmd_launch__wait(c, 0), 1);
	assert_int_equal(cmd_launch__kill(c, SIGTERM), 0);
	cmd_launch__free(c);
}

/*
 * The exit descriptor: not readable while CMD is held, readable once it has exited, and
 * CMD reapable at that moment (retsnoop's loop looks once per wake-up); one descriptor per
 * launch; none once CMD is reaped.
 */
static void test_exit_fd(void **state)
{
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)"exit 5", NULL };
	struct cmd_launch *c;
	struct pollfd p = { .events = POLLIN };

	assert_int_equal(cmd_launch__new(argv, NULL, &c), 0);
	p.fd = cmd_launch__exit_fd(c);
	if (p.fd == -ENOSYS) {
		cmd_launch__free(c);
		skip();	/* a kernel before 5.3: reported as skipped, never as passed */
	}
	assert_true(p.fd >= 0);
	assert_int_equal(poll(&p, 1, 0), 0);
	assert_int_equal(cmd_launch__release(c), 0);
	/* the bound only keeps a broken build from hanging the tests */
	assert_int_equal(poll(&p, 1, 10000), 1);
	assert_true(p.revents & POLLIN);
	assert_int_equal(cmd_launch__wait(c, 0), 1);
	assert_int_equal(cmd_launch__exit_code(c), 5);
	assert_int_equal(cmd_launch__exit_fd(c), p.fd);
	cmd_launch__free(c);

	assert_int_equal(cmd_launch__new(argv, NULL, &c), 0);
	assert_int_equal(cmd_launch__release(c), 0);
	assert_int_equal(cmd_launch__wait(c, -1), 1);
	assert_int_equal(cmd_launch__exit_fd(c), -ESRCH);
	cmd_launch__free(c);
}

/* Freed before release: killed and reaped, CMD never ran. */
static void test_free_unreleased(void **state)
{
	char script[512];
	char *argv[] = { (char *)"sh", (char *)"-c", script, NULL };
	struct cmd_launch *c;
	pid_t pid;

	unlink(marker);
	snprintf(script, sizeof(script), "echo x > '%s'", marker);
	assert_int_equal(cmd_launch__new(argv, NULL, &c), 0);
	pid = cmd_launch__pid(c);
	cmd_launch__free(c);
	/* reaped: no such process any more */
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	assert_false(exists(marker));
}

/* A signal's end is 128+N, the shell's way; cmd_launch__kill() reaches CMD. */
static void test_signals(void **state)
{
	char *self_kill[] = { (char *)"sh", (char *)"-c", (char *)"kill -SEGV $$", NULL };
	char *sleeper[] = { (char *)"sleep", (char *)"30", NULL };
	struct cmd_launch *c;

	assert_int_equal(cmd_launch__new(self_kill, NULL, &c), 0);
	assert_int_equal(cmd_launch__release(c), 0);
	assert_int_equal(cmd_launch__wait(c, -1), 1);
	assert_int_equal(cmd_launch__term_signal(c), SIGSEGV);
	assert_int_equal(cmd_launch__exit_code(c), 128 + SIGSEGV);
	cmd_launch__free(c);

	assert_int_equal(cmd_launch__new(sleeper, NULL, &c), 0);
	assert_int_equal(cmd_launch__release(c), 0);
	assert_int_equal(cmd_launch__wait(c, 50), 0);
	assert_int_equal(cmd_launch__kill(c, SIGINT), 0);
	assert_int_equal(cmd_launch__wait(c, 5000), 1);
	assert_int_equal(cmd_launch__exit_code(c), 128 + SIGINT);
	cmd_launch__free(c);
}

/* What can't run is refused before forking, with the errno that says why. */
static void test_not_runnable(void **state)
{
	char path[512], *argv[] = { path, NULL };
	char *missing[] = { (char *)"no-such-command-retsnoop-test", NULL };
	char *empty[] = { NULL };
	struct cmd_launch_opts o = { .sz = sizeof(o), .path = dir };
	struct cmd_launch *c = (void *)1;

	assert_int_equal(cmd_launch__new(missing, NULL, &c), -ENOENT);
	assert_null(c);
	assert_int_equal(cmd_launch__new(empty, NULL, &c), -EINVAL);

	snprintf(path, sizeof(path), "%s/noexec", dir);
	write_file(path, "#!/bin/sh\nexit 0\n", 0644);
	assert_int_equal(cmd_launch__new(argv, NULL, &c), -EACCES);
	/* found only as not executable in PATH: EACCES too, as execvp() says */
	argv[0] = (char *)"noexec";
	assert_int_equal(cmd_launch__new(argv, &o, &c), -EACCES);
	/* a directory is no command */
	argv[0] = dir;
	assert_int_equal(cmd_launch__new(argv, NULL, &c), -EACCES);
	snprintf(path, sizeof(path), "%s/nothere", dir);
	argv[0] = path;
	assert_int_equal(cmd_launch__new(argv, NULL, &c), -ENOENT);
}

/* Found and executable, but the kernel refuses it: the exec's errno, status 127. */
static void test_exec_failure(void **state)
{
	char path[512], *argv[] = { path, NULL };
	struct cmd_launch *c;

	snprintf(path, sizeof(path), "%s/garbage", dir);
	/* no #! line and no ELF header: ENOEXEC (execv, unlike the shell, tries nothing else) */
	write_file(path, "\x01\x02 not a program\n", 0755);
	assert_int_equal(cmd_launch__new(argv, NULL, &c), 0);
	assert_int_equal(cmd_launch__release(c), -ENOEXEC);
	assert_int_equal(cmd_launch__wait(c, 0), 1);
	assert_int_equal(cmd_launch__exit_code(c), 127);
	cmd_launch__free(c);
}

/* PATH search: the caller's list, empty entries skipped over, first match wins. */
static void test_path_search(void **state)
{
	char path[512], *argv[] = { (char *)"mycmd", NULL };
	char list[600];
	struct cmd_launch_opts o = { .sz = sizeof(o), .path = list };
	struct cmd_launch *c;

	snprintf(path, sizeof(path), "%s/mycmd", dir);
	write_file(path, "#!/bin/sh\nexit 7\n", 0755);
	snprintf(list, sizeof(list), "/nonexistent-dir:%s:/bin", dir);
	assert_int_equal(cmd_launch__new(argv, &o, &c), 0);
	assert_string_equal(cmd_launch__path(c), path);
	assert_int_equal(cmd_launch__release(c), 0);
	assert_int_equal(cmd_launch__wait(c, -1), 1);
	assert_int_equal(cmd_launch__exit_code(c), 7);
	cmd_launch__free(c);
}

/* opts the libbpf way: a larger struct with a non-zero unknown tail is refused. */
static void test_opts(void **state)
{
	struct {
		struct cmd_launch_opts o;
		long extra;
	} big = { .o = { .sz = sizeof(big) }, .extra = 1 };
	char *argv[] = { (char *)"true", NULL };
	struct cmd_launch *c;

	assert_int_equal(cmd_launch__new(argv, &big.o, &c), -EINVAL);
	big.extra = 0;
	assert_int_equal(cmd_launch__new(argv, &big.o, &c), 0);
	cmd_launch__free(c);
}

/* -u: an unknown user is refused; as root, CMD runs with the user's ids. */
static void test_user(void **state)
{
	char *argv[] = { (char *)"sh", (char *)"-c",
			 (char *)"test \"$(id -u)\" = 65534 && test \"$(id -g)\" = 65534", NULL };
	struct cmd_launch_opts o = { .sz = sizeof(o), .user = "no-such-user-retsnoop" };
	struct cmd_launch *c;

	assert_int_equal(cmd_launch__new(argv, &o, &c), -ESRCH);
	if (geteuid() != 0)
		skip();	/* switching users needs root: reported as skipped, never as passed */
	o.user = "65534";
	assert_int_equal(cmd_launch__new(argv, &o, &c), 0);
	assert_int_equal(cmd_launch__release(c), 0);
	assert_int_equal(cmd_launch__wait(c, -1), 1);
	assert_int_equal(cmd_launch__exit_code(c), 0);
	cmd_launch__free(c);
}

/* What the hunt asks of a command: 32-bit ELF or not, a script or not */
static void test_program_kinds(void **state)
{
	/* an i386 ELF header's identification, a 64-bit one's, a script */
	static const unsigned char elf32[16] = { 0x7f, 'E', 'L', 'F', 1, 1, 1 };
	static const unsigned char elf64[16] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	char p32[300], p64[300], sh[300];
	FILE *f;

	snprintf(p32, sizeof(p32), "%s/prog32", dir);
	snprintf(p64, sizeof(p64), "%s/prog64", dir);
	snprintf(sh, sizeof(sh), "%s/script", dir);
	assert_non_null(f = fopen(p32, "w"));
	assert_int_equal(fwrite(elf32, 1, sizeof(elf32), f), sizeof(elf32));
	fclose(f);
	assert_non_null(f = fopen(p64, "w"));
	assert_int_equal(fwrite(elf64, 1, sizeof(elf64), f), sizeof(elf64));
	fclose(f);
	assert_non_null(f = fopen(sh, "w"));
	fputs("#!/bin/sh\nexit 0\n", f);
	fclose(f);
	assert_true(cmd_launch__is_32bit(p32));
	assert_false(cmd_launch__is_32bit(p64));
	assert_false(cmd_launch__is_32bit(sh));
	assert_false(cmd_launch__is_32bit("/nonexistent/prog"));
	/* this test program, as built */
	assert_int_equal(cmd_launch__is_32bit("/proc/self/exe"), sizeof(void *) == 4);
	assert_true(cmd_launch__is_script(sh));
	assert_false(cmd_launch__is_script(p32));
	unlink(p32);
	unlink(p64);
	unlink(sh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_held_until_release),
		cmocka_unit_test(test_exit_fd),
		cmocka_unit_test(test_free_unreleased),
		cmocka_unit_test(test_signals),
		cmocka_unit_test(test_not_runnable),
		cmocka_unit_test(test_exec_failure),
		cmocka_unit_test(test_path_search),
		cmocka_unit_test(test_opts),
		cmocka_unit_test(test_user),
		cmocka_unit_test(test_program_kinds),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
