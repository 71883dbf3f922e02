// SPDX-License-Identifier: BSD-2-Clause
/* Exact-name sets (what source-path globs expand to) in discovery, on the shared fixtures. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "unit.h"
#include "func_discovery.h"
#include "records.h"

static char kallsyms_path[512], aff_path[512];

static struct func_discovery *make(struct btf *btf)
{
	struct func_discovery_opts o = {
		.sz = sizeof(o), .kallsyms_path = kallsyms_path, .aff_path = aff_path,
		.vmlinux_btf = btf, .module_btf_dir = "/nonexistent",
	};
	struct func_discovery *d = func_discovery__new(&o);

	assert_non_null(d);
	return d;
}

static bool has(const struct func_discovery *d, const char *name, __u32 *flags)
{
	size_t i;

	for (i = 0; i < func_discovery__func_cnt(d); i++) {
		const struct func *f = (&func_discovery__funcs(d)[i]);

		if (strcmp(f->name, name) == 0 && !f->module) {
			*flags = f->flags;
			return true;
		}
	}
	return false;
}

static void test_names_select_and_deny(void **state)
{
	struct btf *btf = btf__new_empty();
	static const char *const src_funcs[] = {
		"array_map_lookup_elem", "array_map_free", "__sys_bpf", "array_map_free",
		"not_traceable_anywhere",
	};
	static const char *const denied[] = { "array_map_free" };
	struct glob_spec entry = { .name = "__x64_sys_bpf", .kind = GLOB_NAME, .mandatory = true };
	struct func_discovery *d;
	__u32 flags = 0;

	snprintf(kallsyms_path, sizeof(kallsyms_path), "%s/discovery/kallsyms", fixtures_dir());
	snprintf(aff_path, sizeof(aff_path), "%s/discovery/available_filter_functions", fixtures_dir());
	d = make(btf);
	assert_int_equal(func_discovery__add_glob(d, FUNC_GLOB_ENTRY, &entry), 0);
	assert_int_equal(func_discovery__add_names(d, FUNC_GLOB_ALLOW, src_funcs, 5,
						   "kernel/bpf/*.c"), 0);
	assert_int_equal(func_discovery__add_names(d, FUNC_GLOB_DENY, denied, 1, "kernel/x.c"), 0);
	assert_true(func_discovery__is_allowed(d, "array_map_lookup_elem", NULL));
	assert_false(func_discovery__is_allowed(d, "array_map_free", NULL));	/* deny wins */
	assert_false(func_discovery__is_allowed(d, "vfs_read", NULL));
	assert_int_equal(func_discovery__run(d), 0);
	assert_true(has(d, "array_map_lookup_elem", &flags));
	assert_false(flags & FUNC_IS_ENTRY);
	assert_true(has(d, "__x64_sys_bpf", &flags));
	assert_true(flags & FUNC_IS_ENTRY);
	assert_false(has(d, "array_map_free", &flags));
	assert_false(has(d, "vfs_read", &flags));
	func_discovery__free(d);
	btf__free(btf);
}

static void test_entry_names_mark_entries(void **state)
{
	struct btf *btf = btf__new_empty();
	static const char *const entries[] = { "vfs_read" };
	struct func_discovery *d = make(btf);
	__u32 flags = 0;

	assert_int_equal(func_discovery__add_names(d, FUNC_GLOB_ENTRY, entries, 1, "fs/read_write.c"), 0);
	assert_int_equal(func_discovery__run(d), 0);
	assert_true(has(d, "vfs_read", &flags));
	assert_true(flags & FUNC_IS_ENTRY);
	func_discovery__free(d);
	btf__free(btf);
}

/*
 * Discovery's glob index (built by run(), by lead character and literal tail) gives the
 * answers of plain glob matching: each name against each glob, before the run (no index)
 * and after it.
 */
static void test_glob_index_same_answers(void **state)
{
	static const char *const globs[] = {
		"e:*sys_bpf", "a:array_map_alloc*", "a:?fs_rea?", "a:*_lock [mod*]", "a:x*y*z",
		"d:*alloc_check", "d:vfs_read", "d:*y?z",
	};
	static const char *const names[] = {
		"__x64_sys_bpf", "sys_bpf", "bpf", "sys_bpf2", "array_map_alloc",
		"array_map_alloc_check", "array_map_allo", "vfs_read", "vfs_reaD", "xfs_read",
		"fs_read", "spin_lock", "_lock", "lock", "xyz", "xaybzc", "xyyz", "xz", "x",
		"a", "", "rcu_read_lock", "bpf_spin_lock",
	};
	static const char *const mods[] = { NULL, "mod1", "other" };
	struct btf *btf = btf__new_empty();
	struct func_discovery *d = make(btf);
	bool before[sizeof(names) / sizeof(names[0])][3];
	size_t i, j, k;

	for (i = 0; i < sizeof(globs) / sizeof(globs[0]); i++) {
		enum func_glob_role role = globs[i][0] == 'e' ? FUNC_GLOB_ENTRY :
					   globs[i][0] == 'a' ? FUNC_GLOB_ALLOW : FUNC_GLOB_DENY;
		struct glob_spec spec;

		assert_int_equal(glob_spec__parse(globs[i] + 2, &spec), 0);
		spec.mandatory = role == FUNC_GLOB_ENTRY;
		assert_int_equal(func_discovery__add_glob(d, role, &spec), 0);
		glob_spec__free(&spec);
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		for (j = 0; j < 3; j++) {
			bool allow = false, deny = false;

			/* the reference: every glob tried (the built-in denylist spares these) */
			for (k = 0; k < sizeof(globs) / sizeof(globs[0]); k++) {
				struct glob_spec spec;
				bool m;

				assert_int_equal(glob_spec__parse(globs[k] + 2, &spec), 0);
				m = glob_spec__match(&spec, names[i], mods[j]);
				glob_spec__free(&spec);
				if (globs[k][0] == 'd')
					deny |= m;
				else
					allow |= m;
			}
			if (strcmp(names[i], "rcu_read_lock") == 0 ||
			    strcmp(names[i], "bpf_spin_lock") == 0)
				deny = true;	/* built-in denies */
			before[i][j] = func_discovery__is_allowed(d, names[i], mods[j]);
			if (before[i][j] != (allow && !deny))
				fail_msg("'%s' [%s]: is_allowed %d, globs say %d", names[i],
					 mods[j] ?: "vmlinux", before[i][j], allow && !deny);
		}
	}
	assert_int_equal(func_discovery__run(d), 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (j = 0; j < 3; j++)
			if (func_discovery__is_allowed(d, names[i], mods[j]) != before[i][j])
				fail_msg("'%s' [%s]: %d after the run, %d before", names[i],
					 mods[j] ?: "vmlinux", !before[i][j], before[i][j]);
	func_discovery__free(d);
	btf__free(btf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_select_and_deny),
		cmocka_unit_test(test_entry_names_mark_entries),
		cmocka_unit_test(test_glob_index_same_answers),
	};

	return cmocka_run_group_tests_name("func_discovery_names", tests, NULL, NULL);
}
