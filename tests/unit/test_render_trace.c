// SPDX-License-Identifier: BSD-2-Clause
/* -T table layout: the seed blog's bpf_prog_load trace, rebuilt from trace records. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "records.h"
#include "sample_harness.h"

static const struct func funcs[] = {
	{ .name = "bpf_prog_load", .flags = FUNC_NEEDS_SIGN_EXT },
	{ .name = "bpf_prog_alloc", .flags = FUNC_RET_PTR },
	{ .name = "bpf_prog_alloc_no_stats", .flags = FUNC_RET_PTR },
	{ .name = "bpf_prog_kallsyms_add", .flags = FUNC_RET_VOID | FUNC_CANT_FAIL },
	{ .name = "bpf_ksym_add", .flags = FUNC_RET_VOID | FUNC_CANT_FAIL },
};

#define E(seq, id, d) { .type = REC_FUNC_TRACE_ENTRY, .seq_id = seq, .func_id = id, .depth = d }
#define X(seq, id, d, lat, res) { .type = REC_FUNC_TRACE_EXIT, .seq_id = seq, .func_id = id, \
				  .depth = d, .func_lat = lat, .func_res = res }

#define P(seq, id, d) { .type = REC_INJ_PROBE, .seq_id = seq, .func_id = id, .depth = d }

static char *render_probes(const struct rec_func_trace *t, size_t n,
			   const struct probe_spec *probes, size_t probe_cnt)
{
	struct rec_session_start st = {};
	struct rec_session_end e = {};
	struct sess_recs r = { .start = &st, .end = &e, .trace = t, .trace_cnt = n };
	struct sample_build_opts b = {
		.sz = sizeof(b), .funcs = funcs, .func_cnt = 5, .view.func_trace = true,
		.probes = probes, .probe_cnt = probe_cnt,
	};

	return harness_render(&r, &b, render_trace);
}

static char *render(const struct rec_func_trace *t, size_t n)
{
	return render_probes(t, n, NULL, 0);
}

/*
 * The rows of the model the table is drawn from, one word each: the kind (E entry, X exit,
 * L leaf), the depth, ":" and the function id, and for exits and leaves "=" and the result;
 * a gap is "G:" and the number of records missing.
 */
static char *rows_of(const struct rec_func_trace *t, size_t n)
{
	static const char kinds[] = { [TRACE_ENTRY] = 'E', [TRACE_EXIT] = 'X',
				      [TRACE_LEAF] = 'L', [TRACE_GAP] = 'G', [TRACE_PROBE] = 'P' };
	struct rec_session_start st = {};
	struct rec_session_end e = {};
	struct sess_recs r = { .start = &st, .end = &e, .trace = t, .trace_cnt = n };
	struct sample_build_opts b = {
		.sz = sizeof(b), .funcs = funcs, .func_cnt = 5, .view.func_trace = true,
	};
	struct sample *s;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(sample__build(&r, &b, &s), 0);
	assert_true(s->has_trace);
	for (i = 0; i < s->row_cnt; i++) {
		const struct trace_row *row = &s->rows[i];

		if (row->kind == TRACE_GAP)
			fprintf(f, "%sG:%u", i ? " " : "", row->missing);
		else
			fprintf(f, "%s%c%u:%d", i ? " " : "", kinds[row->kind], row->depth,
				row->func_id);
		if (row->kind == TRACE_EXIT || row->kind == TRACE_LEAF)
			fprintf(f, "=%lld", (long long)row->res);
	}
	fclose(f);
	sample__free(s);
	return buf;
}

static void test_seed_table(void **state)
{
	const __s64 ptr = (__s64)0xffffc9000031e000ULL;
	const struct rec_func_trace t[] = {
		E(0, 0, 1),
		E(1, 1, 2),
		E(2, 2, 3), X(3, 2, 3, 5539, ptr),
		X(4, 1, 2, 10265, ptr),
		E(5, 3, 2),
		E(6, 4, 3), X(7, 4, 3, 2046, 0),
		X(8, 3, 2, 6104, 0),
		X(9, 0, 1, 374697, 5),
	};
	char *out = rows_of(t, sizeof(t) / sizeof(t[0]));

	/* the model: each entry directly followed by its exit is one leaf row; ptr as signed */
	assert_string_equal(out, "E1:0 E2:1 L3:2=-60473136259072 X2:1=-60473136259072 "
				 "E2:3 L3:4=0 X2:3=0 X1:0=5");
	free(out);
	out = render(t, sizeof(t) / sizeof(t[0]));
	assert_string_equal(out,
"FUNCTION CALL TRACE                 RESULT                 DURATION\n"
"---------------------------------   --------------------  ---------\n"
"→ bpf_prog_load\n"
"    → bpf_prog_alloc\n"
"        ↔ bpf_prog_alloc_no_stats   [0xffffc9000031e000]    5.539us\n"
"    ← bpf_prog_alloc                [0xffffc9000031e000]   10.265us\n"
"    → bpf_prog_kallsyms_add\n"
"        ↔ bpf_ksym_add              [void]                  2.046us\n"
"    ← bpf_prog_kallsyms_add         [void]                  6.104us\n"
"← bpf_prog_load                     [5]                   374.697us\n");
	free(out);
}

static void test_missing_records(void **state)
{
	const struct rec_func_trace t[] = {
		E(0, 0, 1),
		X(4, 0, 1, 1000, -22),
	};
	char *out = rows_of(t, 2);

	assert_string_equal(out, "E1:0 G:3 X1:0=-22");
	free(out);
	out = render(t, 2);

	assert_non_null(strstr(out, "\u203c ... missing 3 record(s) ...   ...   "));
	assert_non_null(strstr(out, "← bpf_prog_load"));
	assert_non_null(strstr(out, "[-EINVAL]"));
	free(out);
}

static void test_not_leaf_when_not_consecutive(void **state)
{
	/* entry then exit of the same function at the same depth but with a lost record between */
	const struct rec_func_trace t[] = {
		E(0, 0, 1),
		X(2, 0, 1, 1000, 0),
	};
	char *out = rows_of(t, 2);

	assert_string_equal(out, "E1:0 G:1 X1:0=0");
	free(out);
	out = render(t, 2);

	assert_null(strstr(out, "↔"));
	assert_non_null(strstr(out, "→ bpf_prog_load\n"));
	free(out);
}

static void test_wild_depth_indent_capped(void **state)
{
	/*
	 * Depths from a hostile capture: the indent stays at its 20-level cap instead of
	 * 4 * (depth - 1) wrapping into a width of a gigabyte (0x30000001) or INT_MIN
	 * (0x20000001, whose padding then overflowed). Found by tests/fuzz/session.c.
	 */
	const struct rec_func_trace t[] = {
		E(0, 0, 0x30000001),
		X(1, 1, 0x20000001, 1000, -22),
	};
	char *out = render(t, 2);
	char want[256];

	snprintf(want, sizeof(want), "\n%80s→ bpf_prog_load\n%80s← bpf_prog_alloc ", "", "");
	assert_non_null(strstr(out, want));
	assert_true(strlen(out) < 1024);
	free(out);
}

/*
 * Calls longjmp() left (an entry, no exit): an exit at a shallower level or an entry at
 * the same level closes them with a "[no return]" row, innermost first; so does the end
 * of a final sample for calls still open. Not after lost records (a lost exit looks the
 * same).
 */
static void test_left_calls(void **state)
{
	const struct rec_func_trace t[] = {
		E(0, 0, 1),
		E(1, 1, 2),
		E(2, 2, 3), X(3, 2, 3, 5539, 0),
		X(4, 0, 1, 374697, -22),
	};
	const struct rec_func_trace same_level[] = {
		E(0, 0, 1),
		E(1, 1, 2),
		E(2, 3, 2), X(3, 3, 2, 2046, 0),
	};
	const struct rec_func_trace lost[] = {
		E(0, 0, 1),
		E(1, 1, 2),
		X(3, 0, 1, 1000, -22),
	};
	char *out = render(t, sizeof(t) / sizeof(t[0]));

	assert_string_equal(out,
"FUNCTION CALL TRACE                 RESULT        DURATION\n"
"---------------------------------   -----------  ---------\n"
"→ bpf_prog_load\n"
"    → bpf_prog_alloc\n"
"        ↔ bpf_prog_alloc_no_stats   [NULL]         5.539us\n"
"    ← bpf_prog_alloc                [no return]          -\n"
"← bpf_prog_load                     [-EINVAL]    374.697us\n");
	free(out);
	out = render(same_level, sizeof(same_level) / sizeof(same_level[0]));
	assert_string_equal(out,
"FUNCTION CALL TRACE           RESULT       DURATION\n"
"---------------------------   -----------  --------\n"
"→ bpf_prog_load\n"
"    → bpf_prog_alloc\n"
"    ← bpf_prog_alloc          [no return]         -\n"
"    ↔ bpf_prog_kallsyms_add   [void]        2.046us\n"
"← bpf_prog_load               [no return]         -\n");
	free(out);
	out = render(lost, sizeof(lost) / sizeof(lost[0]));
	assert_null(strstr(out, "no return"));
	free(out);
}

/*
 * -J: a hit is a "◎" row one level below the call it fired in, with empty result and
 * duration cells; it keeps an entry and its exit apart (no "↔"), and a hit of a probe id
 * the run doesn't know still shows.
 */
static void test_probe_rows(void **state)
{
	struct probe_spec ps[3];
	const struct rec_func_trace t[] = {
		E(0, 0, 1),
		P(1, 0, 2),
		E(2, 1, 2),
		P(3, 1, 3),
		X(4, 1, 2, 10265, 0),
		P(5, 2, 2),
		P(6, 7, 2),
		X(7, 0, 1, 374697, 5),
	};
	char *out;

	assert_int_equal(probe_spec__parse("tp:sched:sched_process_exec", &ps[0]), 0);
	assert_int_equal(probe_spec__parse("kprobe:bprm_execve+5", &ps[1]), 0);
	assert_int_equal(probe_spec__parse("kretprobe:bprm_execve", &ps[2]), 0);
	out = render_probes(t, sizeof(t) / sizeof(t[0]), ps, 3);
	assert_string_equal(out,
"FUNCTION CALL TRACE                 RESULT   DURATION\n"
"---------------------------------   ------  ---------\n"
"→ bpf_prog_load\n"
"    ◎ tp:sched:sched_process_exec\n"
"    → bpf_prog_alloc\n"
"        ◎ kprobe:bprm_execve+0x5\n"
"    ← bpf_prog_alloc                [NULL]   10.265us\n"
"    ◎ kretprobe:bprm_execve\n"
"    ◎ <unknown probe>\n"
"← bpf_prog_load                     [5]     374.697us\n");
	free(out);
	for (int i = 0; i < 3; i++)
		probe_spec__free(&ps[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_table),
		cmocka_unit_test(test_missing_records),
		cmocka_unit_test(test_not_leaf_when_not_consecutive),
		cmocka_unit_test(test_wild_depth_indent_capped),
		cmocka_unit_test(test_probe_rows),
		cmocka_unit_test(test_left_calls),
	};

	return cmocka_run_group_tests_name("render_trace", tests, NULL, NULL);
}
