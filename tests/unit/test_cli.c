// SPDX-License-Identifier: BSD-2-Clause
/* Command-line parsing: values land in struct env; each bad input fails with one clear line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "cli.h"

static char err_out[4096];
static char fixture[512];

/* The CLI's print callback as retsnoop's main gives it, for level 0: stderr. */
static void print_stderr(int level, const char *fmt, va_list args)
{
	vfprintf(stderr, fmt, args);
}

/*
 * Parse "retsnoop ARGS..." with stderr captured into err_out: what the callback printed,
 * and what argp says itself (unknown options).
 */
static int parse_args(struct env *env, const char *first, ...)
{
	char *argv[64];
	FILE *tmp = tmpfile();
	int argc = 0, saved, err;
	const char *a;
	size_t n;
	va_list ap;

	argv[argc++] = (char *)"retsnoop";
	va_start(ap, first);
	for (a = first; a; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;

	fflush(stderr);
	saved = dup(2);
	dup2(fileno(tmp), 2);
	err = cli__parse(argc, argv, env, print_stderr);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);

	rewind(tmp);
	n = fread(err_out, 1, sizeof(err_out) - 1, tmp);
	err_out[n] = '\0';
	fclose(tmp);
	return err;
}

#define PARSE(env, ...) parse_args(env, __VA_ARGS__, NULL)

static const char *fx(const char *name)
{
	snprintf(fixture, sizeof(fixture), "@%s/cli/%s", fixtures_dir(), name);
	return fixture;
}

/* Expect failure with @err and exactly one line of stderr containing @msg. */
static void expect_error(int got, int err, const char *msg)
{
	char *nl = strchr(err_out, '\n');

	assert_int_equal(got, err);
	if (!strstr(err_out, msg))
		fail_msg("expected '%s' in stderr, got: %s", msg, err_out);
	assert_non_null(nl);
	assert_string_equal(nl + 1, "");
}

static void test_defaults(void **state)
{
	struct env env;

	assert_int_equal(PARSE(&env, "-e", "foo"), 0);
	assert_string_equal(err_out, "");
	assert_int_equal(env.entry_globs.cnt, 1);
	assert_true(env.entry_globs.specs[0].mandatory);
	assert_int_equal(env.attach_mode, ATTACH_AUTO);
	assert_int_equal(env.verbose, 0);
	assert_false(env.dry_run);
	/* plain run: stack view, errors only */
	assert_true(env.emit_call_stack);
	assert_false(env.emit_func_trace);
	assert_false(env.success_stacks);
	assert_int_equal(env.symb_mode, SYMB_AUTO);
	assert_int_equal(env.cfg.ringbuf_size, 8 * 1024 * 1024);
	assert_int_equal(env.cfg.sessions_size, 0);	/* task storage, or a map of 4096 */
	assert_int_equal(env.cfg.session_table, -1);	/* the tracer's default, where it can */
	assert_int_equal(env.cfg.args_max_total_args_size, 3072);
	assert_int_equal(env.cfg.args_fmt_max_arg_width, 120);
	assert_int_equal(env.cfg.lbr_max_count, 0);
	env__free(&env);
}

static void test_globs(void **state)
{
	struct env env;

	assert_int_equal(PARSE(&env, "-e", "*sys_bpf", "-a", "array_map_*", "--allow=* [kvm]",
			       "-d", "foo[mod*]", "-e", ":kernel/bpf/*.c", "-a", fx("globs.txt")), 0);
	assert_int_equal(env.entry_globs.cnt, 2);
	assert_string_equal(env.entry_globs.specs[0].name, "*sys_bpf");
	/* source-path entry globs are never mandatory */
	assert_int_equal(env.entry_globs.specs[1].kind, GLOB_SRC_PATH);
	assert_false(env.entry_globs.specs[1].mandatory);
	assert_int_equal(env.allow_globs.cnt, 2 + 9);
	assert_string_equal(env.allow_globs.specs[1].name, "*");
	assert_string_equal(env.allow_globs.specs[1].mod, "kvm");
	assert_false(env.allow_globs.specs[1].mandatory);
	assert_string_equal(env.deny_globs.specs[0].mod, "mod*");
	env__free(&env);

	/* @file entries are entry globs like any other: mandatory */
	assert_int_equal(PARSE(&env, "-e", fx("globs.txt")), 0);
	assert_int_equal(env.entry_globs.cnt, 9);
	assert_true(env.entry_globs.specs[8].mandatory);
	env__free(&env);
}

static void test_use_cases(void **state)
{
	struct env env;

	assert_int_equal(PARSE(&env, "-c", "bpf"), 0);
	assert_int_equal(env.entry_globs.cnt, 1);
	assert_string_equal(env.entry_globs.specs[0].name, "*_sys_bpf");
	assert_true(env.entry_globs.specs[0].mandatory);
	assert_int_equal(env.allow_globs.cnt, 21);
	assert_int_equal(env.deny_globs.cnt, 11);
	env__free(&env);

	assert_int_equal(PARSE(&env, "-cperf"), 0);
	assert_int_equal(env.entry_globs.cnt, 2);
	assert_string_equal(env.entry_globs.specs[0].name, "*_sys_perf_event_open");
	assert_string_equal(env.allow_globs.specs[0].name, "*perf_*");
	env__free(&env);

	expect_error(PARSE(&env, "-c", "nfs"), -EINVAL, "Unknown use case 'nfs'");
	env__free(&env);
}

static void test_modes(void **state)
{
	struct env env;

	assert_int_equal(PARSE(&env, "-e", "x", "-F", "--dry-run"), 0);
	assert_int_equal(env.attach_mode, ATTACH_FENTRY);
	assert_true(env.dry_run);
	env__free(&env);
	assert_int_equal(PARSE(&env, "-e", "x", "-K", "-K"), 0);
	assert_int_equal(env.attach_mode, ATTACH_KPROBE_SINGLE);
	env__free(&env);
	assert_int_equal(PARSE(&env, "-Me", "x"), 0);
	assert_int_equal(env.attach_mode, ATTACH_KPROBE_MULTI);
	env__free(&env);

	expect_error(PARSE(&env, "-M", "-F"), -EINVAL,
		     "Can't specify -M, -K or -F simultaneously, pick one.");
	env__free(&env);
	expect_error(PARSE(&env, "-KM"), -EINVAL, "pick one");
	env__free(&env);
}

static void test_views_and_success(void **state)
{
	struct env env;

	/* -T alone, as in the seeds: the table, then the stack; errors only */
	assert_int_equal(PARSE(&env, "-T"), 0);
	assert_true(env.emit_func_trace);
	assert_true(env.emit_call_stack);
	assert_false(env.success_stacks);
	env__free(&env);
	assert_int_equal(PARSE(&env, "-T", "-S"), 0);
	assert_true(env.success_stacks);
	env__free(&env);
	/* -T -E: the same (-E is accepted for the newer original's users) */
	assert_int_equal(PARSE(&env, "-TE"), 0);
	assert_true(env.emit_call_stack);
	assert_false(env.success_stacks);
	env__free(&env);
	assert_int_equal(PARSE(&env, "-S"), 0);
	assert_true(env.success_stacks);
	env__free(&env);
	assert_int_equal(PARSE(&env, "-T", "-Sn"), 0);
	assert_false(env.success_stacks);
	env__free(&env);
	assert_int_equal(PARSE(&env, "--success-stacks=y"), 0);
	assert_true(env.success_stacks);
	env__free(&env);
	/* -x means errors only, even with -T */
	assert_int_equal(PARSE(&env, "-T", "-x", "any"), 0);
	assert_false(env.success_stacks);
	assert_false(env.has_error_filter);
	env__free(&env);
	assert_int_equal(PARSE(&env, "-Sn", "-x", "EINVAL"), 0);
	env__free(&env);

	expect_error(PARSE(&env, "-S", "-x", "EINVAL"), -EINVAL,
		     "Can't specify -S/-Sy and -x arguments at the same time!");
	env__free(&env);
	expect_error(PARSE(&env, "-x", "EINVAL", "-Sy"), -EINVAL,
		     "Conflicting combination of -S/-Sn/-Sy and -x arguments specified!");
	env__free(&env);
	expect_error(PARSE(&env, "-Sx"), -EINVAL, "Invalid -S value 'x'");
	env__free(&env);
}

static void test_errors_filter(void **state)
{
	struct env env;

	assert_int_equal(PARSE(&env, "-x", "EINVAL", "-x", "-ENOENT", "-x", "NULL", "-X", "EPERM"), 0);
	assert_true(env.has_error_filter);
	assert_true(env.allow_errors[EINVAL]);
	assert_true(env.allow_errors[ENOENT]);
	assert_true(env.allow_errors[0]);
	assert_false(env.allow_errors[EPERM]);
	assert_true(env.deny_errors[EPERM]);
	env__free(&env);

	/* "any" resets what came before */
	assert_int_equal(PARSE(&env, "-x", "EINVAL", "-x", "any"), 0);
	assert_false(env.has_error_filter);
	assert_false(env.allow_errors[EINVAL]);
	env__free(&env);

	expect_error(PARSE(&env, "-x", "einval"), -EINVAL, "Unrecognized error 'einval'");
	env__free(&env);
	expect_error(PARSE(&env, "-X", "any"), -EINVAL, "Unrecognized error 'any'");
	env__free(&env);
}

static void test_process_filters(void **state)
{
	struct env env;

	assert_int_equal(PARSE(&env, "-p", "123", "-p0x10", "-P", "7", "-n", "bash",
			       "-N", fx("comms.txt"), "-L", "250"), 0);
	assert_int_equal(env.allow_pid_cnt, 2);
	assert_int_equal(env.allow_pids[0], 123);
	assert_int_equal(env.allow_pids[1], 16);
	assert_int_equal(env.deny_pid_cnt, 1);
	assert_int_equal(env.deny_pids[0], 7);
	assert_int_equal(env.allow_comm_cnt, 1);
	assert_string_equal(env.allow_comms[0], "bash");
	assert_int_equal(env.deny_comm_cnt, 3);
	assert_string_equal(env.deny_comms[2], "systemd-journal");
	assert_int_equal(env.longer_ms, 250);
	env__free(&env);

	expect_error(PARSE(&env, "-p", "-5"), -EINVAL, "Invalid PID: -5");
	env__free(&env);
	expect_error(PARSE(&env, "-P", "12abc"), -EINVAL, "Invalid PID: 12abc");
	env__free(&env);
	expect_error(PARSE(&env, "-p", "0"), -EINVAL, "Invalid PID: 0");
	env__free(&env);
	expect_error(PARSE(&env, "-L", "0"), -EINVAL, "Invalid -L duration: 0");
	env__free(&env);
	expect_error(PARSE(&env, "-L", "ten"), -EINVAL, "Invalid -L duration: ten");
	env__free(&env);
	expect_error(PARSE(&env, "-n", "systemd-journald"), -EINVAL,
		     "Process name 'systemd-journald' is too long");
	env__free(&env);
	expect_error(PARSE(&env, "-n", "@/nonexistent/comms"), -EINVAL,
		     "Failed to read process names from '/nonexistent/comms'");
	env__free(&env);
}

static void test_bad_globs(void **state)
{
	struct env env;

	expect_error(PARSE(&env, "-e", ""), -EINVAL, "Empty glob provided.");
	env__free(&env);
	expect_error(PARSE(&env, "-a", "**"), -EINVAL, "Unsupported glob '**'.");
	env__free(&env);
	expect_error(PARSE(&env, "-d", "foo [kvm"), -EINVAL,
		     "Invalid glob 'foo [kvm': expected 'GLOB', 'GLOB [MODGLOB]' or 'GLOB [IMAGE]'.");
	env__free(&env);
	expect_error(PARSE(&env, "-e", "@/nonexistent/globs"), -EINVAL,
		     "Failed to read globs from '/nonexistent/globs': No such file or directory.");
	env__free(&env);
}

static void test_lbr(void **state)
{
	struct env env;

	assert_int_equal(PARSE(&env, "-B"), 0);
	assert_true(env.use_lbr);
	assert_true(env.lbr_flags == 0);	/* any_return */
	env__free(&env);
	/* the seed's -R, NEW's -B and --lbr are the same option; values OR together */
	assert_int_equal(PARSE(&env, "-Rany", "--lbr=call", "-B0x400"), 0);
	assert_true(env.lbr_flags == (0x8 | 0x2000 | 0x400));
	env__free(&env);
	assert_int_equal(PARSE(&env, "--lbr", "--lbr-max-count", "5"), 0);
	assert_int_equal(env.cfg.lbr_max_count, 5);
	env__free(&env);

	expect_error(PARSE(&env, "--lbr=bogus"), -EINVAL, "Unrecognized LBR spec 'bogus'");
	env__free(&env);
	expect_error(PARSE(&env, "--lbr-max-count", "0"), -EINVAL,
		     "Invalid --lbr-max-count value '0'");
	env__free(&env);
	/* optional values must be glued: "-B any" leaves a stray argument */
	expect_error(PARSE(&env, "-B", "any"), -E2BIG, "Unexpected argument 'any'");
	env__free(&env);
}

static void test_symbolization_and_debug(void **state)
{
	struct env env;

	assert_int_equal(PARSE(&env, "-s"), 0);
	assert_int_equal(env.symb_mode, SYMB_LINENUM);
	env__free(&env);
	assert_int_equal(PARSE(&env, "-ss"), 0);
	assert_int_equal(env.symb_mode, SYMB_INLINES);
	env__free(&env);
	assert_int_equal(PARSE(&env, "--symbolize=none", "-k", "/boot/vmlinux"), 0);
	assert_int_equal(env.symb_mode, SYMB_NONE);
	assert_string_equal(env.vmlinux_path, "/boot/vmlinux");
	env__free(&env);
	assert_int_equal(PARSE(&env, "--debug", "bpf", "--debug=full-lbr"), 0);
	assert_int_equal(env.debug_feats, DEBUG_BPF | DEBUG_FULL_LBR);
	env__free(&env);

	expect_error(PARSE(&env, "-sx"), -EINVAL, "Unrecognized symbolization setting 'x'");
	env__free(&env);
	expect_error(PARSE(&env, "--debug", "lbr"), -EINVAL, "Unrecognized --debug feature 'lbr'");
	env__free(&env);
}

static void test_config(void **state)
{
	struct env env;

	assert_int_equal(PARSE(&env, "-C", "bpf.ringbuf-size=16777216", "-Cstacks.emit-addrs=Y",
			       "--config", "stacks.symb-mode=n", "-C", "args.fmt-mode=Multiline",
			       "-C", "args.fmt-max-arg-width=0", "-C", "stacks.dec-offs=true",
			       "-C", "fmt.lbr-max-count=3"), 0);
	assert_int_equal(env.cfg.ringbuf_size, 16777216);
	assert_true(env.cfg.stacks_emit_addrs);
	assert_true(env.cfg.stacks_dec_offs);
	assert_int_equal(env.symb_mode, SYMB_NONE);
	assert_int_equal(env.cfg.args_fmt_mode, ARGS_FMT_MULTILINE);
	assert_int_equal(env.cfg.args_fmt_max_arg_width, 0);
	assert_int_equal(env.cfg.lbr_max_count, 3);
	env__free(&env);

	/* 0 turns the session table off: not the unset default (-1) */
	assert_int_equal(PARSE(&env, "-C", "bpf.session-table=0"), 0);
	assert_int_equal(env.cfg.session_table, 0);
	env__free(&env);

	/* session links by default; false asks for the entry and return pair */
	assert_int_equal(PARSE(&env, "-e", "x"), 0);
	assert_true(env.cfg.uprobe_session);
	assert_true(env.cfg.kprobe_session);
	assert_true(env.cfg.fsession);
	assert_true(env.cfg.fsession_multi);
	env__free(&env);
	assert_int_equal(PARSE(&env, "-F", "-e", "x", "-C", "bpf.fsession=n"), 0);
	assert_false(env.cfg.fsession);
	assert_true(env.cfg.fsession_multi);
	assert_true(env.cfg.kprobe_session);
	env__free(&env);
	assert_int_equal(PARSE(&env, "-F", "-e", "x", "-C", "bpf.fsession-multi=n"), 0);
	assert_true(env.cfg.fsession);
	assert_false(env.cfg.fsession_multi);
	env__free(&env);
	assert_int_equal(PARSE(&env, "-C", "bpf.uprobe-session=false"), 0);
	assert_false(env.cfg.uprobe_session);
	assert_true(env.cfg.prune);
	env__free(&env);
	assert_int_equal(PARSE(&env, "-C", "bpf.prune=n"), 0);
	assert_false(env.cfg.prune);
	assert_false(env.cfg.irq_calls);	/* interrupts' calls left out by default */
	env__free(&env);
	assert_int_equal(PARSE(&env, "-C", "bpf.irq-calls=y"), 0);
	assert_true(env.cfg.irq_calls);
	env__free(&env);

	expect_error(PARSE(&env, "-C", "bpf.ringbuf-size"), -EINVAL,
		     "Invalid configuration value 'bpf.ringbuf-size', expected format is 'group.key=value'");
	env__free(&env);
	expect_error(PARSE(&env, "-C", "ringbuf=5"), -EINVAL, "expected format is 'group.key=value'");
	env__free(&env);
	expect_error(PARSE(&env, "-C", "bpf.nope=1"), -EINVAL, "Config 'bpf.nope' unrecognized!");
	env__free(&env);
	expect_error(PARSE(&env, "-C", "args.max-str-arg-size=16385"), -EINVAL,
		     "Invalid 'args.max-str-arg-size' config value '16385'. Expected valid integer in [1, 16384] range.");
	env__free(&env);
	expect_error(PARSE(&env, "-C", "bpf.sessions-size=12x"), -EINVAL,
		     "Invalid 'bpf.sessions-size' config value '12x'");
	env__free(&env);
	expect_error(PARSE(&env, "-C", "bpf.session-table=65537"), -EINVAL,
		     "Invalid 'bpf.session-table' config value '65537'. Expected valid integer in [0, 65536] range.");
	env__free(&env);
	expect_error(PARSE(&env, "-C", "stacks.unfiltered=maybe"), -EINVAL,
		     "Invalid 'stacks.unfiltered' config value 'maybe'");
	env__free(&env);
	expect_error(PARSE(&env, "-C", "args.fmt-mode=x"), -EINVAL,
		     "Invalid 'args.fmt-mode' config value 'x'");
	env__free(&env);
}

static void test_probes_and_flags(void **state)
{
	struct env env;

	assert_int_equal(PARSE(&env, "-J", "kretprobe:vfs_read", "-J", fx("probes.txt"), "-A", "-I",
			       "-vvv", "-V", "-h", "--usage", "--config-help"), 0);
	assert_int_equal(env.inject_probe_cnt, 4);
	assert_string_equal(env.inject_probes[1].spec, "kprobe:foo+0x10");
	assert_int_equal(env.inject_probes[1].offset, 0x10);
	assert_string_equal(env.inject_probes[2].display, "tp:sched:sched_switch");
	assert_int_equal(env.inject_probes[3].kind, PROBE_RAWTP);
	assert_true(env.capture_args);
	assert_true(env.emit_interim_stacks);
	assert_int_equal(env.verbose, 3);
	assert_true(env.show_version && env.show_help && env.show_usage && env.show_config_help);
	env__free(&env);

	expect_error(PARSE(&env, "-J", "uprobe:foo"), -EINVAL, "Invalid probe 'uprobe:foo'");
	env__free(&env);
	expect_error(PARSE(&env, "-J", "tp:sched"), -EINVAL, "Invalid probe 'tp:sched'");
	env__free(&env);
	expect_error(PARSE(&env, "-J", "kprobe:foo+bar"), -EINVAL, "Invalid probe 'kprobe:foo+bar'");
	env__free(&env);
	expect_error(PARSE(&env, "-J", fx("bad-probes.txt")), -EINVAL,
		     "Invalid probe 'kprobe:bad:probe'");
	env__free(&env);
}

static void test_argp_errors(void **state)
{
	struct env env;

	/* argp's own message names the option; a --help hint follows it */
	assert_int_equal(PARSE(&env, "--bogus"), -EINVAL);
	assert_non_null(strstr(err_out, "unrecognized option '--bogus'"));
	env__free(&env);
	assert_int_equal(PARSE(&env, "-e"), -EINVAL);
	assert_non_null(strstr(err_out, "requires an argument -- 'e'"));
	env__free(&env);
	expect_error(PARSE(&env, "-e", "x", "stray"), -E2BIG, "Unexpected argument 'stray'");
	env__free(&env);
}

static void test_help_texts(void **state)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	cli__print_config_help(f);
	fflush(f);
	assert_non_null(strstr(buf, "\nSupported configuration parameters:\n"));
	assert_non_null(strstr(buf, "  bpf.sessions-size - BPF sessions map capacity; setting it uses that map instead of task storage or the session table (default: unset; task storage, else the session table)\n"));
	/* long help continues on TAB-indented lines */
	assert_non_null(strstr(buf, "\n\tIncrease it"));
	assert_true(strstr(buf, "bpf.ringbuf-size") < strstr(buf, "fmt.lbr-max-count"));
	fclose(f);
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &sz);
	cli__print_help(f);
	fflush(f);
	assert_non_null(strstr(buf, "TARGETING\n"));
	assert_non_null(strstr(buf, "EXTRA CONFIGURATION\n"));
	assert_non_null(strstr(buf, "-B, -R, --lbr[=SPEC]"));
	assert_non_null(strstr(buf, "--config-help"));
	fclose(f);
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &sz);
	cli__print_usage(f);
	fflush(f);
	assert_non_null(strstr(buf, "Usage: retsnoop [-v] [-e GLOB]* [-a GLOB]* [-T] [-B] [-A] [-J PROBE]*\n"));
	fclose(f);
	free(buf);
}

/* `-- CMD [ARGS...]`: the words after the first "--" that isn't an option's value */
static void test_command(void **state)
{
	struct env env;

	assert_int_equal(PARSE(&env, "-v", "--", "ls", "-e", "x", "--", "y"), 0);
	assert_string_equal(err_out, "");
	assert_non_null(env.cmd_argv);
	assert_string_equal(env.cmd_argv[0], "ls");
	/* CMD's own options are its own, "--" included */
	assert_string_equal(env.cmd_argv[1], "-e");
	assert_string_equal(env.cmd_argv[4], "y");
	assert_null(env.cmd_argv[5]);
	assert_int_equal(env.entry_globs.cnt, 0);
	assert_int_equal(env.verbose, 1);
	/* the program's own stack is on by default with a command */
	assert_true(env.user_stacks);
	assert_false(env.no_follow_forks);
	assert_null(env.run_as_user);
	env__free(&env);

	/* an option's value "--" is that value, short, clustered, long or abbreviated */
	assert_int_equal(PARSE(&env, "-n", "--", "--", "true"), 0);
	assert_string_equal(env.allow_comms[0], "--");
	assert_string_equal(env.cmd_argv[0], "true");
	env__free(&env);
	assert_int_equal(PARSE(&env, "-vn", "--", "--", "true"), 0);
	assert_string_equal(env.allow_comms[0], "--");
	assert_string_equal(env.cmd_argv[0], "true");
	env__free(&env);
	assert_int_equal(PARSE(&env, "--com", "--", "--", "true"), 0);
	assert_string_equal(env.allow_comms[0], "--");
	assert_string_equal(env.cmd_argv[0], "true");
	env__free(&env);
	/* glued values and optional values never take the next word */
	assert_int_equal(PARSE(&env, "-Sn", "--lbr=any", "-nfoo", "--", "true"), 0);
	assert_string_equal(env.allow_comms[0], "foo");
	assert_string_equal(env.cmd_argv[0], "true");
	env__free(&env);

	assert_int_equal(PARSE(&env, "-u", "nobody", "--no-follow-forks", "-o", "/tmp/x", "--",
			       "id"), 0);
	assert_string_equal(env.run_as_user, "nobody");
	assert_true(env.no_follow_forks);
	assert_string_equal(env.output_path, "/tmp/x");
	assert_string_equal(env.cmd_argv[0], "id");
	env__free(&env);

	/* -o and -U need no command */
	assert_int_equal(PARSE(&env, "-e", "x", "--output=f", "-U"), 0);
	assert_string_equal(env.output_path, "f");
	assert_true(env.user_stacks);
	assert_null(env.cmd_argv);
	env__free(&env);
	assert_int_equal(PARSE(&env, "-e", "x"), 0);
	assert_false(env.user_stacks);
	env__free(&env);
}

static void test_command_errors(void **state)
{
	struct env env;

	expect_error(PARSE(&env, "-v", "--"), -EINVAL, "'--' must be followed by the command");
	env__free(&env);
	expect_error(PARSE(&env, "-p", "1", "--", "true"), -EINVAL,
		     "-p can't be combined with '-- CMD'");
	env__free(&env);
	expect_error(PARSE(&env, "-e", "x", "-u", "nobody"), -EINVAL,
		     "-u USER needs a command to run");
	env__free(&env);
	expect_error(PARSE(&env, "-e", "x", "--no-follow-forks"), -EINVAL,
		     "--no-follow-forks needs a command to run");
	env__free(&env);
	/* a word before "--" is still a stray argument, not the command */
	expect_error(PARSE(&env, "ls", "--", "true"), -E2BIG, "Unexpected argument 'ls'");
	env__free(&env);
	/* argp's own words (and its --help hint line) for a missing value */
	assert_int_equal(PARSE(&env, "-o"), -EINVAL);
	assert_non_null(strstr(err_out, "requires an argument"));
	env__free(&env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_globs),
		cmocka_unit_test(test_use_cases),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_views_and_success),
		cmocka_unit_test(test_errors_filter),
		cmocka_unit_test(test_process_filters),
		cmocka_unit_test(test_bad_globs),
		cmocka_unit_test(test_lbr),
		cmocka_unit_test(test_symbolization_and_debug),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_probes_and_flags),
		cmocka_unit_test(test_argp_errors),
		cmocka_unit_test(test_help_texts),
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_command_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
