// SPDX-License-Identifier: BSD-2-Clause
/* Which capabilities are missing, from /proc/<pid>/status CapEff and perf_event_paranoid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "privileges.h"

static char status[64], paranoid[64], lockdown[64];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static long long missing(const char *cap_eff, const char *par)
{
	struct privileges_opts o = { .sz = sizeof(o), .status_path = status,
				     .paranoid_path = paranoid };
	char text[256];

	snprintf(text, sizeof(text), "Name:\tretsnoop\nCapInh:\t0000000000000000\nCapEff:\t%s\n", cap_eff);
	write_file(status, text);
	write_file(paranoid, par);
	return privileges__missing(&o);
}

static int setup(void **state)
{
	snprintf(status, sizeof(status), "/tmp/rs-status-%d", getpid());
	snprintf(paranoid, sizeof(paranoid), "/tmp/rs-paranoid-%d", getpid());
	snprintf(lockdown, sizeof(lockdown), "/tmp/rs-lockdown-%d", getpid());
	return 0;
}

static int teardown(void **state)
{
	unlink(status);
	unlink(paranoid);
	unlink(lockdown);
	return 0;
}

static void test_missing(void **state)
{
	char buf[128];
	/* bits: DAC_READ_SEARCH 2, SYS_ADMIN 21, SYSLOG 34, PERFMON 38, BPF 39 */
	const char *bpf_perfmon = "000000c000000000";
	const char *four = "000000c400000004";

	assert_int_equal(missing("000001ffffffffff", "3\n"), 0);	/* root */
	assert_int_equal(missing(four, "2\n"), 0);
	/* paranoid 3 (Debian, Ubuntu): perf_event_open() wants CAP_SYS_ADMIN too */
	assert_int_equal(missing(four, "3\n"), 1LL << 21);
	assert_string_equal(privileges__names(missing(bpf_perfmon, "2\n"), buf, sizeof(buf)),
			    "CAP_SYSLOG, CAP_DAC_READ_SEARCH");
	/* CAP_SYS_ADMIN still covers CAP_BPF and CAP_PERFMON */
	assert_int_equal(missing("0000000400200004", "3\n"), 0);
	assert_string_equal(privileges__names(missing("0000000000000000", "2\n"), buf, sizeof(buf)),
			    "CAP_BPF, CAP_PERFMON, CAP_SYSLOG, CAP_DAC_READ_SEARCH");
}

static void test_lockdown(void **state)
{
	struct privileges_opts o = { .sz = sizeof(o), .lockdown_path = lockdown };

	write_file(lockdown, "none integrity [confidentiality]\n");
	assert_int_equal(privileges__lockdown(&o), LOCKDOWN_CONFIDENTIALITY);
	write_file(lockdown, "none [integrity] confidentiality\n");
	assert_int_equal(privileges__lockdown(&o), LOCKDOWN_INTEGRITY);
	write_file(lockdown, "[none] integrity confidentiality\n");
	assert_int_equal(privileges__lockdown(&o), LOCKDOWN_NONE);
	o.lockdown_path = "/nonexistent/lockdown";
	assert_int_equal(privileges__lockdown(&o), LOCKDOWN_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_lockdown),
	};

	return cmocka_run_group_tests_name("privileges", tests, setup, teardown);
}
