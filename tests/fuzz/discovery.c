// SPDX-License-Identifier: BSD-2-Clause
/*
 * Function discovery (src/func_discovery.c) over hostile /proc/kallsyms and tracefs
 * available_filter_functions contents: the two parsers' results meet here (duplicates,
 * modules, hidden addresses). Input: kallsyms text, NUL, available_filter_functions text,
 * NUL, then glob lines "e GLOB", "a GLOB", "d GLOB" (entry/allow/deny) and exact names as
 * source-path globs expand to, "s NAME" (allowed) and "x NAME" (denied); a line "F" asks
 * for fentry mode. vmlinux BTF is a small fixed one; the module BTF directory is empty, with a
 * valid module BTF file right next to it that no module name may reach.
 * Every function found is a kallsyms function of that name and module, at a non-zero
 * address, allowed by the globs, and without module BTF.
 */
#include <errno.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include "fuzz.h"
#include "func_discovery.h"
#include "ksyms.h"

static struct btf *vmlinux_btf;
static char tmp_dir[] = "/tmp/retsnoop-fuzz-disc-XXXXXX", btf_dir[64], mod_path[64];

static void cleanup(void)
{
	unlink(mod_path);
	rmdir(btf_dir);
	rmdir(tmp_dir);
}

static void quiet(int level, const char *fmt, va_list args)
{
}

static void add_func(struct btf *btf, const char *name, int ret, int arg)
{
	int proto = btf__add_func_proto(btf, ret);

	if (arg)
		btf__add_func_param(btf, "a", arg);
	btf__add_func(btf, name, BTF_FUNC_GLOBAL, proto);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const void *raw;
	struct btf *mod;
	int t_int, t_long, t_ptr;
	__u32 sz;
	FILE *f;

	if (!mkdtemp(tmp_dir))
		abort();
	snprintf(btf_dir, sizeof(btf_dir), "%s/btf", tmp_dir);
	snprintf(mod_path, sizeof(mod_path), "%s/mod", tmp_dir);
	if (mkdir(btf_dir, 0700))
		abort();
	atexit(cleanup);
	vmlinux_btf = btf__new_empty();
	t_int = btf__add_int(vmlinux_btf, "int", 4, BTF_INT_SIGNED);
	t_long = btf__add_int(vmlinux_btf, "long", 8, BTF_INT_SIGNED);
	t_ptr = btf__add_ptr(vmlinux_btf, 0);
	add_func(vmlinux_btf, "__x64_sys_bpf", t_long, t_ptr);
	add_func(vmlinux_btf, "__sys_bpf", t_int, t_int);
	add_func(vmlinux_btf, "array_map_lookup_elem", t_ptr, t_ptr);
	add_func(vmlinux_btf, "dup_static", t_int, 0);
	add_func(vmlinux_btf, "vfs_read", t_long, t_ptr);
	add_func(vmlinux_btf, "common_name", t_int, t_int);

	/* "../mod" from btf_dir: a module BTF that must stay out of reach */
	mod = btf__new_empty_split(vmlinux_btf);
	add_func(mod, "common_name", t_int, t_int);
	add_func(mod, "mod_fn", t_int, t_int);
	raw = btf__raw_data(mod, &sz);
	f = fopen(mod_path, "we");
	if (!f || !raw || fwrite(raw, 1, sz, f) != sz)
		abort();
	fclose(f);
	btf__free(mod);
	return 0;
}

/* Split @data at the first NUL into @part (NUL-free, may be empty); returns the rest. */
static const uint8_t *take(const uint8_t *data, size_t *size, const uint8_t **part,
			   size_t *part_len)
{
	const uint8_t *nul = memchr(data, 0, *size);

	*part = data;
	*part_len = nul ? (size_t)(nul - data) : *size;
	*size -= nul ? *part_len + 1 : *part_len;
	return nul ? nul + 1 : data + *part_len;
}

static void check_funcs(const struct func_discovery *d)
{
	const struct ksyms *ks = func_discovery__ksyms(d);
	size_t i, j, n;

	for (i = 0; i < func_discovery__func_cnt(d); i++) {
		const struct func *f = &func_discovery__funcs(d)[i];
		const struct ksym *const *syms;
		bool found = false;

		FUZZ_CHECK(f->name[0] && f->addr);
		FUZZ_CHECK(func_discovery__is_allowed(d, f->name, f->module));
		FUZZ_CHECK(!f->module || !f->btf);	/* the module BTF dir is empty */
		FUZZ_CHECK(f->module || !f->btf || f->btf == vmlinux_btf);
		n = ksyms__find_funcs(ks, f->name, f->module, &syms);
		for (j = 0; j < n; j++)
			found |= syms[j]->addr == f->addr;
		FUZZ_CHECK(found);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct func_discovery_opts o = {
		.sz = sizeof(o), .vmlinux_btf = vmlinux_btf, .module_btf_dir = btf_dir,
		.print = quiet, .max_func_cnt = 64,
	};
	const uint8_t *ks, *aff, *globs;
	size_t ks_len, aff_len, globs_len;
	struct func_discovery *d;
	char *lines, *line, *next;
	int err;

	data = take(data, &size, &ks, &ks_len);
	data = take(data, &size, &aff, &aff_len);
	take(data, &size, &globs, &globs_len);
	o.kallsyms_path = fuzz_file(0, ks, ks_len);
	o.aff_path = fuzz_file(1, aff, aff_len);

	lines = fuzz_strdup(globs, globs_len);
	for (line = lines; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strcmp(line, "F") == 0)
			o.fentry = true;
	}
	d = func_discovery__new(&o);
	if (!d)
		abort();
	for (line = lines; line < lines + globs_len; line += strlen(line) + 1) {
		enum func_glob_role role = line[0] == 'e' ? FUNC_GLOB_ENTRY :
					   line[0] == 'a' ? FUNC_GLOB_ALLOW : FUNC_GLOB_DENY;
		struct glob_spec spec;

		if (!line[0] || line[1] != ' ')
			continue;
		if (line[0] == 's' || line[0] == 'x') {
			const char *name = line + 2;

			err = func_discovery__add_names(d, line[0] == 's' ? FUNC_GLOB_ALLOW :
							FUNC_GLOB_DENY, &name, 1, "fuzz/*.c");
			FUZZ_CHECK(!err);
			continue;
		}
		if (glob_spec__parse(line + 2, &spec))
			continue;
		spec.mandatory = role == FUNC_GLOB_ENTRY && spec.kind == GLOB_NAME;
		err = func_discovery__add_glob(d, role, &spec);
		FUZZ_CHECK(!err || err == -EOPNOTSUPP);
		glob_spec__free(&spec);
	}

	err = func_discovery__run(d);
	FUZZ_CHECK(!err || err == -ENOENT || err == -E2BIG || err == -EINVAL || err == -EPERM);
	if (!err) {
		FUZZ_CHECK(func_discovery__func_cnt(d) > 0 && func_discovery__func_cnt(d) <= 64);
		FUZZ_CHECK(func_discovery__stats(d)->found_cnt == func_discovery__func_cnt(d));
	}
	if (func_discovery__ksyms(d))
		check_funcs(d);
	func_discovery__free(d);
	free(lines);
	return 0;
}
