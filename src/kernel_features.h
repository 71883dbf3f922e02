/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Kernel feature detection and calibration: what the running kernel's BPF can do, decided
 * once at startup from its BTF (kernel_features_btf.c) and by loading src/calib_feat.bpf.c
 * and triggering it with one nanosleep(). Nothing stays loaded or attached afterwards.
 */
#ifndef RETSNOOP_KERNEL_FEATURES_H
#define RETSNOOP_KERNEL_FEATURES_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

struct btf;

struct kernel_features {
	bool has_ringbuf;		/* BPF_MAP_TYPE_RINGBUF (5.8+); retsnoop needs it */
	bool has_func_ip;		/* bpf_get_func_ip() helper, kprobe and fentry (5.15+) */
	bool has_branch_snapshot;	/* bpf_get_branch_snapshot() helper exists (5.16+);
					 * says nothing about the CPU having LBR */
	bool has_cookie;		/* bpf_get_attach_cookie(), kprobe BPF cookies (5.15+) */
	bool has_rawtp_cookie;		/* cookie for raw tracepoint links (6.10+) */
	bool has_kprobe_multi;		/* kprobe.multi links (5.18+, needs CONFIG_FPROBE) */
	/*
	 * kprobe.multi session links (6.10+): one program at entry and return, the return
	 * run skipped when the entry says so (kprobe_session.h); a program load says (not
	 * in -Vv, the original's report)
	 */
	bool has_kprobe_session;
	unsigned int session_kfunc_id;	/* BTF id of the kfunc bpf_session_is_return; 0: none */
	unsigned int session_cookie_kfunc_id;	/* the same of bpf_session_cookie */
	bool has_uprobe_multi;		/* uprobe.multi links (6.6+; not in -Vv, the
					 * original's report) */
	bool has_uprobe_session;	/* uprobe session links (6.13+; not in -Vv) */
	int kret_ip_off;		/* slot above the BPF frame holding the kretprobe's
					 * struct trace_kprobe *; 0 if not found */
	bool has_fexit_sleep_fix;	/* fexit on functions that sleep is safe (5.12+) */
	bool has_fentry_protection;	/* kernel guards fentry/fexit against re-entry */
	/*
	 * kprobe.multi runs on the function-graph tracer (6.14+): a return probe's own
	 * stack unwinding stops at return_to_handler, the task's unwinding doesn't.
	 */
	bool has_fgraph_fprobe;
	bool has_task_stack;		/* bpf_get_task_stack() of current (5.11+) */
	bool has_task_storage;		/* task-local storage from tracing programs (5.11+;
					 * not in -Vv) */
	bool has_fentry;		/* BPF trampolines attach to kernel functions
					 * (not in -Vv; arm64: 6.4+) */
	bool has_func_ret;		/* bpf_get_func_ret() (5.17+; not in -Vv) */
	bool has_func_arg;		/* bpf_get_func_arg() (5.17+; not in -Vv) */
	bool has_fsession;		/* fsession: one tracing program at entry and return
					 * with one trampoline link (7.0+; not in -Vv) */
	bool has_fsession_multi;	/* and one such program linked to many functions
					 * with a tracing multi-link (7.x x86-64; not in -Vv) */
	/*
	 * Where this kernel keeps the fields the tracer reads, from its BTF. The tracer takes
	 * them as constants: its object then has no CO-RE relocation, and libbpf loads it
	 * without parsing the vmlinux BTF again (a third of the default mode's load time).
	 */
	unsigned int task_group_leader_off;	/* task_struct.group_leader */
	unsigned int task_comm_off;		/* task_struct.comm */
	unsigned int task_pid_off;		/* task_struct.pid (a fork's child, -- CMD) */
	unsigned int task_exit_code_off;	/* task_struct.exit_code (a session cut by exit) */
	unsigned int trace_kprobe_addr_off;	/* trace_kprobe.rp.kp.addr; 0: no such type */
	/* -U: the user registers saved at kernel entry, user_regs_off bytes above the kernel
	 * stack's base (task_struct.stack); 0: not found, -U is not available */
	unsigned int task_stack_off;
	unsigned int user_regs_off;
	/*
	 * task_struct.mm, mm_struct.uprobes_state.xol_area, xol_area.vaddr: where the uprobe
	 * trampoline of the current process is (user_resync() in user_session.bpf.h); all 0:
	 * not found
	 */
	unsigned int task_mm_off;
	unsigned int mm_xol_area_off;
	unsigned int xol_vaddr_off;
	/*
	 * task_struct.utask, uprobe_task.return_instances, return_instance.stack,
	 * .orig_ret_vaddr and .next: the return addresses the uprobe trampoline replaced
	 * (uret.bpf.h); all 0: not found
	 */
	unsigned int task_utask_off;
	unsigned int utask_ri_off;
	unsigned int ri_stack_off;
	unsigned int ri_orig_ret_off;
	unsigned int ri_next_off;
};

/*
 * Detect the running kernel's features into @f, the BTF's answers from @vmlinux_btf
 * (borrowed; NULL: the vmlinux BTF is read and parsed here). Needs root (loads and
 * attaches a kprobe and a kretprobe for the duration of the call, on the calling thread's
 * nanosleep()).
 * Returns 0, -ENODATA when the probes attached but never fired (report "Calibration
 * failure, BPF probes weren't triggered!"), or another negative errno from loading or
 * attaching. A kret_ip_off of 0 is only fatal for callers that lack bpf_get_func_ip().
 */
int kernel_features__detect(struct kernel_features *f, const struct btf *vmlinux_btf);

/*
 * The same detection in two halves, so that loading and attaching the calibration probes
 * (the kernel's work, a few hundred ms in a slow guest) overlaps the caller's reading of
 * the vmlinux BTF, and releasing them (RCU grace periods) overlaps what comes after.
 * kernel_features__begin() loads and attaches (no BTF needed; it gives up between steps
 * once *@stop is set, NULL: never); NULL only without memory.
 * kernel_features__end() takes the BTF's answers from @vmlinux_btf (borrowed; NULL: read
 * here), fires the probes and fills @f: the returns of kernel_features__detect(), the
 * load's or attach's error, -EINTR after a stop. @uprobe_links: detect uprobe.multi and
 * uprobe session links too (each costs a link's release; only uprobes need them).
 * kernel_features__release() lets go of the probes on a thread of its own (inline if none
 * can be started), after end() or without it; NULL is a no-op. A user-only calibration's
 * (kernel_features__detect_user()) goes to a child process instead, which holds the last
 * references: a process's exit waits for a uprobe release in flight on its threads, and a
 * fork after release() returns inherits none of them.
 */
struct kernel_calib;
struct kernel_calib *kernel_features__begin(const volatile sig_atomic_t *stop);
int kernel_features__end(struct kernel_calib *c, struct kernel_features *f,
			 const struct btf *vmlinux_btf, bool uprobe_links);
void kernel_features__release(struct kernel_calib *c);
/*
 * Does @c hold uprobes (kernel_features__detect_user()'s, or the uprobe link probes' links)?
 * Their release holds up an exec() in another process while it waits for RCU: a caller that
 * is about to start one releases them after it (trace_cmd_target.calib).
 */
bool kernel_features__holds_uprobes(const struct kernel_calib *c);

/*
 * The same detection from a uprobe on retsnoop's own code, for runs that trace only
 * user-space functions: it works where kprobes don't (no kprobe PMU, no tracefs). Nothing
 * in it says whether kernel functions can be probed (has_kprobe_multi stays false, no
 * kret_ip_off). Same returns as kernel_features__detect(). *@calib: its probes (a uprobe and
 * the link probes' links, NULL without memory), the caller's to kernel_features__release(),
 * set on failure too.
 */
int kernel_features__detect_user(struct kernel_features *f, const struct btf *vmlinux_btf,
				 struct kernel_calib **calib);

/*
 * Only what the vmlinux BTF @btf says (no BPF is loaded): every has_* but has_uprobe_multi
 * and the measured has_task_storage part, the field offsets. Fields not in @f's BTF stay 0
 * or false. 0, -EINVAL for no @btf, -ENODATA when @btf is not a vmlinux BTF (no task_struct).
 */
int kernel_features__from_btf(struct kernel_features *f, const struct btf *btf);

/*
 * Is the kernel's BTF there and readable (/sys/kernel/btf/vmlinux, or @path)? 0, or a
 * negative errno: -ENOENT missing, -ENODATA empty or not BTF, another from reading it.
 */
int kernel_features__check_btf(const char *path);

/*
 * True if kprobes are disarmed system-wide (debugfs kprobes/enabled is 0, or @path): they
 * attach and never fire. False when it can't tell (no debugfs).
 */
bool kernel_features__kprobes_disarmed(const char *path);

/*
 * @f as text for the boot cache: a format line, "uprobe_links 0|1" (were has_uprobe_multi
 * and has_uprobe_session detected), then a "name value" line per field. Its length, or
 * -ENOSPC when @sz bytes are too few (1 kB are plenty).
 */
int kernel_features__format(const struct kernel_features *f, bool uprobe_links, char *buf,
			    size_t sz);

/*
 * Text from kernel_features__format() back into @f and @uprobe_links. -EINVAL, with
 * neither changed, unless it has this build's format line and every field exactly once
 * (a copy written by another build, cut short or damaged is not used); -ENOMEM.
 */
int kernel_features__parse(struct kernel_features *f, bool *uprobe_links, const char *text);

/*
 * 0 when the text's fields cover struct kernel_features, no hole but the compiler's padding
 * between them; -EINVAL when one is missing (test_kernel_features_text.c).
 */
int kernel_features__text_check(void);

/*
 * THREAD_SIZE, the kernel stack's size: the power of two the user registers at its top
 * (user_regs_off from its base) fit in; 0 when they were not found.
 */
unsigned long kernel_features__kstack_size(const struct kernel_features *f);

/* The "-V -v" report: "Feature detection:" and "Feature calibration:" blocks. */
void kernel_features__print(const struct kernel_features *f, FILE *out);

#endif
