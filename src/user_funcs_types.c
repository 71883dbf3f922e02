// SPDX-License-Identifier: BSD-2-Clause
/*
 * The found user functions' types from their images' DWARF: the return type's error rule
 * (where no "=RULE" glob said otherwise), the parameter count the passed-on check
 * compares with, and for -A each one's prototype as BTF of the image's own.
 */
#include <errno.h>
#include <string.h>
#include "records.h"
#include "user_dwarf.h"
#include "user_funcs_int.h"

struct types_ctx {
	struct user_funcs *uf;
	struct user_image *im;
	const char *image;
	size_t typed, protos;
	int err;
};

/*
 * -A: @f's parameters from DWARF, as BTF of the image's own (what argument plans read).
 * A compiler's clone (foo.isra.0, foo.constprop.0) may take other arguments than its
 * source says: its registers are shown raw.
 */
static void add_proto(struct types_ctx *tc, const struct user_dwarf_func *df, struct func *f)
{
	int id;

	if (f->btf || strchr(f->name, '.'))
		return;
	if (!tc->im->btf) {
		tc->im->btf = btf__new_empty();
		if (!tc->im->btf) {
			tc->im->btf = NULL;
			tc->err = -errno;
			return;
		}
	}
	id = user_dwarf__func_btf(df, tc->im->btf, f->name);
	if (id < 0) {
		pr(tc->uf, LOG_DEBUG, "No argument types for %s [%s]: %s.\n", f->name, tc->image,
		   strerror(-id));
		return;
	}
	f->btf = tc->im->btf;
	f->btf_id = id;
	f->arg_cnt = btf_vlen(btf__type_by_id(f->btf, btf__type_by_id(f->btf, id)->type));
	tc->protos++;
}

static int on_typed_func(const struct user_dwarf_func *df, void *ctx)
{
	struct types_ctx *tc = ctx;
	struct user_funcs *uf = tc->uf;
	size_t i;

	for (i = 0; i < uf->func_cnt; i++) {
		struct func *f = &uf->funcs[i];

		if (uf->addrs[i] != df->addr || strcmp(f->image, tc->image) != 0)
			continue;
		if (uf->o.arg_types)
			add_proto(tc, df, f);
		/* what BPF compares a failed sibling's error with (err_chain.bpf.h) */
		if (!f->arg_cnt && !strchr(f->name, '.'))
			f->arg_cnt = user_dwarf__func_param_cnt(df);
		/* only the default rule follows the type; "=RULE" globs keep theirs */
		if ((f->flags & FUNC_ERR_GUESS) && !(f->flags & FUNC_CANT_FAIL)) {
			f->flags = (f->flags & ~FUNC_ERR_GUESS) | df->ret_flags;
			tc->typed++;
		}
	}
	return 0;
}

/* -vv: where an image's debug file was looked for, and that it was only once */
static void report_debug_file(struct user_funcs *uf, const struct user_image *im)
{
	const struct debug_file_cache *c = &im->dbg;

	if (!c->lookups)
		return;
	pr(uf, LOG_DEBUG, "Debug file of %s: %s (%u lookup%s).\n", im->path,
	   c->err ? strerror(-c->err) : c->path, c->lookups, c->lookups == 1 ? "" : "s");
}

int uf__apply_types(struct user_funcs *uf)
{
	char dpath[4096];
	size_t i;
	int err;

	for (i = 0; i < uf->image_cnt; i++) {
		struct types_ctx tc = {
			.uf = uf, .im = &uf->images[i], .image = uf->images[i].path,
		};

		err = user_dwarf__for_each_func(tc.image, uf->images[i].elf, &uf->images[i].dbg,
						on_typed_func, &tc, dpath, sizeof(dpath));
		report_debug_file(uf, &uf->images[i]);
		if (err == -ENODATA) {
			pr(uf, LOG_INFO, "No DWARF for %s: its functions' errors are guessed from their results.\n",
			   tc.image);
			continue;
		}
		if (err || (err = tc.err))
			return err;
		pr(uf, LOG_DEBUG, "Return types of %zu functions of %s from %s.\n", tc.typed,
		   tc.image, dpath);
		if (uf->o.arg_types)
			pr(uf, LOG_DEBUG, "Argument types of %zu functions of %s from %s.\n",
			   tc.protos, tc.image, dpath);
	}
	return 0;
}

