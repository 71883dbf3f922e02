/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Source-level names of user-space symbols that a compiler mangled: C++ (Itanium ABI,
 * "_Z...") and Rust (legacy "_ZN...17h<hash>E" and v0 "_R..."), read by libiberty's
 * demangler, the one c++filt and GCC use. A C++ or Rust developer names a function as the
 * source spells it ("Server::handle_request"), and every view shows it that way.
 *
 * The name is the function's qualified name without its parameter list, return type or
 * GCC's ABI tags ("[abi:cxx11]"), as the source writes it (overloads share it, their
 * file:line tells them apart).
 * A compiler clone's suffix stays as a C function's does: "_ZN3Foo3barEv.cold" is
 * "Foo::bar.cold". A Rust v0 inherent method is named as the legacy scheme names it
 * ("ur::Server::handle", not "<ur::Server>::handle").
 */
#ifndef RETSNOOP_DEMANGLE_H
#define RETSNOOP_DEMANGLE_H

#include <stdbool.h>

/* @sym looks mangled (a prefix a demangler would read); says nothing of its validity. */
bool demangle__is_mangled(const char *sym);

/*
 * The source-level name of @sym, malloc()ed, the caller frees it; NULL with errno EINVAL
 * when @sym is not a name the demangler reads (a C symbol, a malformed one), ENOMEM.
 */
char *demangle__name(const char *sym);

#endif
