/* SPDX-License-Identifier: BSD-2-Clause */
/* What a traced function returns, from BTF: decides what counts as an error and how it prints. */
#ifndef RETSNOOP_FUNC_TYPES_H
#define RETSNOOP_FUNC_TYPES_H

#include <stdbool.h>
#include <linux/types.h>

struct btf;
struct btf_type;

/*
 * FUNC_* result flags (records.h) of function @name whose BTF FUNC is @func_id in @btf
 * (@btf NULL or @func_id 0: no BTF, treated as returning int). BPF helpers, typed u64 in
 * BTF, get their real semantics from a built-in table first.
 */
__u32 func_types__flags(const struct btf *btf, int func_id, const char *name);

/* Parameter count of BTF FUNC @func_id, or -EINVAL if it is not a function. */
int func_types__arg_cnt(const struct btf *btf, int func_id);

/*
 * Why fentry/fexit can't attach to BTF FUNC @func_id, NULL if it can: not a function that
 * never returns (func_types__noreturn()), at most 6 integer, enum or pointer parameters,
 * no varargs, and a result that is void, an integer, enum, void * or a pointer to a
 * struct or union. The reason names the rule that failed.
 */
const char *func_types__fentry_unsupported(const struct btf *btf, int func_id);
/*
 * Is @name one of the functions that never return whose fexit (and fsession) programs the
 * kernel refuses to load (its noreturn_deny list, 6.6+; kthread_exit of older lists too)?
 */
bool func_types__noreturn(const char *name);

/* The type behind @id's modifiers and typedefs (*@res_id: its id, if given); NULL if none. */
const struct btf_type *func_types__skip_mods(const struct btf *btf, __u32 id, __u32 *res_id);

/* A one-byte integer that is a character (compilers don't set BTF_INT_CHAR: by name). */
bool func_types__is_char(const struct btf *btf, const struct btf_type *t);

#endif
