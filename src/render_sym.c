// SPDX-License-Identifier: BSD-2-Clause
/* Symbol and source-location cells shared by the stack and LBR views. */
#include <stdio.h>
#include <string.h>
#include "render.h"

void render__fmt_sym(char *buf, size_t sz, const struct code_loc *loc, bool filtered,
		     const struct view_opts *v)
{
	size_t off = 0;

	if (v->emit_addrs)
		off = snprintf(buf, sz, "%c%016llx ", filtered ? '~' : ' ',
			       (unsigned long long)loc->addr);
	if (off >= sz)
		return;
	if (!loc->sym && loc->as.kind == ADDR_SPACE_USER && loc->image.path) {
		const char *base = strrchr(loc->image.path, '/');

		/* no symbol (a stripped binary): where it is in which file */
		snprintf(buf + off, sz - off, "[%s+0x%llx]", base ? base + 1 : loc->image.path,
			 (unsigned long long)loc->image.file_off);
	} else if (!loc->sym) {
		snprintf(buf + off, sz - off, "0x%llx", (unsigned long long)loc->addr);
	} else if (v->dec_offs) {
		snprintf(buf + off, sz - off, "%s+%llu", loc->sym,
			 (unsigned long long)(loc->addr - loc->sym_start));
	} else {
		snprintf(buf + off, sz - off, "%s+0x%llx", loc->sym,
			 (unsigned long long)(loc->addr - loc->sym_start));
	}
}

/* A scoped name's last component: after its last "::" outside template arguments. */
static const char *last_component(const char *name)
{
	const char *p, *last = name;
	int depth = 0;

	for (p = name; *p; p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth)
			depth--;
		else if (!depth && p[0] == ':' && p[1] == ':')
			last = ++p + 1;
	}
	return last;
}

/* A name's length without its template arguments (an operator's '<' is its name). */
static size_t base_len(const char *name)
{
	const char *lt = strchr(name, '<');

	return lt && !strstr(name, "operator") ? (size_t)(lt - name) : strlen(name);
}

/*
 * DWARF names a C++ function without its scope and spells template arguments its own way
 * ("parse<long int>"), the demangled symbol with the scope ("cfg::parse<long>"): the same
 * function. Kernel names have neither scopes nor templates: they must be equal.
 */
static bool same_func(const char *dwarf_name, const char *sym)
{
	const char *last = last_component(sym);
	size_t n = base_len(dwarf_name);

	if (strcmp(dwarf_name, sym) == 0)
		return true;
	return n == base_len(last) && strncmp(dwarf_name, last, n) == 0 &&
	       (last != sym || strchr(sym, '<'));
}

void render__fmt_loc(char *buf, size_t sz, const struct src_frame *f, const char *ksym)
{
	if (ksym && f->func && !same_func(f->func, ksym))
		snprintf(buf, sz, "(%s @ %s:%d:%d)", f->func, f->file, f->line, f->col);
	else
		snprintf(buf, sz, "(%s:%d:%d)", f->file, f->line, f->col);
}

const char *render__inline_indent(const struct view_opts *v)
{
	return v->emit_addrs ? "                  " : "";
}
