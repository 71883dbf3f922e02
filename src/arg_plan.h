/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Argument capture plans (-A): for each traced function, where every argument is at entry
 * (a register, a register pair or a stack slot, by the architecture's calling convention)
 * and what to read (its value, the bytes it points to, or a string), decided once from
 * BTF. BPF gets each plan's wire half (struct func_args_spec, records.h) and does no type
 * work per call; the sample builder and the renderers get the rest (names and types).
 */
#ifndef RETSNOOP_ARG_PLAN_H
#define RETSNOOP_ARG_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "func.h"
#include "records.h"

/* Stack arguments further than this above the stack pointer are not read. */
#define ARG_MAX_STACK_OFF	512

enum arg_kind {
	ARG_VALUE,		/* by value: integer, enum, struct, union */
	ARG_VALUE_BY_REF,	/* by value, but passed as a pointer to a copy (arm64, > 16 bytes) */
	ARG_RAW_PTR,		/* a pointer shown as its value (void *, functions, pointers to pointers) */
	ARG_PTR,		/* the bytes a pointer points to, shown with '&' */
	ARG_STR,		/* the string a char pointer points to */
	ARG_VARARG,		/* a printf-like function's vararg: a number, or a string */
	ARG_RAW_REG,		/* no BTF: an argument register's raw value */
	ARG_UNSUPP,		/* a type that isn't captured: "(unsupp)" */
	ARG_SKIP_VARARG,	/* the "..." of a function that isn't printf-like: "(vararg)" */
	ARG_STACK_TOO_FAR,	/* beyond ARG_MAX_STACK_OFF: "(stack-too-far)" */
};

struct arg_plan {
	const char *name;	/* parameter name; vararg0.. for varargs, arg0.. without BTF */
	enum arg_kind kind;
	__u32 type_id;		/* ARG_VALUE*: the argument's type, ARG_PTR: the pointee's */
	__u32 size;		/* full size of that type (the capture may be shorter) */
	struct fnarg_spec wire;	/* what BPF reads */
};

struct func_arg_plan {
	const struct btf *btf;	/* where type_id lives; NULL: no BTF (raw registers) */
	int arg_cnt;
	int fmt_idx;		/* printf-like: the format string argument, else -1 */
	struct arg_plan args[MAX_FNARGS];
};

/*
 * The name of a leading BTF parameter that is no argument: the caller's slot for a returned
 * object (x86-64, user functions' BTF from DWARF: a struct over 16 bytes, a C++ class that
 * isn't trivially copyable). It takes the first register; the plan leaves it out. No C
 * identifier can be it. Without it (the kernel's BTF) a returned struct over 16 bytes says
 * the same.
 */
#define ARG_PLAN_RET_SLOT "<return slot>"

/* A calling convention: how integer-class arguments are passed at function entry. */
struct arg_arch {
	const char *name;
	int reg_cnt;			/* arguments passed in registers */
	const char *const *reg_names;
	int stack_off;			/* from the stack pointer at entry to the first stack argument */
	int stack_slot;			/* stack arguments take multiples of this many bytes */
	bool big_by_ref;		/* composites over 16 bytes go as a pointer to a copy */
	/* a returned composite over 16 bytes: its slot's address in the first register */
	bool ret_slot_first;
	bool spill_ends_regs;		/* an argument that didn't fit in registers ends register use */
};

extern const struct arg_arch arg_arch_x86_64;
extern const struct arg_arch arg_arch_arm64;

/* The architecture retsnoop was built for, NULL where argument capture is unsupported. */
const struct arg_arch *arg_arch__host(void);

struct arg_limits {
	int max_sized;		/* args.max-sized-arg-size: value or pointee bytes */
	int max_str;		/* args.max-str-arg-size: string bytes, NUL included */
};

/* What a zero limit in arg_plans_opts means (the -C args.* defaults). */
#define ARG_LIMIT_DEFAULT 256

/*
 * Plan function @btf_id (a BTF FUNC) of @btf; @btf NULL or @btf_id 0: the raw argument
 * registers. 0, or -EINVAL if @btf_id is not a function.
 */
int arg_plan__build(struct func_arg_plan *p, const struct btf *btf, int btf_id,
		    const struct arg_arch *arch, const struct arg_limits *lim);
struct btf_type;

/*
 * What to read behind a pointer of BTF type @ptr (a PTR): the string, the pointee, or
 * just the pointer's value. Sets @a's kind, type, size, wire kind and length, not where
 * the pointer is (wire.loc and wire.off).
 */
void arg_plan__ptr(const struct btf *btf, const struct btf_type *ptr, struct arg_plan *a,
		   const struct arg_limits *lim);
/* What BPF needs of @p. */
void arg_plan__wire(const struct func_arg_plan *p, struct func_args_spec *spec);
/* One line for -vv: "cmd=rdi:4 attr=&rsi:144 name=str(rdx):256 ..." */
void arg_plan__describe(const struct func_arg_plan *p, const struct arg_arch *arch,
			char *buf, size_t sz);

/*
 * @p as bytes for a capture file (arg_plan_io.c): names and the argument types, copied
 * into a BTF of their own. *out is malloc()ed. 0 or -errno.
 */
int arg_plan__serialize(const struct func_arg_plan *p, void **out, size_t *len);
/*
 * Back from arg_plan__serialize(): names point into @data (keep it), *btf is the plan's
 * own copy of its types (NULL if it had none), to free with btf__free().
 */
int arg_plan__deserialize(const void *data, size_t len, struct func_arg_plan *p,
			  struct btf **btf);

/* The plans of a run's function table, indexed by function id. */
struct arg_plans;

struct arg_plans_opts {
	size_t sz;			/* sizeof(struct arg_plans_opts) */
	const struct arg_arch *arch;	/* NULL: the host's */
	struct arg_limits limits;	/* a zero limit: ARG_LIMIT_DEFAULT */
};

/* Plan every function of @funcs; NULL with errno set (EOPNOTSUPP: no @arch known). */
struct arg_plans *arg_plans__new(const struct func *funcs, size_t cnt,
				 const struct arg_plans_opts *opts);
/*
 * An empty table of @cnt plans to fill with arg_plans__set() (replaying a capture). @btf
 * of a plan set there is owned by the table from then on; names must outlive it.
 */
struct arg_plans *arg_plans__new_empty(size_t cnt);
int arg_plans__set(struct arg_plans *ps, __u32 func_id, const struct func_arg_plan *p,
		   struct btf *owned_btf);
/* The plan of @func_id, NULL if there is none. */
const struct func_arg_plan *arg_plans__get(const struct arg_plans *ps, __u32 func_id);
size_t arg_plans__cnt(const struct arg_plans *ps);
const struct arg_arch *arg_plans__arch(const struct arg_plans *ps);
void arg_plans__free(struct arg_plans *ps);

#endif
