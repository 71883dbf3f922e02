// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0)
/*
 * Kernel feature calibration. kernel_features.c loads this object, attaches both programs
 * to nanosleep(), issues one nanosleep() from the detecting thread and reads the answers
 * back from .bss: what only running code can tell (the kretprobe IP slot, where the user
 * registers are, whether task storage hands out a session-sized slot). What the kernel's
 * BTF says comes from user space (kernel_features_btf.c), the offsets this object needs
 * among it.
 *
 * No CO-RE: an object with CO-RE relocations makes libbpf read and parse the whole vmlinux
 * BTF to load it, a second time after function discovery's. tests/unit/test_tracer.c
 * keeps it that way.
 */
#define BPF_NO_PRESERVE_ACCESS_INDEX
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kprobe_ip.bpf.h"
#include "records.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 detect_tid = 0;
/* the kernel has task storage maps and helpers (user space asked it): try creating a slot */
const volatile bool try_task_storage = false;
/*
 * From the kernel's BTF: task_struct.stack; trace_kprobe.rp.kp.addr (0: no such type).
 * Set in .bss just before the trigger: the object is loaded and attached while user space
 * is still reading the BTF.
 */
__u32 task_stack_off = 0;
__u32 tk_addr_off = 0;

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

bool has_task_storage = false;
int kret_ip_off = 0;
/* -U: the user registers saved at kernel entry, this many bytes above task_struct.stack */
__u32 user_regs_off = 0;

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
static __always_inline void measure_user_regs(__u64 regs)
{
#if defined(__TARGET_ARCH_x86) || defined(__TARGET_ARCH_arm64)
	__u64 task = bpf_get_current_task(), base = 0;

	if (!task_stack_off)
		return;
	bpf_probe_read_kernel(&base, sizeof(base), (void *)(task + task_stack_off));
	/* a kernel stack is a few pages: anything else is not what we think it is */
	if (base && regs > base && regs - base < (1 << 20))
		user_regs_off = regs - base;
#endif
}

/* Does the kernel hand a probe a task storage slot as large as a session (7.2 gives none)? */
static __always_inline void detect(void)
{
	if (try_task_storage)
		has_task_storage = bpf_task_storage_get(&storage_probe, bpf_get_current_task_btf(),
							NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
}

SEC("ksyscall/nanosleep")
int calib_entry(struct pt_regs *ctx)
{
	if (!is_detector())
		return 0;

	entry_ip = PT_REGS_IP(ctx) - KPROBE_IP_ADJ;
	detect();
	/* -U: where the user registers are (the syscall wrapper's argument) */
	measure_user_regs(PT_REGS_PARM1(ctx));
	entry_hit = true;
	return 0;
}

/* The context's address as a number: the verifier allows no arithmetic on ctx itself */
static __always_inline __u64 ctx_addr(struct pt_regs *ctx)
{
	__u64 addr = 0;

	bpf_probe_read_kernel(&addr, sizeof(addr), &ctx);
	return addr;
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
	/*
	 * -U: a uprobe's context is the register set the breakpoint trap saved on entry from
	 * user space, in the same place at the top of the kernel stack as a system call's
	 */
	measure_user_regs(ctx_addr(ctx));
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
	if (!entry_hit || !tk_addr_off)
		return 0;

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
