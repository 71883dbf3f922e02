// SPDX-License-Identifier: BSD-2-Clause
/*
 * The BTF half of feature detection: what the running kernel's BTF says it has, read from
 * the vmlinux BTF retsnoop parses anyway for function discovery. The calibration object
 * used to ask the same questions through CO-RE, which made libbpf read and parse the whole
 * vmlinux BTF a second time to load it (a third of a second and more under emulation).
 * The answers are the ones CO-RE gives: types matched by name and kind, members found
 * through anonymous structs and unions.
 */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include "kernel_features.h"

/* The types asked about, found in one pass over the BTF. */
enum wanted {
	W_TASK_STRUCT,
	W_BPF_FUNC_ID,
	W_BPF_MAP_TYPE,
	W_BPF_ATTR,
	W_KPROBE_MULTI_LINK,
	W_TRAMP_IMAGE,
	W_BPF_PROG,
	W_FPROBE,
	W_FTRACE_OPS,
	W_TRACE_KPROBE,
	W_SESSION_KFUNC,	/* the two bpf_session_* functions: adjacent (find_types()) */
	W_SESSION_COOKIE,
	W_MM_STRUCT,
	W_XOL_AREA,
	W_UPROBE_TASK,
	W_RETURN_INSTANCE,
	W_BPF_ATTACH_TYPE,
	W_CNT,
};

static const struct {
	const char *name;
	int kind;
} wanted_types[W_CNT] = {
	[W_TASK_STRUCT] = { "task_struct", BTF_KIND_STRUCT },
	[W_BPF_FUNC_ID] = { "bpf_func_id", BTF_KIND_ENUM },
	[W_BPF_MAP_TYPE] = { "bpf_map_type", BTF_KIND_ENUM },
	[W_BPF_ATTR] = { "bpf_attr", BTF_KIND_UNION },
	[W_KPROBE_MULTI_LINK] = { "bpf_kprobe_multi_link", BTF_KIND_STRUCT },
	[W_TRAMP_IMAGE] = { "bpf_tramp_image", BTF_KIND_STRUCT },
	[W_BPF_PROG] = { "bpf_prog", BTF_KIND_STRUCT },
	[W_FPROBE] = { "fprobe", BTF_KIND_STRUCT },
	[W_FTRACE_OPS] = { "ftrace_ops", BTF_KIND_STRUCT },
	[W_TRACE_KPROBE] = { "trace_kprobe", BTF_KIND_STRUCT },
	[W_SESSION_KFUNC] = { "bpf_session_is_return", BTF_KIND_FUNC },
	[W_SESSION_COOKIE] = { "bpf_session_cookie", BTF_KIND_FUNC },
	[W_MM_STRUCT] = { "mm_struct", BTF_KIND_STRUCT },
	[W_XOL_AREA] = { "xol_area", BTF_KIND_STRUCT },
	[W_UPROBE_TASK] = { "uprobe_task", BTF_KIND_STRUCT },
	[W_RETURN_INSTANCE] = { "return_instance", BTF_KIND_STRUCT },
	[W_BPF_ATTACH_TYPE] = { "bpf_attach_type", BTF_KIND_ENUM },
};

static void find_types(const struct btf *btf, int ids[W_CNT])
{
	int i, w, n = btf__type_cnt(btf), left = W_CNT;

	memset(ids, 0, W_CNT * sizeof(ids[0]));
	for (i = 1; i < n && left; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		int kind = btf_kind(t);
		const char *name;

		if (!t->name_off)
			continue;
		/* two functions are asked about, both named bpf_session_*: one compare per function */
		if (kind == BTF_KIND_FUNC) {
			name = btf__name_by_offset(btf, t->name_off);
			if (strncmp(name, "bpf_session_", 12))
				continue;
			for (w = W_SESSION_KFUNC; w <= W_SESSION_COOKIE; w++) {
				if (!ids[w] && !strcmp(name, wanted_types[w].name)) {
					ids[w] = i;
					left--;
				}
			}
			continue;
		}
		/* most types are anonymous, pointers, functions: skip them before any strcmp */
		if (kind != BTF_KIND_STRUCT && kind != BTF_KIND_UNION &&
		    kind != BTF_KIND_ENUM && kind != BTF_KIND_ENUM64)
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		for (w = 0; w < W_CNT; w++) {
			/* the first of a name wins, as btf__find_by_name_kind() would have it */
			if (ids[w] || strcmp(name, wanted_types[w].name))
				continue;
			if (kind == wanted_types[w].kind ||
			    (wanted_types[w].kind == BTF_KIND_ENUM && kind == BTF_KIND_ENUM64)) {
				ids[w] = i;
				left--;
			}
		}
	}
}

/* Skip typedefs and qualifiers to the type itself. */
static const struct btf_type *resolve(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_typedef(t) || btf_is_mod(t)))
		t = btf__type_by_id(btf, t->type);
	return t;
}

/*
 * Bit offset of member @name of struct/union @t, looked for in anonymous members too;
 * -1 if there is none. @mtype: the member's type id.
 */
static long member_bits(const struct btf *btf, const struct btf_type *t, const char *name,
			__u32 *mtype)
{
	const struct btf_member *m;
	int i;

	if (!t || !btf_is_composite(t))
		return -1;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		long off = btf_member_bit_offset(t, i), inner;

		if (m->name_off) {
			if (!strcmp(btf__name_by_offset(btf, m->name_off), name)) {
				*mtype = m->type;
				return off;
			}
			continue;
		}
		inner = member_bits(btf, resolve(btf, m->type), name, mtype);
		if (inner >= 0)
			return off + inner;
	}
	return -1;
}

/* Byte offset of the member path @path ("rp.kp.addr") in type @id; -1 if none. */
static long path_off(const struct btf *btf, int id, const char *path)
{
	const struct btf_type *t;
	char part[64];
	long bits = 0, off;
	__u32 mtype = id;

	if (!id)
		return -1;
	while (*path) {
		size_t len = strcspn(path, ".");

		if (len >= sizeof(part))
			return -1;
		memcpy(part, path, len);
		part[len] = '\0';
		path += len + !!path[len];
		t = resolve(btf, mtype);
		off = member_bits(btf, t, part, &mtype);
		if (off < 0)
			return -1;
		bits += off;
	}
	return bits / 8;
}

static bool enum_has(const struct btf *btf, int id, const char *value)
{
	const struct btf_type *t = id ? btf__type_by_id(btf, id) : NULL;
	int i;

	if (!t)
		return false;
	if (btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t);

		for (i = 0; i < btf_vlen(t); i++, e++)
			if (!strcmp(btf__name_by_offset(btf, e->name_off), value))
				return true;
	} else if (btf_is_enum64(t)) {
		const struct btf_enum64 *e = btf_enum64(t);

		for (i = 0; i < btf_vlen(t); i++, e++)
			if (!strcmp(btf__name_by_offset(btf, e->name_off), value))
				return true;
	}
	return false;
}

static unsigned int off_or_0(long off)
{
	return off < 0 ? 0 : off;
}

int kernel_features__from_btf(struct kernel_features *f, const struct btf *btf)
{
	int ids[W_CNT];
	long off;

	if (!btf)
		return -EINVAL;
	find_types(btf, ids);
	/* no task_struct: not a vmlinux BTF, nothing below would mean anything */
	if (!ids[W_TASK_STRUCT])
		return -ENODATA;

	f->has_ringbuf = enum_has(btf, ids[W_BPF_MAP_TYPE], "BPF_MAP_TYPE_RINGBUF");
	f->has_func_ip = enum_has(btf, ids[W_BPF_FUNC_ID], "BPF_FUNC_get_func_ip");
	f->has_branch_snapshot = enum_has(btf, ids[W_BPF_FUNC_ID], "BPF_FUNC_get_branch_snapshot");
	f->has_cookie = enum_has(btf, ids[W_BPF_FUNC_ID], "BPF_FUNC_get_attach_cookie");
	f->has_func_ret = enum_has(btf, ids[W_BPF_FUNC_ID], "BPF_FUNC_get_func_ret");
	f->has_func_arg = enum_has(btf, ids[W_BPF_FUNC_ID], "BPF_FUNC_get_func_arg");
	f->has_fsession = enum_has(btf, ids[W_BPF_ATTACH_TYPE], "BPF_TRACE_FSESSION");
	f->has_fsession_multi = enum_has(btf, ids[W_BPF_ATTACH_TYPE], "BPF_TRACE_FSESSION_MULTI");
	f->task_group_leader_off = off_or_0(path_off(btf, ids[W_TASK_STRUCT], "group_leader"));
	f->task_comm_off = off_or_0(path_off(btf, ids[W_TASK_STRUCT], "comm"));
	f->task_pid_off = off_or_0(path_off(btf, ids[W_TASK_STRUCT], "pid"));
	f->task_exit_code_off = off_or_0(path_off(btf, ids[W_TASK_STRUCT], "exit_code"));
	f->task_stack_off = off_or_0(path_off(btf, ids[W_TASK_STRUCT], "stack"));
	/*
	 * The uprobe trampoline's address, current->mm->uprobes_state.xol_area->vaddr: what
	 * a return probe writes over a traced call's return address (all three or none)
	 */
	f->task_mm_off = off_or_0(path_off(btf, ids[W_TASK_STRUCT], "mm"));
	f->mm_xol_area_off = off_or_0(path_off(btf, ids[W_MM_STRUCT], "uprobes_state.xol_area"));
	f->xol_vaddr_off = off_or_0(path_off(btf, ids[W_XOL_AREA], "vaddr"));
	if (!f->task_mm_off || !f->mm_xol_area_off || !f->xol_vaddr_off)
		f->task_mm_off = f->mm_xol_area_off = f->xol_vaddr_off = 0;
	/*
	 * The thread's pending return probes, newest first: where each wrote the trampoline
	 * (the stack pointer at the traced function's entry) and the return address it
	 * replaced, which puts a user stack back together (all or none, and only with the
	 * trampoline's address)
	 */
	f->task_utask_off = off_or_0(path_off(btf, ids[W_TASK_STRUCT], "utask"));
	f->utask_ri_off = off_or_0(path_off(btf, ids[W_UPROBE_TASK], "return_instances"));
	f->ri_stack_off = off_or_0(path_off(btf, ids[W_RETURN_INSTANCE], "stack"));
	f->ri_orig_ret_off = off_or_0(path_off(btf, ids[W_RETURN_INSTANCE], "orig_ret_vaddr"));
	f->ri_next_off = off_or_0(path_off(btf, ids[W_RETURN_INSTANCE], "next"));
	if (!f->xol_vaddr_off || !f->task_utask_off || !f->utask_ri_off || !f->ri_stack_off ||
	    !f->ri_orig_ret_off || !f->ri_next_off)
		f->task_utask_off = f->utask_ri_off = f->ri_stack_off = f->ri_orig_ret_off =
			f->ri_next_off = 0;
	f->has_rawtp_cookie = path_off(btf, ids[W_BPF_ATTR], "raw_tracepoint.cookie") >= 0;
	/* only defined when the kernel is built with fprobe (CONFIG_FPROBE) */
	f->has_kprobe_multi = ids[W_KPROBE_MULTI_LINK];
	/* session programs (kprobe 6.10+, uprobe 6.13+) call it to know whether it is the return run */
	f->session_kfunc_id = ids[W_SESSION_KFUNC];
	f->session_cookie_kfunc_id = ids[W_SESSION_COOKIE];
	/* trampoline images arrived with the fix that lets fexit survive sleeping functions */
	f->has_fexit_sleep_fix = ids[W_TRAMP_IMAGE];
	/* per-program recursion counter guarding fentry/fexit against re-entry */
	f->has_fentry_protection = path_off(btf, ids[W_BPF_PROG], "active") >= 0;
	/* fprobe rewritten on the function-graph tracer (6.14): hlist_array replaced its ops */
	f->has_fgraph_fprobe = path_off(btf, ids[W_FPROBE], "hlist_array") >= 0;
	/* bpf_get_task_stack() on the current task, named by BTF (5.11+) */
	f->has_task_stack = enum_has(btf, ids[W_BPF_FUNC_ID], "BPF_FUNC_get_task_stack") &&
			    enum_has(btf, ids[W_BPF_FUNC_ID], "BPF_FUNC_get_current_task_btf");
	/*
	 * task-local storage and its helpers came to tracing programs together (5.11) with
	 * bpf_get_current_task_btf(), which names the task to them; whether the kernel hands
	 * a probe a slot as large as a session is the calibration's to find out
	 */
	f->has_task_storage = enum_has(btf, ids[W_BPF_FUNC_ID], "BPF_FUNC_task_storage_get") &&
			      enum_has(btf, ids[W_BPF_FUNC_ID], "BPF_FUNC_get_current_task_btf");
#ifdef __aarch64__
	/*
	 * arm64 attaches trampolines to kernel functions through ftrace direct calls (6.4+),
	 * which came with ftrace_ops.direct_call; before, only BPF programs can be fentry targets
	 */
	f->has_fentry = path_off(btf, ids[W_FTRACE_OPS], "direct_call") >= 0;
#else
	f->has_fentry = true;
#endif
	/* no trace_kprobe (no kprobe events): no kretprobe calibration, the offset stays 0 */
	off = path_off(btf, ids[W_TRACE_KPROBE], "rp.kp.addr");
	f->trace_kprobe_addr_off = off_or_0(off);
	return 0;
}
