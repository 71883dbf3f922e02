// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "addr2line.h"
#include "kernel_image.h"
#include "ksyms.h"
#include "opts.h"
#include "vmlinux_dwarf.h"

struct vmlinux_dwarf {
	struct vmlinux_dwarf_opts opts;
	char path[512];
	struct addr2line *a2l;
	__u64 kaslr_offset;
};

#define pr(vd, level, ...) log_msg((vd)->opts.print, level, __VA_ARGS__)

/* Is @path the running kernel's image? 0, -ESTALE, or the errno of reading its build ID. */
static int check_build_id(const char *path)
{
	unsigned char want[BUILD_ID_MAX], got[BUILD_ID_MAX];
	int wn, gn;

	wn = kernel_image__running_build_id(want, sizeof(want));
	if (wn < 0)
		return 0;	/* the kernel doesn't say; nothing to compare against */
	gn = kernel_image__build_id(path, got, sizeof(got));
	if (gn < 0)
		return gn;
	if (gn != wn || memcmp(want, got, wn) != 0)
		return -ESTALE;
	return 0;
}

bool vmlinux_dwarf__required(const struct vmlinux_dwarf_opts *opts)
{
	struct vmlinux_dwarf_opts o;

	if (OPTS_COPY(&o, opts))
		return false;
	return o.path || o.need_src_globs || o.mode == SYMB_LINENUM || o.mode == SYMB_INLINES;
}

struct vmlinux_dwarf *vmlinux_dwarf__open(const struct vmlinux_dwarf_opts *opts)
{
	struct addr2line_opts ao = { .sz = sizeof(ao) };
	struct vmlinux_dwarf_opts o;
	struct vmlinux_dwarf *vd;
	struct utsname u;
	int err;

	if (OPTS_COPY(&o, opts))
		return errno = EINVAL, NULL;
	ao.sidecar_path = o.sidecar_path;
	ao.cancel = o.cancel;
	if (o.image && o.image_sz)
		o.image[0] = '\0';
	if (o.mode == SYMB_NONE && !o.need_src_globs)
		return errno = ENODATA, NULL;
	vd = calloc(1, sizeof(*vd));
	if (!vd)
		return NULL;
	vd->opts = o;
	if (o.path) {
		snprintf(vd->path, sizeof(vd->path), "%s", o.path);
	} else if (uname(&u) || kernel_image__find(u.release, vd->path, sizeof(vd->path),
						   o.print)) {
		err = -ENOENT;
		goto fail;
	}
	if (o.image && o.image_sz)
		snprintf(o.image, o.image_sz, "%s", vd->path);
	err = check_build_id(vd->path);
	if (err)
		goto fail;
	pr(vd, LOG_INFO, "Using vmlinux image at %s.\n", vd->path);
	vd->a2l = addr2line__new(vd->path, &ao);
	if (!vd->a2l) {
		err = -errno;
		goto fail;
	}
	pr(vd, LOG_INFO, "Sidecar PID is %d.\n", addr2line__pid(vd->a2l));
	return vd;
fail:
	vmlinux_dwarf__free(vd);
	return errno = -err, NULL;
}

void vmlinux_dwarf__free(struct vmlinux_dwarf *vd)
{
	if (!vd)
		return;
	addr2line__free(vd->a2l);
	free(vd);
}

struct name_acc {
	char **names;
	size_t cnt, cap;
};

static int collect_name(void *ctx, const char *func, __u64 addr, const char *file)
{
	struct name_acc *acc = ctx;

	if (acc->cnt == acc->cap) {
		size_t cap = acc->cap ? acc->cap * 2 : 256;
		void *tmp = realloc(acc->names, cap * sizeof(*acc->names));

		if (!tmp)
			return -ENOMEM;
		acc->names = tmp;
		acc->cap = cap;
	}
	acc->names[acc->cnt] = strdup(func);
	return acc->names[acc->cnt++] ? 0 : -ENOMEM;
}

int vmlinux_dwarf__add_src_glob(struct vmlinux_dwarf *vd, struct func_discovery *d,
				enum func_glob_role role, const struct glob_spec *spec)
{
	struct name_acc acc = {};
	size_t i;
	int err;

	err = addr2line__find_by_source_glob(vd->a2l, spec->name, collect_name, &acc);
	if (!err && acc.cnt == 0 && role == FUNC_GLOB_ENTRY && spec->mandatory)
		pr(vd, LOG_WARN, "Source glob ':%s' matches no function in the DWARF data.\n",
		   spec->name);
	if (err)
		pr(vd, LOG_ERROR, "Failed to process file paths (':%s'): %s.\n", spec->name,
		   strerror(-err));
	else
		err = func_discovery__add_names(d, role, (const char *const *)acc.names, acc.cnt,
						spec->name);
	for (i = 0; i < acc.cnt; i++)
		free(acc.names[i]);
	free(acc.names);
	return err;
}

int vmlinux_dwarf__set_kaslr(struct vmlinux_dwarf *vd, const struct ksyms *ks)
{
	const struct ksym *stext = ks ? ksyms__find(ks, "_stext") : NULL;
	__u64 text;
	int err;

	if (!stext) {
		pr(vd, LOG_ERROR, "Failed to determine _stext address from /proc/kallsyms\n");
		return -ENOENT;
	}
	err = kernel_image__text_addr(vd->path, &text);
	if (err) {
		pr(vd, LOG_WARN, "Failed to determine kernel image address (KASLR) from '%s'! "
		   "Zero is assumed.\n", vd->path);
		text = stext->addr;
	}
	vd->kaslr_offset = stext->addr - text;
	pr(vd, LOG_INFO, "KASLR offset is 0x%llx.\n", (unsigned long long)vd->kaslr_offset);
	return 0;
}

void vmlinux_dwarf__symbolize_opts(struct vmlinux_dwarf *vd, struct symbolize_opts *so)
{
	so->src.lookup = addr2line__src_lookup;
	so->src.ctx = vd->a2l;
	/* one sidecar for vmlinux and user-space images: it is already kept out of tracing */
	so->sidecar = vd->a2l;
	so->kaslr_offset = vd->kaslr_offset;
	so->inlines = vd->opts.mode != SYMB_LINENUM;
}

int vmlinux_dwarf__pids(const struct vmlinux_dwarf *vd, int *pids, int max)
{
	if (!vd || !vd->a2l)
		return 0;
	if (max > 0)
		pids[0] = addr2line__pid(vd->a2l);
	return 1;
}

void vmlinux_dwarf__print_stats(struct vmlinux_dwarf *vd)
{
	struct addr2line_stats st;

	if (!vd || vd->opts.verbose < 2 || addr2line__stats(vd->a2l, &st))
		return;
	pr(vd, LOG_DEBUG, "Symbolization sidecar: %llu lookups (%llu from its cache), %llu compile units "
	   "indexed in %.1f ms, line tables %.1f ms.\n", st.requests, st.cache_hits,
	   st.cus_indexed, st.index_ms, st.lines_ms);
}
