// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0)
/*
 * Kernel feature detection and calibration. features.c loads this object, attaches both
 * programs to nanosleep(), issues one nanosleep() from the detecting thread and reads the
 * answers back from .bss. Feature answers are CO-RE existence checks against the running
 * kernel's BTF; the kretprobe IP offset is measured.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "kprobe_ip.bpf.h"
#include "records.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 detect_tid = 0;
/* the kernel has task storage maps (user space asked it): try creating a slot */
const volatile bool try_task_storage = false;

struct storage_probe_val {
	char data[SESSION_SLOT_PROBE_SIZE];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct storage_probe_val);
} storage_probe SEC(".maps");

bool entry_hit = false;
bool exit_hit = false;
__u64 entry_ip = 0;

bool has_ringbuf = false;
bool has_func_ip = false;
bool has_branch_snapshot = false;
bool has_cookie = false;
bool has_rawtp_cookie = false;
bool has_kprobe_multi = false;
bool has_fexit_sleep_fix = false;
bool has_fentry_protection = false;
bool has_fgraph_fprobe = false;
bool has_task_stack = false;
bool has_task_storage = false;
bool has_fentry = false;
int kret_ip_off = 0;
bool has_func_ret = false;
bool has_func_arg = false;
/* field offsets the tracer's object uses as constants, so that it needs no CO-RE itself */
__u32 task_group_leader_off = 0;
__u32 task_comm_off = 0;
__u32 task_pid_off = 0;
__u32 tk_addr_off = 0;
/* -U: the user registers saved at kernel entry, this many bytes above task_struct.stack */
__u32 task_stack_off = 0;
__u32 user_regs_off = 0;

/*
 * fprobe rewritten on the function-graph tracer (Linux 6.14): its hlist_array replaced the
 * ftrace_ops and rethook of the old one. Not in our vmlinux.h (6.12): a local flavour.
 */
struct fprobe___fgraph {
	void *hlist_array;
} __attribute__((preserve_access_index));

/*
 * Only the name counts for a type-existence check; a local definition keeps the check
 * meaningful when the vmlinux.h it is built with lacks the type (arm64 6.12 has no fprobe).
 */
struct bpf_kprobe_multi_link___feat {
	int unused;
};

static bool is_detector(void)
{
	return (__u32)bpf_get_current_pid_tgid() == detect_tid;
}

/*
 * The syscall wrapper's one argument is the struct pt_regs the kernel saved at entry from
 * user space, at the top of the task's kernel stack: its distance from the stack's base is
 * where every task's user registers are (THREAD_SIZE - sizeof(pt_regs) and any padding,
 * as this kernel has them), without bpf_task_pt_regs() (5.15+).
 */
static __always_inline void measure_user_regs(struct pt_regs *ctx)
{
#if defined(__TARGET_ARCH_x86) || defined(__TARGET_ARCH_arm64)
	struct task_struct *task = (void *)bpf_get_current_task();
	__u64 regs = PT_REGS_PARM1(ctx), base = (__u64)BPF_CORE_READ(task, stack);

	task_stack_off = bpf_core_field_offset(struct task_struct, stack);
	/* a kernel stack is a few pages: anything else is not what we think it is */
	if (base && regs > base && regs - base < (1 << 20))
		user_regs_off = regs - base;
#endif
}

/* What the running kernel offers, from its BTF; the same from a kprobe or a uprobe. */
static __always_inline void detect(void)
{
	has_ringbuf = bpf_core_enum_value_exists(enum bpf_map_type, BPF_MAP_TYPE_RINGBUF);
	has_func_ip = bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_func_ip);
	has_branch_snapshot = bpf_core_enum_value_exists(enum bpf_func_id,
							 BPF_FUNC_get_branch_snapshot);
	has_cookie = bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_attach_cookie);
	has_func_ret = bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_func_ret);
	has_func_arg = bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_func_arg);
	task_group_leader_off = bpf_core_field_offset(struct task_struct, group_leader);
	task_comm_off = bpf_core_field_offset(struct task_struct, comm);
	task_pid_off = bpf_core_field_offset(struct task_struct, pid);
	has_rawtp_cookie = bpf_core_field_exists(union bpf_attr, raw_tracepoint.cookie);
	/* only defined when the kernel is built with fprobe (CONFIG_FPROBE) */
	has_kprobe_multi = bpf_core_type_exists(struct bpf_kprobe_multi_link___feat);
	/* trampoline images arrived with the fix that lets fexit survive sleeping functions */
	has_fexit_sleep_fix = bpf_core_type_exists(struct bpf_tramp_image);
	/* per-program recursion counter guarding fentry/fexit against re-entry */
	has_fentry_protection = bpf_core_field_exists(struct bpf_prog, active);
	has_fgraph_fprobe = bpf_core_field_exists(struct fprobe___fgraph, hlist_array);
	/* bpf_get_task_stack() on the current task, named by BTF (5.11+) */
	has_task_stack = bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_task_stack) &&
			 bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf);
	/*
	 * task-local storage and its helpers came to tracing programs together (5.11) with
	 * bpf_get_current_task_btf(), which names the task to them
	 */
	has_task_storage = try_task_storage &&
			   bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_task_storage_get) &&
			   bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf);
	/* and it must hand a probe a slot as large as a session (7.2 gives none) */
	if (has_task_storage)
		has_task_storage = bpf_task_storage_get(&storage_probe, bpf_get_current_task_btf(),
							NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
#ifdef __TARGET_ARCH_arm64
	/*
	 * arm64 attaches trampolines to kernel functions through ftrace direct calls (6.4+),
	 * which came with ftrace_ops.direct_call; before, only BPF programs can be fentry targets
	 */
	has_fentry = bpf_core_field_exists(struct ftrace_ops, direct_call);
#else
	has_fentry = true;
#endif

}

SEC("ksyscall/nanosleep")
int calib_entry(struct pt_regs *ctx)
{
	if (!is_detector())
		return 0;

	entry_ip = PT_REGS_IP(ctx) - KPROBE_IP_ADJ;
	detect();
	/* -U: where the user registers are (a syscall wrapper's argument; not from a uprobe) */
	measure_user_regs(ctx);
	entry_hit = true;
	return 0;
}

/*
 * The same detection from a uprobe on retsnoop's own trigger function: where kernel
 * functions can't be probed (no kprobes) but user-space functions can. No calibration of
 * kretprobes there: a run that uses this traces no kernel function.
 */
SEC("uprobe")
int calib_uentry(struct pt_regs *ctx)
{
	if (!is_detector())
		return 0;
	detect();
	entry_hit = exit_hit = true;
	return 0;
}


/*
 * Without bpf_get_func_ip() a kretprobe can only learn which function returned from the
 * struct trace_kprobe * its kernel callers keep on the stack above the BPF frame. Find the
 * slot that holds it: the one pointing at a trace_kprobe whose probed address is the IP
 * the entry probe saw.
 */
SEC("kretsyscall/nanosleep")
int calib_exit(struct pt_regs *ctx)
{
	__u64 addr;
	int i;

	if (!is_detector())
		return 0;
	exit_hit = true;
	/* no trace_kprobe in BTF (no kprobe events): leave the offset at 0 */
	if (!entry_hit || !bpf_core_field_exists(struct trace_kprobe, rp.kp.addr))
		return 0;
	tk_addr_off = bpf_core_field_offset(struct trace_kprobe, rp.kp.addr);

	for (i = 1; i <= MAX_KRET_IP_SLOT; i++) {
		/* most slots hold no pointer at all; the read then fails and yields 0 */
		addr = kretprobe_slot_ip(i, tk_addr_off);
		if (addr && addr == entry_ip) {
			kret_ip_off = i;
			break;
		}
	}
	return 0;
}
