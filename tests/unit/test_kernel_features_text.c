// SPDX-License-Identifier: BSD-2-Clause
/*
 * Feature detection's answers as the boot cache keeps them: every field back as written,
 * and any copy this build can't read in full (another format, a field missing, twice or
 * unknown, a value out of range, cut short) refused with the caller's struct untouched.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "kernel_features.h"

/* Distinct values in every field, so that one read into another's place shows. */
static void fill(struct kernel_features *f)
{
	memset(f, 0, sizeof(*f));
	f->has_ringbuf = true;
	f->has_kprobe_session = true;
	f->has_uprobe_session = true;
	f->has_fgraph_fprobe = true;
	f->has_func_arg = true;
	f->session_kfunc_id = 123456;
	f->session_cookie_kfunc_id = 123457;
	f->kret_ip_off = -3;
	f->task_group_leader_off = 1;
	f->task_comm_off = 2;
	f->task_pid_off = 3;
	f->task_exit_code_off = 4;
	f->trace_kprobe_addr_off = 5;
	f->task_stack_off = 6;
	f->user_regs_off = 7;
	f->task_mm_off = 8;
	f->mm_xol_area_off = 9;
	f->xol_vaddr_off = 10;
	f->task_utask_off = 11;
	f->utask_ri_off = 12;
	f->ri_stack_off = 13;
	f->ri_orig_ret_off = 14;
	f->ri_next_off = 4294967295u;
}

static void test_fields_cover_struct(void **state)
{
	assert_int_equal(kernel_features__text_check(), 0);
}

static void test_roundtrip(void **state)
{
	struct kernel_features in, out;
	char buf[2048];
	bool links = false;
	int n, flip;

	fill(&in);
	n = kernel_features__format(&in, true, buf, sizeof(buf));
	assert_true(n > 0 && n < (int)sizeof(buf));
	assert_int_equal((size_t)n, strlen(buf));
	assert_non_null(strstr(buf, "\nkret_ip_off -3\n"));
	assert_non_null(strstr(buf, "\nri_next_off 4294967295\n"));
	memset(&out, 0, sizeof(out));
	assert_int_equal(kernel_features__parse(&out, &links, buf), 0);
	assert_true(links);
	assert_memory_equal(&in, &out, sizeof(in));

	/* each bool alone: a field read into another's place would show */
	for (flip = 0; flip < 2; flip++) {
		struct kernel_features one = {};

		if (flip)
			one.has_fentry_protection = true;
		else
			one.has_task_storage = true;
		assert_true(kernel_features__format(&one, false, buf, sizeof(buf)) > 0);
		fill(&out);
		assert_int_equal(kernel_features__parse(&out, &links, buf), 0);
		assert_false(links);
		assert_memory_equal(&one, &out, sizeof(one));
	}
}

static void test_too_small(void **state)
{
	struct kernel_features f;
	char buf[64];

	fill(&f);
	assert_int_equal(kernel_features__format(&f, false, buf, sizeof(buf)), -ENOSPC);
}

/* @text refused, @f and the links flag left as they were */
static void refused(const char *text)
{
	struct kernel_features f, before;
	bool links = true;

	fill(&f);
	before = f;
	assert_int_equal(kernel_features__parse(&f, &links, text), -EINVAL);
	assert_memory_equal(&f, &before, sizeof(f));
	assert_true(links);
}

/* @good with its line starting with @field replaced by @repl ("" drops it) */
static void edited(const char *good, const char *field, const char *repl)
{
	char buf[2048], key[64];
	const char *at, *eol;

	snprintf(key, sizeof(key), "\n%s ", field);
	at = strstr(good, key);
	assert_non_null(at);
	at++;
	eol = strchr(at, '\n') + 1;
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - good), good, repl, eol);
	refused(buf);
}

static void test_refusals(void **state)
{
	struct kernel_features f;
	char good[2048], buf[2100];
	int n;

	fill(&f);
	n = kernel_features__format(&f, true, good, sizeof(good));
	assert_true(n > 0);

	refused("");
	refused("retsnoop-kernel-features 2\n");		/* another format */
	snprintf(buf, sizeof(buf), "x%s", good);
	refused(buf);
	snprintf(buf, sizeof(buf), "%.*s", n - 1, good);	/* cut short: no last newline */
	refused(buf);
	snprintf(buf, sizeof(buf), "%.*s", n / 2, good);	/* cut in half */
	refused(buf);
	snprintf(buf, sizeof(buf), "%shas_new_thing 1\n", good);	/* a field we lack */
	refused(buf);
	snprintf(buf, sizeof(buf), "%shas_cookie 1\n", good);	/* twice */
	refused(buf);
	edited(good, "has_cookie", "");				/* missing */
	edited(good, "has_cookie", "has_cookie 2\n");		/* not a bool */
	edited(good, "has_cookie", "has_cookie yes\n");
	edited(good, "task_comm_off", "task_comm_off -1\n");	/* unsigned */
	edited(good, "task_comm_off", "task_comm_off 4294967296\n");
	edited(good, "task_comm_off", "task_comm_off 12x\n");
	edited(good, "task_comm_off", "task_comm_off\n");
	edited(good, "kret_ip_off", "kret_ip_off 2147483648\n");
	edited(good, "uprobe_links", "uprobe_links 7\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields_cover_struct),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_too_small),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
