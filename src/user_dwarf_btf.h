/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A user-space function's prototype from DWARF, as a BTF FUNC: what -A's capture plans
 * (arg_plan.c), renderers and capture files already read for kernel functions, so user
 * functions get the same plans and the same output with no second renderer.
 *
 * Only what the plan and the renderer use is converted: the parameters' types in full
 * down to the first pointer (a pointer argument's pointee is read and shown), pointers
 * below that as void * (shown as their value). Where the calling convention would pass an
 * argument somewhere the plan can't know (floating-point registers, x87 long double), the
 * argument, and any that follow it when their places are in doubt, get a type the plan
 * calls unsupported, never a wrong place. The ABI's other moves are written into the
 * prototype: a C++ class that isn't trivially copyable is a pointer to a copy, and x86-64's
 * slot for a returned object (a struct over 16 bytes, such a class) a leading
 * ARG_PLAN_RET_SLOT parameter (arg_plan.h).
 */
#ifndef RETSNOOP_USER_DWARF_BTF_H
#define RETSNOOP_USER_DWARF_BTF_H

#include <elfutils/libdw.h>

struct btf;
struct dwarf_btf;

/* A converter into @btf for DIEs of one Dwarf (types met twice are added once). */
struct dwarf_btf *dwarf_btf__new(struct btf *btf);
void dwarf_btf__free(struct dwarf_btf *db);
struct btf *dwarf_btf__btf(const struct dwarf_btf *db);

/* Add subprogram @fn as FUNC @name (its prototype with it); the FUNC's id or -errno. */
int dwarf_btf__add_func(struct dwarf_btf *db, Dwarf_Die *fn, const char *name);

#endif
