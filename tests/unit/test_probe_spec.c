// SPDX-License-Identifier: BSD-2-Clause
/* -J specs: the four forms, their display names, and what is refused. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "unit.h"
#include "probe_spec.h"

static void test_kprobe(void **state)
{
	struct probe_spec p;

	assert_int_equal(probe_spec__parse("kprobe:bprm_execve", &p), 0);
	assert_int_equal(p.kind, PROBE_KPROBE);
	assert_string_equal(p.name, "bprm_execve");
	assert_null(p.category);
	assert_int_equal(p.offset, 0);
	assert_string_equal(p.spec, "kprobe:bprm_execve");
	assert_string_equal(p.display, "kprobe:bprm_execve+0x0");
	probe_spec__free(&p);

	/* any C integer: decimal, hex, octal */
	assert_int_equal(probe_spec__parse("kprobe:bprm_execve+5", &p), 0);
	assert_int_equal(p.offset, 5);
	assert_string_equal(p.display, "kprobe:bprm_execve+0x5");
	probe_spec__free(&p);
	assert_int_equal(probe_spec__parse("kprobe:foo+0x1F", &p), 0);
	assert_int_equal(p.offset, 0x1f);
	assert_string_equal(p.display, "kprobe:foo+0x1f");
	probe_spec__free(&p);
	assert_int_equal(probe_spec__parse("kprobe:foo+010", &p), 0);
	assert_int_equal(p.offset, 8);
	probe_spec__free(&p);

	/* compiler clones keep their dots */
	assert_int_equal(probe_spec__parse("kprobe:ksys_msgctl.constprop.0", &p), 0);
	assert_string_equal(p.name, "ksys_msgctl.constprop.0");
	probe_spec__free(&p);
}

static void test_kretprobe_rawtp_tp(void **state)
{
	struct probe_spec p;

	assert_int_equal(probe_spec__parse("kretprobe:bprm_execve", &p), 0);
	assert_int_equal(p.kind, PROBE_KRETPROBE);
	assert_string_equal(p.name, "bprm_execve");
	assert_string_equal(p.display, "kretprobe:bprm_execve");
	probe_spec__free(&p);

	assert_int_equal(probe_spec__parse("rawtp:sched_process_exec", &p), 0);
	assert_int_equal(p.kind, PROBE_RAWTP);
	assert_string_equal(p.name, "sched_process_exec");
	assert_string_equal(p.display, "rawtp:sched_process_exec");
	probe_spec__free(&p);

	assert_int_equal(probe_spec__parse("tp:sched:sched_process_exec", &p), 0);
	assert_int_equal(p.kind, PROBE_TP);
	assert_string_equal(p.category, "sched");
	assert_string_equal(p.name, "sched_process_exec");
	assert_string_equal(p.display, "tp:sched:sched_process_exec");
	assert_string_equal(p.spec, "tp:sched:sched_process_exec");
	probe_spec__free(&p);

	assert_string_equal(probe_kind__str(PROBE_KPROBE), "kprobe");
	assert_string_equal(probe_kind__str(PROBE_KRETPROBE), "kretprobe");
	assert_string_equal(probe_kind__str(PROBE_TP), "tp");
	assert_string_equal(probe_kind__str(PROBE_RAWTP), "rawtp");
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
		"", "bprm_execve", "uprobe:foo", "kprobe:", "kprobe:+5", "kprobe:foo+",
		"kprobe:foo+bar", "kprobe:foo+-1", "kprobe:foo+ 1", "kprobe:foo+0x",
		"kprobe:foo+99999999999999999999999", "kprobe:foo+1+2", "kprobe:bad:probe",
		"kprobe:foo bar", "kprobe:f-o", "kretprobe:", "kretprobe:foo+5",
		"kretprobe:a:b", "rawtp:", "rawtp:a:b", "rawtp:a.b", "tp:", "tp:sched",
		"tp:sched:", "tp::sched_switch", "tp:sched:sched_switch:x", "tp:sch.ed:x",
		"tp:sched:sched switch", "KPROBE:foo", "kprobe foo", "tp:sched:sched_switch ",
	};
	struct probe_spec p = { .offset = 42 };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (probe_spec__parse(bad[i], &p) != -EINVAL)
			fail_msg("'%s' was not refused", bad[i]);
		assert_int_equal(p.offset, 42);	/* untouched */
	}
	assert_int_equal(probe_spec__parse(NULL, &p), -EINVAL);
}

static void test_display_lookup(void **state)
{
	struct probe_spec ps[2];

	assert_int_equal(probe_spec__parse("rawtp:a", &ps[0]), 0);
	assert_int_equal(probe_spec__parse("tp:b:c", &ps[1]), 0);
	assert_string_equal(probe_spec__display(ps, 2, 0), "rawtp:a");
	assert_string_equal(probe_spec__display(ps, 2, 1), "tp:b:c");
	assert_string_equal(probe_spec__display(ps, 2, 2), "<unknown probe>");
	assert_string_equal(probe_spec__display(ps, 2, -1), "<unknown probe>");
	assert_string_equal(probe_spec__display(NULL, 0, 0), "<unknown probe>");
	probe_spec__free(&ps[0]);
	probe_spec__free(&ps[1]);
	probe_spec__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kprobe),
		cmocka_unit_test(test_kretprobe_rawtp_tp),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_display_lookup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
