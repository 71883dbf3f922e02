// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "demangle.h"

/* a compiler clone's suffix begins with one: ".cold", ".isra.0" */
#define CLONE_SEP '.'
/* longer names are not read (libiberty bounds its recursion on its own as well) */
#define MAX_MANGLED 4096

/*
 * GCC's ABI tags ("app::describe[abi:cxx11]": every function returning a std::string) are
 * no part of the name the source writes: taken out, in place.
 */
static void drop_abi_tags(char *name)
{
	char *tag, *end;

	while ((tag = strstr(name, "[abi:")) && (end = strchr(tag, ']')))
		memmove(tag, end + 1, strlen(end + 1) + 1);
}

/*
 * Rust's v0 scheme writes an inherent impl's method as "<ur::Server>::handle", its legacy
 * scheme (and the source) as "ur::Server::handle": the brackets go, so one glob names it
 * whichever scheme the crate was built with. A trait impl's "<T as Trait>::f" stays.
 */
static void unwrap_inherent_impl(char *name)
{
	int depth = 0;
	char *p;

	if (name[0] != '<')
		return;
	for (p = name; *p; p++) {
		if (*p == '<') {
			depth++;
		} else if (*p == '>' && --depth == 0) {
			if (p[1] != ':' || p[2] != ':')
				return;
			break;
		} else if (depth == 1 && strncmp(p, " as ", 4) == 0) {
			return;
		}
	}
	if (!*p)
		return;
	memmove(p, p + 1, strlen(p + 1) + 1);		/* the '>' */
	memmove(name, name + 1, strlen(name + 1) + 1);	/* the '<' */
}

bool demangle__is_mangled(const char *sym)
{
	/* "_Z": C++ and Rust's legacy scheme; "_R": Rust v0 */
	return sym && sym[0] == '_' && (sym[1] == 'Z' || sym[1] == 'R') && sym[2];
}

char *demangle__name(const char *sym)
{
	const char *dot;
	char *name, *full, *out;
	bool clone;
	size_t nlen, slen;

	if (!demangle__is_mangled(sym) || strlen(sym) > MAX_MANGLED)
		return errno = EINVAL, NULL;
	/*
	 * No DMGL_PARAMS: the name without its parameter list; DMGL_RET_DROP: a template
	 * function's return type left out too ("foo<int>", not "void foo<int>").
	 */
	name = cplus_demangle(sym, DMGL_AUTO | DMGL_RET_DROP);
	if (!name)
		return errno = EINVAL, NULL;
	drop_abi_tags(name);
	if (sym[1] == 'R')
		unwrap_inherent_impl(name);
	/*
	 * A C++ clone's suffix is dropped with the parameters: put it back. Only C++'s: Rust's
	 * legacy names hold '.' of their own ("std..rt"), never a clone's mark.
	 */
	dot = strchr(sym, CLONE_SEP);
	if (!dot)
		return name;
	full = cplus_demangle(sym, DMGL_AUTO | DMGL_PARAMS);
	clone = full && strstr(full, " [clone .");
	free(full);
	if (!clone)
		return name;
	nlen = strlen(name);
	slen = strlen(dot);
	out = realloc(name, nlen + slen + 1);
	if (!out) {
		free(name);
		return errno = ENOMEM, NULL;
	}
	memcpy(out + nlen, dot, slen + 1);
	return out;
}
