// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "func_types.h"
#include "records.h"

struct helper_type {
	const char *name;	/* without the "bpf_" prefix */
	__u32 flags;
};

/* Sorted by name for bsearch(). */
static const struct helper_type helper_types[] = {
	{ "bind", 0 },
	{ "bprm_opts_set", 0 },
	{ "btf_find_by_name_kind", 0 },
	{ "cgrp_storage_delete", 0 },
	{ "cgrp_storage_get", FUNC_RET_PTR },
	{ "check_mtu", 0 },
	{ "clone_redirect", 0 },
	{ "copy_from_user", 0 },
	{ "copy_from_user_task", 0 },
	{ "csum_diff", FUNC_CANT_FAIL },
	{ "csum_level", 0 },
	{ "csum_update", FUNC_CANT_FAIL },
	{ "current_task_under_cgroup", 0 },
	{ "d_path", 0 },
	{ "dynptr_data", FUNC_RET_PTR },
	{ "dynptr_from_mem", 0 },
	{ "dynptr_read", 0 },
	{ "dynptr_write", 0 },
	{ "fib_lookup", 0 },
	{ "find_vma", 0 },
	{ "for_each_map_elem", 0 },
	{ "get_attach_cookie", FUNC_CANT_FAIL },
	{ "get_branch_snapshot", 0 },
	{ "get_cgroup_classid", FUNC_CANT_FAIL },
	{ "get_current_ancestor_cgroup_id", FUNC_CANT_FAIL },
	{ "get_current_cgroup_id", FUNC_CANT_FAIL },
	{ "get_current_comm", 0 },
	{ "get_current_pid_tgid", FUNC_CANT_FAIL },
	{ "get_current_task", FUNC_CANT_FAIL | FUNC_RET_PTR },
	{ "get_current_task_btf", FUNC_RET_PTR },
	{ "get_current_uid_gid", FUNC_CANT_FAIL },
	{ "get_func_arg", 0 },
	{ "get_func_arg_cnt", 0 },
	{ "get_func_ip", FUNC_CANT_FAIL },
	{ "get_func_ret", 0 },
	{ "get_hash_recalc", FUNC_CANT_FAIL },
	{ "get_listener_sock", FUNC_RET_PTR },
	{ "get_local_storage", FUNC_RET_PTR },
	{ "get_netns_cookie", FUNC_CANT_FAIL },
	{ "get_ns_current_pid_tgid", 0 },
	{ "get_numa_node_id", FUNC_CANT_FAIL },
	{ "get_prandom_u32", FUNC_CANT_FAIL },
	{ "get_retval", FUNC_NEEDS_SIGN_EXT },
	{ "get_route_realm", FUNC_CANT_FAIL },
	{ "get_smp_processor_id", FUNC_CANT_FAIL },
	{ "get_socket_cookie", FUNC_CANT_FAIL },
	{ "get_socket_uid", FUNC_CANT_FAIL },
	{ "get_stack", 0 },
	{ "get_stackid", 0 },
	{ "get_task_stack", 0 },
	{ "getsockopt", 0 },
	{ "ima_file_hash", 0 },
	{ "ima_inode_hash", 0 },
	{ "inode_storage_delete", FUNC_NEEDS_SIGN_EXT },
	{ "inode_storage_get", FUNC_RET_PTR },
	{ "jiffies64", FUNC_CANT_FAIL },
	{ "kallsyms_lookup_name", 0 },
	{ "kptr_xchg", FUNC_RET_PTR },
	{ "ktime_get_boot_ns", FUNC_CANT_FAIL },
	{ "ktime_get_coarse_ns", FUNC_CANT_FAIL },
	{ "ktime_get_ns", FUNC_CANT_FAIL },
	{ "ktime_get_tai_ns", FUNC_CANT_FAIL },
	{ "l3_csum_replace", 0 },
	{ "l4_csum_replace", 0 },
	{ "load_hdr_opt", 0 },
	{ "loop", 0 },
	{ "lwt_push_encap", 0 },
	{ "lwt_seg6_action", 0 },
	{ "lwt_seg6_adjust_srh", 0 },
	{ "lwt_seg6_store_bytes", 0 },
	{ "map_delete_elem", 0 },
	{ "map_lookup_elem", FUNC_RET_PTR },
	{ "map_lookup_percpu_elem", FUNC_RET_PTR },
	{ "map_peek_elem", 0 },
	{ "map_pop_elem", 0 },
	{ "map_push_elem", 0 },
	{ "map_update_elem", 0 },
	{ "msg_apply_bytes", 0 },
	{ "msg_cork_bytes", 0 },
	{ "msg_pop_data", 0 },
	{ "msg_pull_data", 0 },
	{ "msg_push_data", 0 },
	{ "msg_redirect_hash", 0 },
	{ "msg_redirect_map", 0 },
	{ "override_return", FUNC_CANT_FAIL },
	{ "per_cpu_ptr", FUNC_RET_PTR },
	{ "perf_event_output", 0 },
	{ "perf_event_read", 0 },
	{ "perf_event_read_value", 0 },
	{ "perf_prog_read_value", 0 },
	{ "probe_read", 0 },
	{ "probe_read_kernel", 0 },
	{ "probe_read_kernel_str", 0 },
	{ "probe_read_str", 0 },
	{ "probe_read_user", 0 },
	{ "probe_read_user_str", 0 },
	{ "probe_write_user", 0 },
	{ "rc_keydown", 0 },
	{ "rc_pointer_rel", 0 },
	{ "rc_repeat", 0 },
	{ "read_branch_records", 0 },
	{ "redirect", 0 },
	{ "redirect_map", 0 },
	{ "redirect_neigh", 0 },
	{ "redirect_peer", 0 },
	{ "reserve_hdr_opt", 0 },
	{ "ringbuf_discard", FUNC_CANT_FAIL | FUNC_RET_VOID },
	{ "ringbuf_discard_dynptr", FUNC_CANT_FAIL | FUNC_RET_VOID },
	{ "ringbuf_output", 0 },
	{ "ringbuf_query", FUNC_CANT_FAIL },
	{ "ringbuf_reserve", FUNC_RET_PTR },
	{ "ringbuf_reserve_dynptr", 0 },
	{ "ringbuf_submit", FUNC_RET_VOID },
	{ "ringbuf_submit_dynptr", FUNC_CANT_FAIL | FUNC_RET_VOID },
	{ "send_signal", 0 },
	{ "send_signal_thread", 0 },
	{ "seq_printf", 0 },
	{ "seq_printf_btf", 0 },
	{ "seq_write", 0 },
	{ "set_hash", 0 },
	{ "set_hash_invalid", FUNC_CANT_FAIL | FUNC_RET_VOID },
	{ "set_retval", FUNC_NEEDS_SIGN_EXT },
	{ "setsockopt", 0 },
	{ "sk_ancestor_cgroup_id", FUNC_CANT_FAIL },
	{ "sk_assign", 0 },
	{ "sk_cgroup_id", FUNC_CANT_FAIL },
	{ "sk_fullsock", FUNC_RET_PTR },
	{ "sk_lookup_tcp", FUNC_RET_PTR },
	{ "sk_lookup_udp", FUNC_RET_PTR },
	{ "sk_redirect_hash", 0 },
	{ "sk_redirect_map", 0 },
	{ "sk_release", 0 },
	{ "sk_select_reuseport", 0 },
	{ "sk_storage_delete", 0 },
	{ "sk_storage_get", FUNC_RET_PTR },
	{ "skb_adjust_room", 0 },
	{ "skb_ancestor_cgroup_id", FUNC_CANT_FAIL },
	{ "skb_cgroup_classid", FUNC_CANT_FAIL },
	{ "skb_cgroup_id", FUNC_CANT_FAIL },
	{ "skb_change_head", 0 },
	{ "skb_change_proto", 0 },
	{ "skb_change_tail", 0 },
	{ "skb_change_type", 0 },
	{ "skb_ecn_set_ce", 0 },
	{ "skb_get_tunnel_key", 0 },
	{ "skb_get_tunnel_opt", 0 },
	{ "skb_get_xfrm_state", 0 },
	{ "skb_load_bytes", 0 },
	{ "skb_load_bytes_relative", 0 },
	{ "skb_output", 0 },
	{ "skb_pull_data", 0 },
	{ "skb_set_tstamp", 0 },
	{ "skb_set_tunnel_key", 0 },
	{ "skb_set_tunnel_opt", 0 },
	{ "skb_store_bytes", 0 },
	{ "skb_under_cgroup", 0 },
	{ "skb_vlan_pop", 0 },
	{ "skb_vlan_push", 0 },
	{ "skc_lookup_tcp", FUNC_RET_PTR },
	{ "skc_to_mptcp_sock", FUNC_RET_PTR },
	{ "skc_to_tcp6_sock", FUNC_RET_PTR },
	{ "skc_to_tcp_request_sock", FUNC_RET_PTR },
	{ "skc_to_tcp_sock", FUNC_RET_PTR },
	{ "skc_to_tcp_timewait_sock", FUNC_RET_PTR },
	{ "skc_to_udp6_sock", FUNC_RET_PTR },
	{ "skc_to_unix_sock", 0 },
	{ "snprintf", 0 },
	{ "snprintf_btf", 0 },
	{ "sock_from_file", FUNC_RET_PTR },
	{ "sock_hash_update", 0 },
	{ "sock_map_update", 0 },
	{ "sock_ops_cb_flags_set", 0 },
	{ "spin_lock", FUNC_CANT_FAIL },
	{ "spin_unlock", FUNC_CANT_FAIL },
	{ "store_hdr_opt", 0 },
	{ "strncmp", FUNC_CANT_FAIL },
	{ "strtol", 0 },
	{ "strtoul", 0 },
	{ "sys_bpf", 0 },
	{ "sys_close", 0 },
	{ "sysctl_get_current_value", 0 },
	{ "sysctl_get_name", 0 },
	{ "sysctl_get_new_value", 0 },
	{ "sysctl_set_new_value", 0 },
	{ "tail_call", 0 },
	{ "task_pt_regs", FUNC_RET_PTR },
	{ "task_storage_delete", 0 },
	{ "task_storage_get", FUNC_RET_PTR },
	{ "tcp_check_syncookie", 0 },
	{ "tcp_gen_syncookie", 0 },
	{ "tcp_raw_check_syncookie_ipv4", 0 },
	{ "tcp_raw_check_syncookie_ipv6", 0 },
	{ "tcp_raw_gen_syncookie_ipv4", 0 },
	{ "tcp_raw_gen_syncookie_ipv6", 0 },
	{ "tcp_send_ack", 0 },
	{ "tcp_sock", FUNC_RET_PTR },
	{ "this_cpu_ptr", FUNC_RET_PTR },
	{ "timer_cancel", 0 },
	{ "timer_init", 0 },
	{ "timer_set_callback", 0 },
	{ "timer_start", 0 },
	{ "trace_printk", 0 },
	{ "trace_vprintk", 0 },
	{ "user_ringbuf_drain", 0 },
	{ "xdp_adjust_head", 0 },
	{ "xdp_adjust_meta", 0 },
	{ "xdp_adjust_tail", 0 },
	{ "xdp_get_buff_len", FUNC_CANT_FAIL },
	{ "xdp_load_bytes", 0 },
	{ "xdp_output", 0 },
	{ "xdp_store_bytes", 0 },
};

static int helper_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct helper_type *)elem)->name);
}

const struct btf_type *func_types__skip_mods(const struct btf *btf, __u32 id, __u32 *res_id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && id && (btf_is_mod(t) || btf_is_typedef(t))) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	if (res_id)
		*res_id = id;
	return t;
}

__u32 func_types__flags(const struct btf *btf, int func_id, const char *name)
{
	const struct helper_type *h;
	const struct btf_type *t;

	if (strncmp(name, "bpf_", 4) == 0) {
		h = bsearch(name + 4, helper_types, sizeof(helper_types) / sizeof(helper_types[0]),
			    sizeof(helper_types[0]), helper_cmp);
		if (h)
			return h->flags;
	}
	if (!btf || func_id <= 0)
		return FUNC_NEEDS_SIGN_EXT;
	t = btf__type_by_id(btf, func_id);
	if (!t || !btf_is_func(t))
		return FUNC_NEEDS_SIGN_EXT;
	t = btf__type_by_id(btf, t->type);	/* FUNC_PROTO */
	if (!t || !btf_is_func_proto(t))
		return FUNC_NEEDS_SIGN_EXT;
	if (t->type == 0)
		return FUNC_CANT_FAIL | FUNC_RET_VOID;
	t = func_types__skip_mods(btf, t->type, NULL);
	if (!t)
		return FUNC_NEEDS_SIGN_EXT;
	if (btf_is_ptr(t))
		return FUNC_RET_PTR;
	if (btf_is_int(t)) {
		__u8 enc = btf_int_encoding(t);

		if (enc & BTF_INT_BOOL)
			return FUNC_CANT_FAIL | FUNC_RET_BOOL;
		if (t->size < 4)
			return FUNC_CANT_FAIL;
		if (t->size == 4)
			return enc & BTF_INT_SIGNED ? FUNC_NEEDS_SIGN_EXT : FUNC_CANT_FAIL;
		/*
		 * 8 bytes, signed or not: the kernel returns addresses and -errno in one
		 * unsigned long (do_mmap(), get_unmapped_area(), vm_mmap_pgoff()), so the
		 * error range counts as an error here too. Beyond the original retsnoop,
		 * which took every unsigned result as a success.
		 */
		return 0;
	}
	if (btf_is_any_enum(t)) {
		if (t->size < 4)
			return FUNC_CANT_FAIL;
		return t->size == 4 ? FUNC_NEEDS_SIGN_EXT : 0;
	}
	/* structs/unions by value and the like carry no error convention */
	return FUNC_CANT_FAIL;
}

int func_types__arg_cnt(const struct btf *btf, int func_id)
{
	const struct btf_type *t = btf__type_by_id(btf, func_id);

	if (!t || !btf_is_func(t))
		return -EINVAL;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return -EINVAL;
	return btf_vlen(t);
}

/* BPF trampolines pass at most six arguments, each in one register */
#define FENTRY_MAX_ARGS 6

static bool is_scalar_arg(const struct btf_type *t)
{
	if (btf_is_int(t))
		return t->size <= 8;
	return btf_is_enum(t) || btf_is_enum64(t) || btf_is_ptr(t);
}

bool func_types__noreturn(const char *name)
{
	/* the kernel names them one by one (7.2's verifier.c): nothing in BTF says so */
	static const char *const names[] = {
		"__ia32_sys_exit", "__ia32_sys_exit_group", "__kunit_abort",
		"kunit_try_catch_throw", "__module_put_and_kthread_exit", "__x64_sys_exit",
		"__x64_sys_exit_group", "do_exit", "do_group_exit", "kthread_complete_and_exit",
		"kthread_exit", "make_task_dead",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

const char *func_types__fentry_unsupported(const struct btf *btf, int func_id)
{
	const struct btf_type *t, *proto;
	const struct btf_param *p;
	__u32 id;
	int i, n;
	const char *reason = NULL;

	t = btf__type_by_id(btf, func_id);
	if (!t || !btf_is_func(t)) {
		reason = "not a BTF function";
		goto out;
	}
	if (func_types__noreturn(btf__name_by_offset(btf, t->name_off))) {
		reason = "it never returns: the kernel refuses fexit on it";
		goto out;
	}
	proto = btf__type_by_id(btf, t->type);
	if (!proto || !btf_is_func_proto(proto)) {
		reason = "no prototype";
		goto out;
	}
	n = btf_vlen(proto);
	p = btf_params(proto);
	if (n > 0 && p[n - 1].type == 0) {
		reason = "variadic";
		goto out;
	}
	if (n > FENTRY_MAX_ARGS) {
		reason = "more than 6 parameters";
		goto out;
	}
	for (i = 0; i < n; i++) {
		t = func_types__skip_mods(btf, p[i].type, NULL);
		if (!t || !is_scalar_arg(t)) {
			reason = "a parameter is not an integer, enum or pointer";
			goto out;
		}
	}
	if (proto->type == 0)
		goto out;	/* void */
	t = func_types__skip_mods(btf, proto->type, NULL);
	if (t && (is_scalar_arg(t) && !btf_is_ptr(t)))
		goto out;
	if (t && btf_is_ptr(t)) {
		t = func_types__skip_mods(btf, t->type, &id);
		if (id == 0 || (t && (btf_is_struct(t) || btf_is_union(t) || btf_is_fwd(t))))
			goto out;
	}
	reason = "unsupported return type";
out:
	return reason;
}

bool func_types__is_char(const struct btf *btf, const struct btf_type *t)
{
	if (!t || !btf_is_int(t) || t->size != 1)
		return false;
	return (btf_int_encoding(t) & BTF_INT_CHAR) ||
	       strcmp(btf__name_by_offset(btf, t->name_off), "char") == 0;
}
