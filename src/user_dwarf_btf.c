// SPDX-License-Identifier: BSD-2-Clause
#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "arg_plan.h"
#include "records.h"
#include "user_dwarf_btf.h"

/* Deeper type chains than this are not followed (a corrupt DWARF could loop). */
#define MAX_TYPE_DEPTH	32
/* A composite's members; more are not shown (BTF's own limit is 65535). */
#define MAX_MEMBERS	1024
#define MAX_DIMS	8

struct memo {
	Dwarf_Off off;
	int id;
};

struct dwarf_btf {
	struct btf *btf;
	struct memo *memo;
	size_t cnt, cap;
	int void_ptr;		/* void *, 0 until needed */
	int idx_type;		/* arrays' index type, 0 until needed */
	int unsupp;		/* what isn't converted: not captured, 0 until needed */
};

struct dwarf_btf *dwarf_btf__new(struct btf *btf)
{
	struct dwarf_btf *db = calloc(1, sizeof(*db));

	if (db)
		db->btf = btf;
	return db;
}

void dwarf_btf__free(struct dwarf_btf *db)
{
	if (!db)
		return;
	free(db->memo);
	free(db);
}

struct btf *dwarf_btf__btf(const struct dwarf_btf *db)
{
	return db->btf;
}

static int memo_get(const struct dwarf_btf *db, Dwarf_Off off)
{
	size_t i;

	for (i = 0; i < db->cnt; i++)
		if (db->memo[i].off == off)
			return db->memo[i].id;
	return -1;
}

static void memo_put(struct dwarf_btf *db, Dwarf_Off off, int id)
{
	struct memo *m;

	if (db->cnt == db->cap) {
		m = realloc(db->memo, (db->cap * 2 ?: 64) * sizeof(*m));
		if (!m)
			return;		/* only slower: the type is added again next time */
		db->memo = m;
		db->cap = db->cap * 2 ?: 64;
	}
	db->memo[db->cnt++] = (struct memo){ off, id };
}

/* A type the plan can't capture (is_sized() false, not a pointer): "(unsupp)". */
static int unsupp(struct dwarf_btf *db)
{
	if (!db->unsupp)
		db->unsupp = btf__add_fwd(db->btf, "__unsupported", BTF_FWD_STRUCT);
	return db->unsupp;
}

static int void_ptr(struct dwarf_btf *db)
{
	if (!db->void_ptr)
		db->void_ptr = btf__add_ptr(db->btf, 0);
	return db->void_ptr;
}

static bool type_of(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, DW_AT_type, &attr) && dwarf_formref_die(&attr, type);
}

static Dwarf_Word udata(Dwarf_Die *die, int name, Dwarf_Word dflt)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;

	if (!dwarf_attr_integrate(die, name, &attr) || dwarf_formudata(&attr, &v) != 0)
		return dflt;
	return v;
}

static int conv(struct dwarf_btf *db, Dwarf_Die *type, bool top, int depth);

/* What @die's DW_AT_type is (void without one); @top: pointers keep their pointee. */
static int conv_ref(struct dwarf_btf *db, Dwarf_Die *die, bool top, int depth)
{
	Dwarf_Die t;

	if (!type_of(die, &t))
		return 0;
	return conv(db, &t, top, depth + 1);
}

static int conv_base(struct dwarf_btf *db, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die) ?: "?";
	int size = dwarf_bytesize(die);

	switch (udata(die, DW_AT_encoding, 0)) {
	case DW_ATE_signed:
	case DW_ATE_signed_char:
		if (size == 1 || size == 2 || size == 4 || size == 8 || size == 16)
			return btf__add_int(db->btf, name, size, BTF_INT_SIGNED);
		break;
	case DW_ATE_unsigned:
	case DW_ATE_unsigned_char:
	case DW_ATE_UTF:
		if (size == 1 || size == 2 || size == 4 || size == 8 || size == 16)
			return btf__add_int(db->btf, name, size, 0);
		break;
	case DW_ATE_boolean:
		if (size == 1)
			return btf__add_int(db->btf, name, size, BTF_INT_BOOL);
		break;
	case DW_ATE_float:
		if (size == 2 || size == 4 || size == 8 || size == 12 || size == 16)
			return btf__add_float(db->btf, name, size);
		break;
	}
	return unsupp(db);
}

/* A member's bit offset: DWARF 4+ data_bit_offset, else byte location (+ DWARF 2 bit_offset). */
static bool member_bit_off(Dwarf_Die *m, __u32 bit_sz, __u32 *off)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	int bytes;

	if (dwarf_attr(m, DW_AT_data_bit_offset, &attr)) {
		if (dwarf_formudata(&attr, &v) != 0)
			return false;
		*off = v;
		return true;
	}
	v = 0;
	/* a location that is an expression (virtual bases) is not followed */
	if (dwarf_attr(m, DW_AT_data_member_location, &attr) && dwarf_formudata(&attr, &v) != 0)
		return false;
	*off = v * 8;
	if (bit_sz && dwarf_attr(m, DW_AT_bit_offset, &attr)) {
		/* counted from the storage unit's most significant bit (little-endian here) */
		bytes = dwarf_bytesize(m);
		if (bytes <= 0 || dwarf_formudata(&attr, &v) != 0)
			return false;
		*off += bytes * 8 - v - bit_sz;
	}
	return true;
}

struct member {
	const char *name;
	int type;
	__u32 bit_off, bit_sz;
};

/* A struct without members (an empty C++ base, an allocator): nothing to show. */
static bool empty_composite(const struct dwarf_btf *db, int id)
{
	const struct btf_type *t = btf__type_by_id(db->btf, id);

	return t && (btf_is_struct(t) || btf_is_union(t)) && btf_vlen(t) == 0;
}

static int conv_composite(struct dwarf_btf *db, Dwarf_Die *die, int depth)
{
	bool is_union = dwarf_tag(die) == DW_TAG_union_type;
	const char *name = dwarf_diename(die);
	struct member *ms;
	int size = dwarf_bytesize(die), id, n = 0, i;
	Dwarf_Die c;

	if (dwarf_hasattr(die, DW_AT_declaration) || size < 0)
		return btf__add_fwd(db->btf, name && name[0] ? name : "__anon",
				    is_union ? BTF_FWD_UNION : BTF_FWD_STRUCT);
	ms = calloc(MAX_MEMBERS, sizeof(*ms));
	if (!ms)
		return -ENOMEM;
	/* members' types first: a struct's fields must follow it in BTF */
	for (id = dwarf_child(die, &c); id == 0 && n < MAX_MEMBERS; id = dwarf_siblingof(&c, &c)) {
		struct member *m = &ms[n];
		bool base = dwarf_tag(&c) == DW_TAG_inheritance;

		if (!base && (dwarf_tag(&c) != DW_TAG_member || dwarf_hasattr(&c, DW_AT_external)))
			continue;	/* C++ static members, methods, nested types */
		/* a virtual base's place is an expression: not followed */
		m->bit_sz = base ? 0 : udata(&c, DW_AT_bit_size, 0);
		if (!member_bit_off(&c, m->bit_sz, &m->bit_off) || m->bit_sz > 255 ||
		    m->bit_off > 0xffffff || (is_union && m->bit_off))
			continue;
		m->type = conv_ref(db, &c, false, depth);
		if (m->type < 0) {
			id = m->type;
			goto out;
		}
		/* what can't be shown is left out rather than break the whole value */
		if (m->type == db->unsupp || (base && empty_composite(db, m->type)))
			continue;
		/* a C++ base class: its members are the object's, an unnamed member holds them */
		m->name = base ? NULL : dwarf_diename(&c);
		n++;
	}
	id = is_union ? btf__add_union(db->btf, name, size) : btf__add_struct(db->btf, name, size);
	for (i = 0; id > 0 && i < n; i++) {
		int err = btf__add_field(db->btf, ms[i].name, ms[i].type, ms[i].bit_off,
					 ms[i].bit_sz);

		if (err)
			id = err;
	}
out:
	free(ms);
	return id;
}

static int conv_enum(struct dwarf_btf *db, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);
	int size = dwarf_bytesize(die), id, err = 0;
	bool is_signed = false;
	Dwarf_Attribute attr;
	Dwarf_Die c, u;
	Dwarf_Sword v;

	if (size != 1 && size != 2 && size != 4 && size != 8)
		return unsupp(db);
	if (type_of(die, &u) && dwarf_peel_type(&u, &u) == 0)
		is_signed = udata(&u, DW_AT_encoding, 0) == DW_ATE_signed;
	id = size == 8 ? btf__add_enum64(db->btf, name, size, is_signed) :
			 btf__add_enum(db->btf, name, size);
	if (id < 0)
		return id;
	for (err = dwarf_child(die, &c); err == 0; err = dwarf_siblingof(&c, &c)) {
		const char *en = dwarf_diename(&c);

		if (dwarf_tag(&c) != DW_TAG_enumerator || !en || !en[0] ||
		    !dwarf_attr(&c, DW_AT_const_value, &attr) || dwarf_formsdata(&attr, &v) != 0)
			continue;
		if (size == 8) {
			if (btf__add_enum64_value(db->btf, en, v))
				break;
		} else if (v >= INT32_MIN && v <= (Dwarf_Sword)UINT32_MAX) {
			if (btf__add_enum_value(db->btf, en, v))
				break;
		}
	}
	return id;
}

static int conv_array(struct dwarf_btf *db, Dwarf_Die *die, int depth)
{
	Dwarf_Word cnt[MAX_DIMS];
	int elem, n = 0, r;
	Dwarf_Die c;

	elem = conv_ref(db, die, false, depth);
	if (elem < 0 || elem == db->unsupp)
		return elem;
	for (r = dwarf_child(die, &c); r == 0 && n < MAX_DIMS; r = dwarf_siblingof(&c, &c)) {
		if (dwarf_tag(&c) != DW_TAG_subrange_type)
			continue;
		/* no bound: a flexible array member, nothing of it is shown */
		cnt[n] = udata(&c, DW_AT_count, dwarf_hasattr(&c, DW_AT_upper_bound) ?
						    udata(&c, DW_AT_upper_bound, 0) + 1 : 0);
		n++;
	}
	if (!db->idx_type)
		db->idx_type = btf__add_int(db->btf, "__ARRAY_SIZE_TYPE__", 4, 0);
	if (db->idx_type < 0)
		return db->idx_type;
	while (n-- > 0 && elem > 0)
		elem = btf__add_array(db->btf, db->idx_type, elem, cnt[n] > UINT32_MAX ? 0 : cnt[n]);
	return elem;
}

/* A modifier or typedef of @ref: what can't be captured stays that, whatever its name. */
static int wrap(struct dwarf_btf *db, Dwarf_Die *die, int tag, int ref)
{
	const char *name;

	if (ref < 0 || (ref && ref == db->unsupp))
		return ref;
	switch (tag) {
	case DW_TAG_const_type:
		return btf__add_const(db->btf, ref);
	case DW_TAG_volatile_type:
		return btf__add_volatile(db->btf, ref);
	case DW_TAG_restrict_type:
		return btf__add_restrict(db->btf, ref);
	default:
		name = dwarf_diename(die);
		return name && name[0] ? btf__add_typedef(db->btf, name, ref) : ref;
	}
}

/*
 * @type as a BTF type id (0: void). @top: a parameter's own type, down to its first
 * pointer, whose pointee is converted too; below that pointers are void * (their value
 * is all that is shown of them).
 */
static int conv(struct dwarf_btf *db, Dwarf_Die *type, bool top, int depth)
{
	Dwarf_Off off = dwarf_dieoffset(type);
	int tag = dwarf_tag(type), id;
	/* a struct, enum or array is the same type wherever met: by value at the top too */
	bool keep = !top || tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
		    tag == DW_TAG_union_type || tag == DW_TAG_enumeration_type ||
		    tag == DW_TAG_array_type;

	if (depth > MAX_TYPE_DEPTH)
		return unsupp(db);
	if (keep && (id = memo_get(db, off)) >= 0)
		return id;
	switch (tag) {
	case DW_TAG_base_type:
		id = conv_base(db, type);
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		if (!top) {
			id = void_ptr(db);
			break;
		}
		id = conv_ref(db, type, false, depth);
		if (id >= 0)
			id = btf__add_ptr(db->btf, id == db->unsupp ? 0 : id);
		break;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_typedef:
		id = wrap(db, type, tag, conv_ref(db, type, top, depth));
		break;
	case DW_TAG_atomic_type:
		id = conv_ref(db, type, top, depth);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		id = conv_composite(db, type, depth);
		keep = true;
		break;
	case DW_TAG_enumeration_type:
		id = conv_enum(db, type);
		keep = true;
		break;
	case DW_TAG_array_type:
		id = conv_array(db, type, depth);
		keep = true;
		break;
	case DW_TAG_subroutine_type:
		id = 0;		/* only met behind a pointer: a function pointer is its value */
		break;
	default:
		id = unsupp(db);
		break;
	}
	if (keep && id > 0)
		memo_put(db, off, id);
	return id;
}

/* Which eightbytes of a composite hold integers and which floating point (x86-64 SysV). */
static void classify(Dwarf_Die *type, __u64 off, bool ints[2], bool fps[2], int depth)
{
	Dwarf_Die t, c;
	int r, size;

	if (depth > MAX_TYPE_DEPTH || off >= 16 || dwarf_peel_type(type, &t) != 0)
		return;
	switch (dwarf_tag(&t)) {
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		for (r = dwarf_child(&t, &c); r == 0; r = dwarf_siblingof(&c, &c)) {
			Dwarf_Die mt;
			__u32 bo;

			if ((dwarf_tag(&c) != DW_TAG_member && dwarf_tag(&c) != DW_TAG_inheritance) ||
			    dwarf_hasattr(&c, DW_AT_external) ||
			    !member_bit_off(&c, udata(&c, DW_AT_bit_size, 0), &bo) ||
			    !type_of(&c, &mt))
				continue;
			classify(&mt, off + bo / 8, ints, fps, depth + 1);
		}
		return;
	case DW_TAG_array_type: {
		Dwarf_Die et;
		Dwarf_Word i, esz;

		if (!type_of(&t, &et) || dwarf_aggregate_size(&et, &esz) != 0 || !esz)
			return;
		size = dwarf_bytesize(&t);
		if (size < 0 && dwarf_aggregate_size(&t, &i) == 0)
			size = i;
		for (i = 0; size > 0 && i < (Dwarf_Word)size && off + i < 16; i += esz)
			classify(&et, off + i, ints, fps, depth + 1);
		return;
	}
	case DW_TAG_base_type:
		if (udata(&t, DW_AT_encoding, 0) == DW_ATE_float) {
			fps[off / 8] = true;
			return;
		}
		/* fallthrough */
	default:
		ints[off / 8] = true;
		return;
	}
}

enum arg_place {
	PLACE_INT,	/* integer registers, then the stack: what the plan knows */
	PLACE_FP,	/* floating-point registers only: not captured, nothing else moves */
	PLACE_UNKNOWN,	/* partly elsewhere: this and every later argument not captured */
};

/* Where @type is passed, as far as the plan's integer placement is concerned. */
static enum arg_place place_of(Dwarf_Die *type)
{
	bool ints[2] = {}, fps[2] = {};
	Dwarf_Word size;
	Dwarf_Die t;
	int tag;

	if (dwarf_peel_type(type, &t) != 0)
		return PLACE_UNKNOWN;
	tag = dwarf_tag(&t);
	if (tag == DW_TAG_base_type && udata(&t, DW_AT_encoding, 0) == DW_ATE_float)
		/* x87 long double and _Float128 go on the stack: later stack slots move */
		return dwarf_bytesize(&t) <= 8 ? PLACE_FP : PLACE_UNKNOWN;
	if (tag == DW_TAG_base_type && udata(&t, DW_AT_encoding, 0) == DW_ATE_complex_float)
		return PLACE_UNKNOWN;
	if (tag != DW_TAG_structure_type && tag != DW_TAG_class_type &&
	    tag != DW_TAG_union_type && tag != DW_TAG_array_type)
		return PLACE_INT;
	if (dwarf_aggregate_size(&t, &size) != 0)
		return PLACE_UNKNOWN;
	classify(&t, 0, ints, fps, 0);
#if defined(__x86_64__)
	/* over 16 bytes: in memory (the stack), which the plan follows */
	if (size > 16)
		return PLACE_INT;
	if (!ints[0] && !ints[1] && (fps[0] || fps[1]))
		return PLACE_FP;
	if ((fps[0] && !ints[0]) || (size > 8 && fps[1] && !ints[1]))
		return PLACE_UNKNOWN;
	return PLACE_INT;
#else
	/* AAPCS64: a floating-point-only aggregate (an HFA) goes in FP registers */
	if (size <= 32 && !ints[0] && !ints[1] && (fps[0] || fps[1]))
		return PLACE_FP;
	return PLACE_INT;
#endif
}

static bool by_invisible_ref(Dwarf_Die *type);

/*
 * x86-64: a returned struct over 16 bytes, or a class that isn't trivially copyable, takes
 * rdi for its address, moving every argument one register on (arm64 has x8 for it).
 */
static bool hidden_ret_ptr(Dwarf_Die *fn)
{
#if defined(__x86_64__)
	Dwarf_Word size;
	Dwarf_Die t;
	int tag;

	if (!type_of(fn, &t) || dwarf_peel_type(&t, &t) != 0)
		return false;
	tag = dwarf_tag(&t);
	if (tag != DW_TAG_structure_type && tag != DW_TAG_class_type && tag != DW_TAG_union_type)
		return false;
	return (dwarf_aggregate_size(&t, &size) == 0 && size > 16) || by_invisible_ref(&t);
#else
	(void)fn;
	return false;
#endif
}

/* @param's type is a reference (lvalue or rvalue) to class @cls. */
static bool refers_to(Dwarf_Die *param, Dwarf_Die *cls)
{
	const char *a, *b;
	Dwarf_Die t, u;
	int tag;

	if (!type_of(param, &t))
		return false;
	tag = dwarf_tag(&t);
	if ((tag != DW_TAG_reference_type && tag != DW_TAG_rvalue_reference_type) ||
	    !type_of(&t, &u) || dwarf_peel_type(&u, &u) != 0)
		return false;
	if (dwarf_dieoffset(&u) == dwarf_dieoffset(cls))
		return true;
	/* a declaration of it elsewhere in the CU */
	a = dwarf_diename(&u);
	b = dwarf_diename(cls);
	return a && b && strcmp(a, b) == 0;
}

/*
 * A destructor, copy or move constructor of @cls that makes it non-trivial for calls: any
 * one the class declares, but those defaulted in the class (their triviality is the
 * members', which the caller looks at). GCC writes such members only when the class
 * declares them or they are non-trivial (a member's or base's are).
 */
static bool has_nontrivial_special(Dwarf_Die *cls)
{
	const char *cname = dwarf_diename(cls), *n, *lt;
	size_t clen;
	Dwarf_Die c, p;
	int r, q;

	/* a template's constructors are named without its arguments: "Pool", not "Pool<int>" */
	lt = cname ? strchr(cname, '<') : NULL;
	clen = cname ? (lt ? (size_t)(lt - cname) : strlen(cname)) : 0;
	for (r = dwarf_child(cls, &c); r == 0; r = dwarf_siblingof(&c, &c)) {
		if (dwarf_tag(&c) != DW_TAG_subprogram || !(n = dwarf_diename(&c)) ||
		    udata(&c, DW_AT_defaulted, 0) == DW_DEFAULTED_in_class)
			continue;
		if (n[0] == '~')
			return true;
		if (!clen || strlen(n) != clen || strncmp(n, cname, clen) != 0)
			continue;
		/* a constructor: a copy or move one takes a reference to the class first */
		for (q = dwarf_child(&c, &p); q == 0; q = dwarf_siblingof(&p, &p)) {
			if (dwarf_tag(&p) != DW_TAG_formal_parameter ||
			    dwarf_hasattr(&p, DW_AT_artificial))
				continue;	/* "this" */
			if (refers_to(&p, cls))
				return true;
			break;
		}
	}
	return false;
}

/*
 * C++: a class that isn't trivially copyable (a destructor, copy or move constructor of its
 * own, a member's or a base's) is passed as a pointer to a copy, and returned through a
 * pointer the caller passes. DWARF 5 says so (DW_AT_calling_convention, clang writes it);
 * GCC 12 doesn't: then the class's declared members tell.
 */
static bool by_invisible_ref_depth(Dwarf_Die *type, int depth)
{
	Dwarf_Word cc;
	Dwarf_Die t, c, m;
	int tag, r;

	if (depth > MAX_TYPE_DEPTH || dwarf_peel_type(type, &t) != 0)
		return false;
	tag = dwarf_tag(&t);
	if (tag == DW_TAG_array_type)
		return type_of(&t, &m) && by_invisible_ref_depth(&m, depth + 1);
	if (tag != DW_TAG_structure_type && tag != DW_TAG_class_type && tag != DW_TAG_union_type)
		return false;
	cc = udata(&t, DW_AT_calling_convention, 0);
	if (cc)
		return cc == DW_CC_pass_by_reference;
	if (has_nontrivial_special(&t))
		return true;
	for (r = dwarf_child(&t, &c); r == 0; r = dwarf_siblingof(&c, &c)) {
		tag = dwarf_tag(&c);
		if (tag != DW_TAG_inheritance &&
		    (tag != DW_TAG_member || dwarf_hasattr(&c, DW_AT_external)))
			continue;	/* static members are not in the object */
		if (type_of(&c, &m) && by_invisible_ref_depth(&m, depth + 1))
			return true;
	}
	return false;
}

static bool by_invisible_ref(Dwarf_Die *type)
{
	return by_invisible_ref_depth(type, 0);
}

/*
 * LLVM (clang, rustc) drops parameters a function doesn't use from its calling convention
 * when no other object can call it (internal linkage), and keeps its name (GCC's changed
 * clones are foo.isra.N): DWARF still lists them, without a location, and every later one
 * sits a register earlier. Such a function's parameters are in doubt from the first one
 * without a location on (a clang -O2 open_it(unused, path, flags) gets path in rdi).
 */
static bool llvm_internal(Dwarf_Die *fn)
{
	Dwarf_Attribute attr;
	const char *producer;
	Dwarf_Die cu;

	if (dwarf_hasattr_integrate(fn, DW_AT_external) || !dwarf_diecu(fn, &cu, NULL, NULL))
		return false;
	producer = dwarf_formstring(dwarf_attr(&cu, DW_AT_producer, &attr));
	return producer && (strstr(producer, "clang") || strstr(producer, "rustc"));
}

static const char *const unnamed[MAX_FNARGS] = {
	"arg0", "arg1", "arg2", "arg3", "arg4", "arg5",
	"arg6", "arg7", "arg8", "arg9", "arg10", "arg11",
};

int dwarf_btf__add_func(struct dwarf_btf *db, Dwarf_Die *fn, const char *name)
{
	const char *names[MAX_FNARGS + 2];
	int types[MAX_FNARGS + 2], n = 0, i, r, proto, ret, first;
	bool lost = false, may_drop = llvm_internal(fn);
	Dwarf_Die c, t;

	/* the caller's slot for a returned object takes the first register (arg_plan.h) */
	if (hidden_ret_ptr(fn)) {
		names[n] = ARG_PLAN_RET_SLOT;
		types[n++] = void_ptr(db);
		if (types[0] < 0)
			return types[0];
	}
	first = n;
	for (r = dwarf_child(fn, &c); r == 0 && n - first <= MAX_FNARGS; r = dwarf_siblingof(&c, &c)) {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_unspecified_parameters) {
			names[n] = NULL;
			types[n++] = 0;		/* "...": what BTF says of varargs */
			break;
		}
		if (tag != DW_TAG_formal_parameter)
			continue;
		names[n] = dwarf_diename(&c);
		if (!names[n] || !names[n][0])
			names[n] = n - first < MAX_FNARGS ? unnamed[n - first] : "arg";
		if (may_drop && !dwarf_hasattr(&c, DW_AT_location))
			lost = true;
		if (!type_of(&c, &t)) {
			types[n++] = unsupp(db);
			lost = true;
			continue;
		}
		switch (lost ? PLACE_UNKNOWN : place_of(&t)) {
		case PLACE_UNKNOWN:
			lost = true;
			types[n] = unsupp(db);
			break;
		case PLACE_FP:
			types[n] = unsupp(db);
			break;
		default:
			types[n] = conv(db, &t, true, 0);
			if (types[n] > 0 && by_invisible_ref(&t))
				types[n] = btf__add_ptr(db->btf, types[n]);
			break;
		}
		if (types[n] < 0)
			return types[n];
		n++;
	}
	ret = conv_ref(db, fn, true, 0);
	if (ret < 0)
		return ret;
	proto = btf__add_func_proto(db->btf, ret == db->unsupp ? 0 : ret);
	for (i = 0; proto > 0 && i < n; i++) {
		int err = btf__add_func_param(db->btf, names[i], types[i]);

		if (err)
			return err;
	}
	if (proto < 0)
		return proto;
	return btf__add_func(db->btf, name, BTF_FUNC_GLOBAL, proto);
}
