// SPDX-License-Identifier: BSD-2-Clause
/* Symbol and source-location cells shared by the stack and LBR views. */
#include <stdio.h>
#include <string.h>
#include "render.h"

bool render__ksym(const struct render_opts *o, __u64 addr, struct ksym_hit *hit)
{
	memset(hit, 0, sizeof(*hit));
	return o->syms.ksym && o->syms.ksym(o->syms.ctx, addr, hit);
}

void render__fmt_sym(char *buf, size_t sz, __u64 addr, const struct ksym_hit *hit,
		     const struct render_opts *o)
{
	size_t off = 0;

	if (o->emit_addrs)
		off = snprintf(buf, sz, " %016llx ", (unsigned long long)addr);
	if (!hit || !hit->name)
		snprintf(buf + off, sz - off, "0x%llx", (unsigned long long)addr);
	else if (o->dec_offs)
		snprintf(buf + off, sz - off, "%s+%llu", hit->name,
			 (unsigned long long)(addr - hit->start));
	else
		snprintf(buf + off, sz - off, "%s+0x%llx", hit->name,
			 (unsigned long long)(addr - hit->start));
}

void render__fmt_loc(char *buf, size_t sz, const struct src_frame *f, const char *ksym)
{
	if (ksym && f->func && strcmp(f->func, ksym) != 0)
		snprintf(buf, sz, "(%s @ %s:%d:%d)", f->func, f->file, f->line, f->col);
	else
		snprintf(buf, sz, "(%s:%d:%d)", f->file, f->line, f->col);
}

int render__src(const struct render_opts *o, __u64 addr, struct src_frame *frames, int max)
{
	return o->syms.src ? o->syms.src(o->syms.ctx, addr, frames, max) : 0;
}
