// SPDX-License-Identifier: BSD-2-Clause
/*
 * Extensible opts (opts.h), and every module that takes an opts struct following the rule:
 * an older caller's smaller struct works (and is never read past its sz), a newer caller's
 * larger one works when the fields this build doesn't know are zero and is refused with
 * EINVAL when they aren't, and NULL opts mean the defaults.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "unit.h"
#include "opts.h"
#include "addr2line.h"
#include "arg_dump.h"
#include "arg_plan.h"
#include "arg_render.h"
#include "func.h"
#include "func_discovery.h"
#include "prefetch.h"
#include "privileges.h"
#include "sink.h"
#include "symbolize.h"
#include "usyms.h"
#include "vmlinux_dwarf.h"

struct old_opts { size_t sz; int a; };
struct cur_opts { size_t sz; int a; long b; };
struct new_opts { size_t sz; int a; long b; long c; };

static void test_copy(void **state)
{
	struct old_opts old = { .sz = sizeof(old), .a = 7 };
	struct new_opts newer = { .sz = sizeof(newer), .a = 1, .b = 2 };
	struct cur_opts cur;

	/* an older caller: the field it doesn't know reads as zero */
	memset(&cur, 0xff, sizeof(cur));
	assert_int_equal(opts__copy(&cur, sizeof(cur), &old), 0);
	assert_int_equal(cur.sz, sizeof(cur));
	assert_int_equal(cur.a, 7);
	assert_int_equal(cur.b, 0);
	/* a newer caller that leaves the new field zero */
	assert_int_equal(OPTS_COPY(&cur, (struct cur_opts *)&newer), 0);
	assert_int_equal(cur.b, 2);
	/* ... and one that sets it: refused, this build can't honour it */
	newer.c = 3;
	assert_false(opts__valid(&newer, sizeof(cur)));
	assert_int_equal(OPTS_COPY(&cur, (struct cur_opts *)&newer), -EINVAL);
	/* NULL: all defaults */
	memset(&cur, 0xff, sizeof(cur));
	assert_int_equal(OPTS_COPY(&cur, NULL), 0);
	assert_int_equal(cur.sz, sizeof(cur));
	assert_int_equal(cur.a, 0);
	assert_int_equal(cur.b, 0);
	assert_false(opts__valid(NULL, sizeof(cur)));
	/* sz smaller than the sz field itself */
	old.sz = 0;
	assert_false(opts__valid(&old, sizeof(cur)));
	assert_int_equal(OPTS_COPY(&cur, (struct cur_opts *)&old), -EINVAL);
}

/*
 * Each module's entry point, called with @opts and cleaned up after: 0 when the opts were
 * accepted, a negative errno otherwise. Only modules whose all-zero opts are valid are here
 * (the others require a field, e.g. a sink's callback, and check it after the copy).
 */
struct opts_case {
	const char *name;
	size_t sz;			/* this build's sizeof(struct X_opts) */
	int (*call)(const void *opts);
};

static int call_addr2line(const void *opts)
{
	struct addr2line *a = addr2line__new("/nonexistent/vmlinux", opts);
	int err = a ? 0 : -errno;

	addr2line__free(a);
	/* no sidecar is embedded in the unit tests: starting it fails after the opts check */
	return err == -EINVAL ? err : 0;
}

static int call_privileges(const void *opts)
{
	long long missing = privileges__missing(opts);

	return missing == -EINVAL ? -EINVAL : 0;
}

static int call_vmlinux_dwarf(const void *opts)
{
	struct vmlinux_dwarf *vd = vmlinux_dwarf__open(opts);
	int err = vd ? 0 : -errno;

	vmlinux_dwarf__free(vd);
	/* no image or no sidecar here: those fail after the opts check */
	return err == -EINVAL ? err : 0;
}

static struct btf *int_btf(void)
{
	struct btf *btf = btf__new_empty();

	assert_non_null(btf);
	assert_int_equal(btf__add_int(btf, "int", 4, BTF_INT_SIGNED), 1);
	return btf;
}

static int call_arg_dump(const void *opts)
{
	struct btf *btf = int_btf();
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int v = 42, err;

	assert_non_null(f);
	err = arg_dump(f, btf, 1, &v, sizeof(v), opts);
	fclose(f);
	if (!err)
		assert_string_equal(text, "42");
	free(text);
	btf__free(btf);
	return err;
}

static int call_arg_plans(const void *opts)
{
	struct func f = { .name = "f" };
	struct arg_plans *ps = arg_plans__new(&f, 1, opts);
	int err = ps ? 0 : -errno;

	arg_plans__free(ps);
	return err;
}

static int call_arg_render(const void *opts)
{
	struct sample_args a = { .missing = true };
	char **strs;
	int cnt, err = arg_render__strs(&a, opts, &strs, &cnt);

	if (!err)
		arg_render__free_strs(strs, cnt);
	return err;
}

/* A constructor taking only opts: 0 if it made the object, -errno if not. */
#define CALL_NEW(name, type, ctor, dtor)				\
static int call_##name(const void *opts)				\
{									\
	type *obj = ctor(opts);						\
	int err = obj ? 0 : -errno;					\
									\
	dtor(obj);							\
	return err;							\
}

CALL_NEW(func_discovery, struct func_discovery, func_discovery__new, func_discovery__free)
CALL_NEW(prefetch, struct prefetch, prefetch__start, prefetch__free)
CALL_NEW(symbolize, struct symbolize, symbolize__new, symbolize__free)
CALL_NEW(text_sink, struct sink, text_sink__new, sink__free)
CALL_NEW(json_sink, struct sink, json_sink__new, sink__free)
CALL_NEW(usyms, struct usyms, usyms__new, usyms__free)

static const struct opts_case cases[] = {
	{ "addr2line", sizeof(struct addr2line_opts), call_addr2line },
	{ "privileges", sizeof(struct privileges_opts), call_privileges },
	{ "vmlinux_dwarf", sizeof(struct vmlinux_dwarf_opts), call_vmlinux_dwarf },
	{ "arg_dump", sizeof(struct arg_dump_opts), call_arg_dump },
	{ "arg_plans", sizeof(struct arg_plans_opts), call_arg_plans },
	{ "arg_render", sizeof(struct arg_render_opts), call_arg_render },
	{ "func_discovery", sizeof(struct func_discovery_opts), call_func_discovery },
	{ "prefetch", sizeof(struct prefetch_opts), call_prefetch },
	{ "symbolize", sizeof(struct symbolize_opts), call_symbolize },
	{ "text_sink", sizeof(struct text_sink_opts), call_text_sink },
	{ "json_sink", sizeof(struct json_sink_opts), call_json_sink },
	{ "usyms", sizeof(struct usyms_opts), call_usyms },
};

/* A caller's struct of @sz bytes, all zero but sz: heap-allocated to exactly @sz so that
 * ASan catches a module reading past it. */
static void *caller_opts(size_t sz)
{
	void *o = calloc(1, sz);

	assert_non_null(o);
	memcpy(o, &sz, sizeof(sz));
	return o;
}

static void test_modules(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct opts_case *c = &cases[i];
		unsigned char *o;

		/* the oldest possible caller: nothing but sz */
		o = caller_opts(sizeof(size_t));
		if (c->call(o))
			fail_msg("%s: a smaller (older) opts struct was refused", c->name);
		free(o);
		/* this build's size */
		o = caller_opts(c->sz);
		if (c->call(o))
			fail_msg("%s: its own opts struct was refused", c->name);
		free(o);
		/* a newer caller's, its extra fields zero */
		o = caller_opts(c->sz + 16);
		if (c->call(o))
			fail_msg("%s: a larger opts struct with a zero tail was refused", c->name);
		/* ... and with one set: this build can't honour it */
		o[c->sz + 15] = 1;
		if (c->call(o) != -EINVAL)
			fail_msg("%s: a larger opts struct with a non-zero tail was accepted", c->name);
		free(o);
		if (c->call(NULL))
			fail_msg("%s: NULL opts (the defaults) were refused", c->name);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_modules),
	};

	return cmocka_run_group_tests_name("opts", tests, NULL, NULL);
}
