// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "opts.h"
#include "ksyms.h"
#include "symbolize.h"

struct symbolize {
	struct symbolize_opts opts;
	struct ksyms *own_ksyms;
	bool load_failed;
	bool degraded;
};

/* An unsized (last) symbol can't plausibly cover more than this. */
#define MAX_UNSIZED_FUNC 0x10000

static const struct ksyms *ksyms(struct symbolize *s)
{
	if (s->opts.ksyms || s->load_failed)
		return s->opts.ksyms;
	s->own_ksyms = ksyms__load(s->opts.kallsyms_path);
	if (!s->own_ksyms) {
		s->load_failed = true;
		log_msg(s->opts.print, LOG_WARN, "Failed to load %s: %s\n",
			s->opts.kallsyms_path ?: "/proc/kallsyms", strerror(errno));
	}
	s->opts.ksyms = s->own_ksyms;
	return s->opts.ksyms;
}

struct symbolize *symbolize__new(const struct symbolize_opts *opts)
{
	struct symbolize *s;

	if (!opts__valid(opts, sizeof(*opts)))
		return errno = EINVAL, NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	OPTS_COPY(&s->opts, opts);
	return s;
}

void symbolize__free(struct symbolize *s)
{
	if (!s)
		return;
	ksyms__free(s->own_ksyms);
	free(s);
}

static bool sym_sym(void *ctx, const struct addr_space *as, __u64 addr, struct sym_hit *hit)
{
	struct symbolize *s = ctx;
	const struct ksyms *ks;
	const struct ksym *k;

	if (as->kind != ADDR_SPACE_KERNEL)
		return false;
	ks = ksyms(s);
	k = ks ? ksyms__map_addr(ks, addr) : NULL;

	/* past a function's end lies padding or something without a symbol */
	if (!k || addr - k->addr >= (k->size ?: MAX_UNSIZED_FUNC))
		return false;
	hit->name = k->name;
	hit->start = k->addr;
	hit->size = k->size;
	return true;
}

static int sym_src(void *ctx, const struct addr_space *as, __u64 addr,
		   struct src_frame *frames, int max)
{
	struct symbolize *s = ctx;
	const struct ksyms *ks;
	const struct ksym *k;
	int n;

	if (as->kind != ADDR_SPACE_KERNEL)
		return 0;
	if (!s->opts.src.lookup || s->degraded || !(ks = ksyms(s)))
		return 0;
	/* DWARF covers vmlinux only; module addresses never have link-time twins there */
	k = ksyms__map_addr(ks, addr);
	if (!k || k->module)
		return 0;
	n = s->opts.src.lookup(s->opts.src.ctx, addr - s->opts.kaslr_offset, frames, max);
	/* interrupted on purpose (Ctrl-C during a slow lookup): this address only, no warning */
	if (n == -EINTR)
		return 0;
	if (n < 0) {
		s->degraded = true;
		log_msg(s->opts.print, LOG_WARN, "WARNING: source-line symbolization failed (%d); "
			"continuing with kallsyms only.\n", n);
		return 0;
	}
	if (n > max)
		n = max;
	if (!s->opts.inlines && n > 1) {
		/* without inlines, the one line shown is where the code really is */
		frames[0] = frames[n - 1];
		n = 1;
	}
	return n;
}

struct sym_resolver symbolize__resolver(struct symbolize *s)
{
	return (struct sym_resolver){ .sym = sym_sym, .src = sym_src, .ctx = s };
}

bool symbolize__degraded(const struct symbolize *s)
{
	return s->degraded;
}
