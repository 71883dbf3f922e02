// SPDX-License-Identifier: BSD-2-Clause
/* Glob matching and the -e/-a/-d spec forms. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "unit.h"
#include "glob.h"

static void test_match_literal_and_anchoring(void **state)
{
	assert_true(glob__match("foo", "foo"));
	assert_false(glob__match("foo", "foobar"));	/* anchored at the end */
	assert_false(glob__match("foo", "xfoo"));	/* and at the start */
	assert_false(glob__match("foo", "fo"));
	assert_true(glob__match("", ""));
	assert_false(glob__match("", "a"));
}

static void test_match_star(void **state)
{
	assert_true(glob__match("*", ""));
	assert_true(glob__match("*", "anything"));
	assert_true(glob__match("*bpf*", "bpf"));
	assert_true(glob__match("*bpf*", "__sys_bpf_x"));
	assert_false(glob__match("*bpf*", "bp_f"));
	assert_true(glob__match("*_sys_bpf", "__x64_sys_bpf"));
	assert_false(glob__match("*_sys_bpf", "__x64_sys_bpf_foo"));
	assert_true(glob__match("array_map_*", "array_map_alloc_check"));
	assert_false(glob__match("array_map_*", "percpu_array_map_alloc"));
	/* several stars, needing backtracking */
	assert_true(glob__match("a*b*c", "aXbYbZc"));
	assert_true(glob__match("a*b*c", "abc"));
	assert_false(glob__match("a*b*c", "aXbYcZ"));
	assert_true(glob__match("*a*a*a", "aaa"));
	assert_false(glob__match("*a*a*a", "aa"));
	/* consecutive stars are one star */
	assert_true(glob__match("a***b", "ab"));
	assert_true(glob__match("a***b", "aXYZb"));
	assert_true(glob__match("***", ""));
	/* clones are just names: a trailing star matches the suffix */
	assert_true(glob__match("foo*", "foo.isra.0"));
	assert_false(glob__match("foo", "foo.constprop.0"));
}

static void test_match_question(void **state)
{
	assert_true(glob__match("foo??", "foo10"));
	assert_false(glob__match("foo??", "foo1"));
	assert_false(glob__match("foo??", "foo100"));
	assert_true(glob__match("?", "x"));
	assert_false(glob__match("?", ""));
	assert_true(glob__match("*?", "x"));
	assert_false(glob__match("*?", ""));
	assert_true(glob__match("?*_map_?", "xarray_map_y"));
	/* no character classes: brackets are literal */
	assert_false(glob__match("[ab]", "a"));
	assert_true(glob__match("[ab]", "[ab]"));
}

static void test_spec_parse_forms(void **state)
{
	struct glob_spec s;

	assert_int_equal(glob_spec__parse("*_read_*", &s), 0);
	assert_string_equal(s.name, "*_read_*");
	assert_null(s.mod);
	assert_int_equal(s.kind, GLOB_NAME);
	glob_spec__free(&s);

	assert_int_equal(glob_spec__parse("*_read_* [*kvm*]", &s), 0);
	assert_string_equal(s.name, "*_read_*");
	assert_string_equal(s.mod, "*kvm*");
	glob_spec__free(&s);

	/* the blank is optional */
	assert_int_equal(glob_spec__parse("foo[kvm]", &s), 0);
	assert_string_equal(s.name, "foo");
	assert_string_equal(s.mod, "kvm");
	glob_spec__free(&s);

	assert_int_equal(glob_spec__parse("* \t [kvm]", &s), 0);
	assert_string_equal(s.name, "*");
	assert_string_equal(s.mod, "kvm");
	glob_spec__free(&s);

	assert_int_equal(glob_spec__parse(":kernel/bpf/*.c", &s), 0);
	assert_int_equal(s.kind, GLOB_SRC_PATH);
	assert_string_equal(s.name, "kernel/bpf/*.c");
	glob_spec__free(&s);
}

static void test_spec_parse_errors(void **state)
{
	struct glob_spec s;

	assert_int_equal(glob_spec__parse("", &s), -EINVAL);
	assert_int_equal(glob_spec__parse("   ", &s), -EINVAL);
	assert_int_equal(glob_spec__parse("[kvm]", &s), -EINVAL);
	assert_int_equal(glob_spec__parse(":", &s), -EINVAL);
	assert_int_equal(glob_spec__parse("**", &s), -EOPNOTSUPP);
	assert_int_equal(glob_spec__parse("foo [**]", &s), -EOPNOTSUPP);
	assert_int_equal(glob_spec__parse(":**", &s), -EOPNOTSUPP);
	assert_int_equal(glob_spec__parse("foo [", &s), -EBADMSG);
	assert_int_equal(glob_spec__parse("foo [kvm", &s), -EBADMSG);
	assert_int_equal(glob_spec__parse("foo []", &s), -EBADMSG);
	assert_int_equal(glob_spec__parse("foo [kvm] x", &s), -EBADMSG);
	assert_int_equal(glob_spec__parse("foo bar", &s), -EBADMSG);
	assert_int_equal(glob_spec__parse("foo [a[b]", &s), -EBADMSG);
	/* "a**b" is fine: only the bare "**" is refused */
	assert_int_equal(glob_spec__parse("a**b", &s), 0);
	glob_spec__free(&s);
}

static void test_spec_truncates_long_names(void **state)
{
	char long_name[300];
	struct glob_spec s;

	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_int_equal(glob_spec__parse(long_name, &s), 0);
	assert_int_equal(strlen(s.name), GLOB_MAX_LEN);
	glob_spec__free(&s);
}

static void test_spec_match_modules(void **state)
{
	struct glob_spec any, kvm;
	char buf[64];

	assert_int_equal(glob_spec__parse("*_read_*", &any), 0);
	assert_int_equal(glob_spec__parse("*_read_* [*kvm*]", &kvm), 0);

	/* no module glob: vmlinux and every module */
	assert_true(glob_spec__match(&any, "vfs_read_iter", NULL));
	assert_true(glob_spec__match(&any, "segmented_read_std", "kvm"));
	/* a module glob: only module functions whose module matches */
	assert_false(glob_spec__match(&kvm, "vfs_read_iter", NULL));
	assert_true(glob_spec__match(&kvm, "segmented_read_std", "kvm"));
	assert_true(glob_spec__match(&kvm, "vmx_read_guest_seg_ar", "kvm_intel"));
	assert_false(glob_spec__match(&kvm, "ext4_read_inline", "ext4"));
	assert_false(glob_spec__match(&kvm, "nomatch", "kvm"));

	assert_string_equal(glob_spec__str(&kvm, buf, sizeof(buf)), "*_read_* [*kvm*]");
	assert_string_equal(glob_spec__str(&any, buf, sizeof(buf)), "*_read_*");
	glob_spec__free(&any);
	glob_spec__free(&kvm);
}

static void test_spec_user_images(void **state)
{
	struct glob_spec s;
	char buf[128];

	/* a path: it has a '/' */
	assert_int_equal(glob_spec__parse("open_* [/usr/local/bin/myapp]", &s), 0);
	assert_int_equal(s.kind, GLOB_NAME);
	assert_int_equal(s.image_kind, GLOB_IMAGE_PATH);
	assert_string_equal(s.name, "open_*");
	assert_string_equal(s.image, "/usr/local/bin/myapp");
	assert_null(s.mod);
	assert_int_equal(s.err_rule, GLOB_ERR_DEFAULT);
	assert_true(glob_spec__is_user(&s));
	/* never a kernel function, whatever the module */
	assert_false(glob_spec__match(&s, "open_config", NULL));
	assert_false(glob_spec__match(&s, "open_config", "myapp"));
	assert_true(glob_spec__match_image(&s, "/usr/local/bin/myapp"));
	assert_false(glob_spec__match_image(&s, "/usr/local/bin/myapp2"));
	glob_spec__free(&s);

	assert_int_equal(glob_spec__parse("do_*[./prog]", &s), 0);
	assert_int_equal(s.image_kind, GLOB_IMAGE_PATH);
	assert_string_equal(s.image, "./prog");
	glob_spec__free(&s);

	/* a library file name glob: ".so" at the end, before a version or a star */
	assert_int_equal(glob_spec__parse("SSL_* [libssl.so*]", &s), 0);
	assert_int_equal(s.image_kind, GLOB_IMAGE_LIB);
	assert_string_equal(s.image, "libssl.so*");
	assert_true(glob_spec__match_image(&s, "/usr/lib/x86_64-linux-gnu/libssl.so.3"));
	assert_true(glob_spec__match_image(&s, "libssl.so"));
	assert_false(glob_spec__match_image(&s, "/usr/lib/libcrypto.so.3"));
	assert_string_equal(glob_spec__str(&s, buf, sizeof(buf)), "SSL_* [libssl.so*]");
	glob_spec__free(&s);
	assert_int_equal(glob_spec__parse("malloc [libc.so.6]", &s), 0);
	assert_int_equal(s.image_kind, GLOB_IMAGE_LIB);
	glob_spec__free(&s);

	/* module-like brackets stay kernel modules: "sox" and "*so*" name no library */
	assert_int_equal(glob_spec__parse("foo [snd_sox]", &s), 0);
	assert_int_equal(s.image_kind, GLOB_IMAGE_NONE);
	assert_string_equal(s.mod, "snd_sox");
	glob_spec__free(&s);
	assert_int_equal(glob_spec__parse("foo [*so*]", &s), 0);
	assert_int_equal(s.image_kind, GLOB_IMAGE_NONE);
	glob_spec__free(&s);

	/* source globs on a user binary; a kernel source bracket stays in the path */
	assert_int_equal(glob_spec__parse(":src/*.c [./prog]", &s), 0);
	assert_int_equal(s.kind, GLOB_SRC_PATH);
	assert_string_equal(s.name, "src/*.c");
	assert_string_equal(s.image, "./prog");
	assert_string_equal(glob_spec__str(&s, buf, sizeof(buf)), ":src/*.c [./prog]");
	glob_spec__free(&s);
	assert_int_equal(glob_spec__parse(":drivers/[ab].c", &s), 0);
	assert_int_equal(s.image_kind, GLOB_IMAGE_NONE);
	assert_string_equal(s.name, "drivers/[ab].c");
	glob_spec__free(&s);
}

static void test_spec_err_rules(void **state)
{
	static const struct {
		const char *arg;
		enum glob_err_rule rule;
	} ok[] = {
		{ "pthread_* [libc.so*] =errno-positive", GLOB_ERR_ERRNO_POS },
		{ "read_* [./prog]=le0", GLOB_ERR_LE0 },
		{ "is_* [./prog] \t=false", GLOB_ERR_FALSE },
		{ "log_* [/bin/x] =never", GLOB_ERR_NEVER },
		{ "f [/bin/x] =default", GLOB_ERR_DEFAULT },
		{ ":*.c [./prog] =never", GLOB_ERR_NEVER },
	};
	struct glob_spec s;
	char buf[128];
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(glob_spec__parse(ok[i].arg, &s), 0);
		assert_int_equal(s.err_rule, ok[i].rule);
		assert_true(glob_spec__is_user(&s));
		glob_spec__free(&s);
	}
	assert_int_equal(glob_spec__parse("log_* [/bin/x] =never", &s), 0);
	assert_string_equal(s.image, "/bin/x");
	assert_string_equal(glob_spec__str(&s, buf, sizeof(buf)), "log_* [/bin/x] =never");
	glob_spec__free(&s);

	/* unknown rules, and rules on kernel globs, are refused */
	assert_int_equal(glob_spec__parse("f [./prog] =sometimes", &s), -ENOMSG);
	assert_int_equal(glob_spec__parse("f [./prog] =", &s), -ENOMSG);
	assert_int_equal(glob_spec__parse("vfs_read =never", &s), -ENOMSG);
	assert_int_equal(glob_spec__parse("f [kvm] =never", &s), -ENOMSG);
	assert_int_equal(glob_spec__parse(" =never", &s), -EINVAL);
	/* '=' glued to a name is part of the name (no rule) */
	assert_int_equal(glob_spec__parse("a=b", &s), 0);
	assert_string_equal(s.name, "a=b");
	glob_spec__free(&s);
}

static int collect_cb(const char *tok, void *ctx)
{
	struct glob_list *l = ctx;
	struct glob_spec s;
	int err = glob_spec__parse(tok, &s);

	return err ?: glob_list__push(l, &s);
}

static void test_file_tokens(void **state)
{
	struct glob_list l = {};
	char path[512];

	snprintf(path, sizeof(path), "%s/cli/globs.txt", fixtures_dir());
	assert_int_equal(glob__for_each_file_token(path, collect_cb, &l), 0);
	/* whitespace-separated tokens; "#" lines are not special */
	assert_int_equal(l.cnt, 9);
	assert_string_equal(l.specs[0].name, "#");
	assert_string_equal(l.specs[4].name, "@file");
	assert_string_equal(l.specs[5].name, "array_map_*");
	assert_string_equal(l.specs[6].name, "htab_map_lookup_elem");
	assert_string_equal(l.specs[7].name, "*_sys_bpf");
	/* a glued module glob survives the split; "name [mod]" can't be written in a file */
	assert_string_equal(l.specs[8].name, "foo");
	assert_string_equal(l.specs[8].mod, "kvm");
	glob_list__free(&l);

	assert_int_equal(glob__for_each_file_token("/nonexistent/globs", collect_cb, &l), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_literal_and_anchoring),
		cmocka_unit_test(test_match_star),
		cmocka_unit_test(test_match_question),
		cmocka_unit_test(test_spec_parse_forms),
		cmocka_unit_test(test_spec_parse_errors),
		cmocka_unit_test(test_spec_truncates_long_names),
		cmocka_unit_test(test_spec_match_modules),
		cmocka_unit_test(test_spec_user_images),
		cmocka_unit_test(test_spec_err_rules),
		cmocka_unit_test(test_file_tokens),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
