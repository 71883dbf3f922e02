/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What crosses the BPF ring buffer between retsnoop.bpf.c and user space: the single
 * definition of every record layout and of the per-function info BPF needs.
 *
 * Every record starts with a __u32 type and carries the session id it belongs to, so the
 * consumer can rebuild sessions from an arbitrary interleaving of threads. New record kinds
 * (argument capture, injected probes) are added as new types; old ones never change layout.
 */
#ifndef RETSNOOP_RECORDS_H
#define RETSNOOP_RECORDS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define MAX_FSTACK_DEPTH	64	/* traced call depth kept per session */
#define MAX_KSTACK_DEPTH	96	/* kernel stack frames captured */
#define MAX_LBR_ENTRIES		32
#define TASK_COMM_LEN		16
#define MAX_ERRNO		4095

enum rec_type {
	REC_SESSION_START,
	REC_FUNC_TRACE_ENTRY,
	REC_FUNC_TRACE_EXIT,
	REC_LBR_STACK,
	REC_SESSION_END,
	REC_FNARGS,		/* -A: one call's arguments (struct rec_fnargs) */
	REC_INJ_PROBE,		/* -J with -T: an injected probe's hit (struct rec_func_trace) */
	REC_SESSION_PROBE,	/* -I: interim sample at a probe's hit (struct rec_session_interim) */
	REC_SESSION_STITCH,	/* -I: interim sample of a chain about to be overwritten (same) */
	REC_CTXARGS,		/* -J -T -A: a probe hit's context (struct rec_fnargs, probe id) */
	REC_USTACK,		/* -U: the thread's user registers and stack window (struct rec_ustack) */
	/*
	 * An error went back to user space in-band (a netlink ack, see struct
	 * rec_session_interim): the chain that made it, sent when the error was handed to
	 * its carrier, before later calls overwrite it. Not a sample of its own: the
	 * session's REC_SESSION_END (flag SESS_F_INBAND) is, with this chain under it.
	 */
	REC_SESSION_INBAND,
	/*
	 * A caller of an in-band error's carrier returned (struct rec_func_trace; depth and
	 * seq_id those of the frame's entry): its result and latency for that chain.
	 */
	REC_INBAND_EXIT,
	/*
	 * A session that ends without a sample after user space heard of it (-T, -A, -L,
	 * or a lost track): forget what it holds (struct rec_session_forget).
	 */
	REC_SESSION_FORGET,
};

/* Result typing of a traced function, decided in user space from BTF (FUNC_* flags). */
enum func_flags {
	FUNC_IS_ENTRY	= 0x1,	/* starts a session */
	FUNC_CANT_FAIL	= 0x2,	/* void, bool, unsigned, < 4 bytes: never an error */
	FUNC_NEEDS_SIGN_EXT = 0x4, /* 4-byte signed (or no BTF): judge the low 32 bits */
	FUNC_RET_PTR	= 0x8,	/* pointer: NULL and ERR_PTR() are errors */
	FUNC_RET_BOOL	= 0x10,
	FUNC_RET_VOID	= 0x20,
	/*
	 * User-space functions (uprobes; their ids follow the kernel functions'). Their
	 * error rule is one of the FUNC_ERR_* below, or the flags above when the return type
	 * is known, or FUNC_ERR_GUESS without a type.
	 */
	FUNC_USER	= 0x40,
	FUNC_ERR_NONZERO = 0x80,	/* "=errno-positive": any non-zero result (pthreads) */
	FUNC_ERR_LE0	= 0x100,	/* "=le0": zero or negative (int, as 32 bits) */
	FUNC_ERR_ZERO	= 0x200,	/* "=false": zero, as a whole register */
	/*
	 * Unknown type: negative as 64 bits, or as 32 bits with the upper half zero (an int
	 * -1 in a zero-extended register); a pointer's low half never counts.
	 */
	FUNC_ERR_GUESS	= 0x400,
	/*
	 * A syscall entry wrapper (__x64_sys_*, __ia32_sys_*, ...): called only from the
	 * syscall dispatch, never inside another one (missed_exit.bpf.h relies on it).
	 */
	FUNC_SYSCALL	= 0x800,
	/*
	 * A user-space function's 8-byte unsigned result (size_t): -4095..-1 as 64 bits, the
	 * (size_t)-1 of iconv() and mbrtowc() and zstd's -code; any other value is a size.
	 */
	FUNC_ERR_RANGE	= 0x1000,
	/*
	 * The exit()/exit_group() entry wrapper (also FUNC_SYSCALL): the one syscall whose
	 * session is still open when its thread exits; any other syscall's open there lost
	 * its return (exit_cut.bpf.h).
	 */
	FUNC_EXIT_SYSCALL = 0x2000,
};

struct func_info {
	__u32 flags;		/* enum func_flags */
	__u32 arg_cnt;		/* fentry/fexit: where the return value sits in ctx */
};

struct rec_session_start {
	__u32 type;		/* REC_SESSION_START */
	__u32 pid;		/* thread id */
	__u64 sess_id;
	__u32 tgid;
	__u32 __pad;
	__u64 start_ts;		/* CLOCK_MONOTONIC ns */
	char task_comm[TASK_COMM_LEN];
	char proc_comm[TASK_COMM_LEN];
};

/*
 * -T: one record per entry and per exit inside a session; with -J also one per injected
 * probe hit (REC_INJ_PROBE: func_id is the probe id, depth one level below the innermost
 * running call, no latency or result). Entries, exits and hits share the session's
 * sequence numbers, so their order (and any record lost in between) is known.
 */
struct rec_func_trace {
	__u32 type;		/* REC_FUNC_TRACE_ENTRY, REC_FUNC_TRACE_EXIT or REC_INJ_PROBE */
	__u32 func_id;		/* REC_INJ_PROBE: probe id */
	__u64 sess_id;
	__u64 ts;
	__u32 seq_id;
	__u32 depth;		/* 1-based */
	__u64 func_lat;		/* exit only */
	__s64 func_res;		/* exit only, raw 64-bit return value */
};

struct lbr_record {
	__u64 from;
	__u64 to;
	__u64 flags;
};

struct rec_lbr_stack {
	__u32 type;		/* REC_LBR_STACK */
	__s32 lbrs_sz;		/* bytes of lbrs[] filled, or negative errno */
	__u64 sess_id;
	struct lbr_record lbrs[MAX_LBR_ENTRIES];
};

/*
 * A call stack as recorded: traced frames outermost first (indexed by call level), kernel
 * stack innermost first.
 */
/*
 * In func_lat[]: the frame never returned, longjmp() or a C++ exception left it (user
 * frames; see user_unwind()); the rest of the value is the time until that was seen.
 */
#define LAT_NO_RETURN	(1ULL << 63)
/*
 * In func_res[] of a frame with LAT_NO_RETURN, why it never returned: 0, longjmp() or an
 * exception left it (a user frame) or the kernel skipped its exit probe (a kernel frame
 * 0); NORET_EXIT, its thread exited inside it (exit_cut.bpf.h), with the thread's exit
 * code in the low 16 bits (a wait status: status << 8, or the signal), and
 * NORET_EXIT_OWN when by its own exit() or exit_group() call.
 */
#define NORET_EXIT	(1ULL << 32)
#define NORET_EXIT_OWN	(1ULL << 33)
#define NORET_EXIT_CODE	0xffffULL

struct call_stack {
	__u32 func_ids[MAX_FSTACK_DEPTH];
	__u32 seq_ids[MAX_FSTACK_DEPTH];
	__s64 func_res[MAX_FSTACK_DEPTH];
	__u64 func_lat[MAX_FSTACK_DEPTH];
	__u32 depth;		/* frames still running */
	__u32 max_depth;	/* frames [0, max_depth) are reported */
	/*
	 * Bit i: frame i belongs to an error chain that was kept aside while its caller went
	 * on calling non-failing functions, and put back when the caller returned the error
	 * (the '*' marker). The kernel stack then comes from that chain's deepest failure.
	 */
	__u64 stitched;
	__s32 kstack_sz;	/* bytes in kstack[], or negative errno */
	/*
	 * A failed user-space frame at level sys_err_level saw a syscall fail with -sys_err
	 * while it was the innermost traced frame (0: none): "[-1 ENOENT]".
	 */
	__u16 sys_err;
	__u16 sys_err_level;
	__u64 kstack[MAX_KSTACK_DEPTH];
};

enum session_end_flags {
	/* an error chain nested deeper than BPF keeps aside was not kept: a caller of it that
	 * failed later shows as the origin of its own error */
	SESS_F_CHAIN_LOST = 0x1,
	/* the session was cut short: too deep (> MAX_FSTACK_DEPTH) or an exit was missed */
	SESS_F_TRUNCATED = 0x2,
	/* an error was handed to an in-band carrier (netlink_ack()): REC_SESSION_INBAND */
	SESS_F_INBAND = 0x4,
	/* the thread exited inside the session: frames [0, depth at exit) have NORET_EXIT */
	SESS_F_EXITED = 0x8,
	/*
	 * A call handed the error pointer its caller's previous callee had failed with, and
	 * failing with it without a failed callee of its own, passed that error on: the
	 * chain shown is the earlier callee's (err_chain.bpf.h, passes_on())
	 */
	SESS_F_PASSED_ON = 0x10,
	/*
	 * Ended at its thread's exit (exit_cut.bpf.h): its end record did not wake the reader,
	 * whose interrupt would preempt the exiting thread inside our exit program (7.x runs a
	 * raw tracepoint's program preemptible), and the kernel then skips that program for
	 * every other thread exiting on the CPU meanwhile: their sessions unjudged
	 */
	SESS_F_AT_EXIT = 0x20,
	/*
	 * Its entry function returned unseen (the kernel skipped its exit probe): it ended at
	 * the thread's next traced call or at its exit (missed_exit.bpf.h), after the call
	 */
	SESS_F_LATE_END = 0x40,
};

struct rec_session_end {
	__u32 type;		/* REC_SESSION_END */
	__u32 last_seq_id;	/* trace records up to this seq id belong to the sample */
	__u64 sess_id;
	__u64 emit_ts;
	__u32 dropped_records;	/* records of this session the ring buffer could not take */
	__u8 ignored;		/* filtered out: only tells user space to forget the session */
	__u8 is_err;		/* the outermost (entry) function returned an error */
	__u16 flags;		/* enum session_end_flags */
	struct call_stack stack;
};

/*
 * An announced session that ends unreported: what a REC_SESSION_END with ignored set would
 * say, without the call stack it does not need. Sent for every session of a -A or -T run
 * that ends well: a full end record copied its 2.3 KB stack each time (~3,000 guest
 * instructions per session, bench/results/overhead-round3.txt).
 */
struct rec_session_forget {
	__u32 type;		/* REC_SESSION_FORGET */
	__u32 dropped_records;
	__u64 sess_id;		/* at the same offset as in every record (tracer.c) */
};

/*
 * -I: a sample of a session that is still running, sent when something would otherwise
 * be lost or an injected probe fired. Frames [0, stack.depth) had not returned yet; the
 * -T records up to end.last_seq_id belong to it. The session goes on, and its later
 * samples repeat what they need.
 */
struct rec_session_interim {
	struct rec_session_end end;	/* end.type: REC_SESSION_PROBE or REC_SESSION_STITCH */
	/* REC_SESSION_PROBE: the probe that fired; REC_SESSION_INBAND: the carrier; else -1 */
	__s32 probe_id;
	__s32 err;			/* REC_SESSION_INBAND: the error handed over, else 0 */
};

/*
 * In-band errors: calls that hand an error back to user space in a message rather than as
 * a result (netlink_ack(skb, nlh, err, extack) answers a netlink request; the syscall that
 * carried the request succeeds). User space names the carriers it traces and which
 * argument holds the error; BPF sends, at the first carrier entry of a session with a
 * negative error, a REC_SESSION_INBAND (struct rec_session_interim, end.type
 * REC_SESSION_INBAND): frames [0, end.stack.depth) are the carrier's callers, still
 * running; [end.stack.depth, end.stack.max_depth) the failed callee's chain that returned
 * that error, with its kernel stack -- or, when no such chain is there, none (max_depth ==
 * depth: the carrier's caller made the error itself, kernel stack taken at the carrier).
 * probe_id is the carrier's function id, err the error.
 */
#define MAX_ERR_CARRIERS	4

/*
 * Feature detection creates a task-local storage slot this large, the way the tracer
 * would create a session's: kernels whose BPF allocator can't (7.x allocates without
 * locks, up to a few pages) get the sessions hash map instead. struct session fits.
 */
#define SESSION_SLOT_PROBE_SIZE	10240

/*
 * Where sessions live (session_slot.bpf.h), one value set before the load: each probe
 * tests it several times, and a test of one read-only value is one load.
 */
enum sess_store {
	SESS_STORE_HASH,	/* the sessions hash map (5.10, or bpf.sessions-size) */
	SESS_STORE_TASK,	/* task-local storage (5.11+) */
	SESS_STORE_TABLE,	/* the session table (5.17+) */
};

/*
 * Per CPU: the session sequence, and sessions started minus ended on this CPU (summed
 * over CPUs: the sessions still running).
 */
struct sess_counts {
	__u64 seq;
	__s64 live;
};

/* Global drop counters, read by user space while running (one slot per CPU, summed). */
/*
 * `-- CMD`, -p: the traced processes, one byte per PID (non-zero: traced) in slots of
 * TGID_SLOT_PIDS, an array map keyed by PID / TGID_SLOT_PIDS (tgid_set.bpf.h).
 */
#define TGID_SLOT_PIDS 64
struct tgid_slot {
	__u8 traced[TGID_SLOT_PIDS];
};

struct drop_stats {
	__u64 dropped_sessions;		/* START/END could not be sent or sessions map full */
	__u64 incomplete_sessions;	/* some record of the session was lost */
	__u64 skipped_calls;		/* fentry/fexit re-entered on a CPU: not recorded */
	__u64 unfollowed_forks;		/* -- CMD: children not followed (PID over pid_max) */
	__u64 lost_ends;		/* sessions whose entry function's return never came */
	__u64 no_slot;			/* of dropped_sessions: the table or map was full */
};

/*
 * -A: function arguments. User space plans, per traced function, where each argument is
 * and how much of it to read (from BTF, see arg_plan.h); BPF follows the plan at function
 * entry and sends one REC_FNARGS per call, tied to the call by (sess_id, seq_id).
 */
#define MAX_FNARGS		12	/* arguments captured per call */
#define MAX_FNARGS_TOTAL	65536	/* args.max-total-args-size at most */
#define MAX_FNARG_SIZE		16384	/* args.max-sized-arg-size, args.max-str-arg-size at most */

enum fnarg_kind {
	FNARG_SKIP,		/* nothing to read (unsupported, or beyond the plan) */
	FNARG_VALUE,		/* the argument's own bytes (integer, enum, struct, union) */
	FNARG_PTR,		/* a pointer: the bytes it points to */
	FNARG_STR,		/* a pointer: the NUL-terminated string it points to */
	FNARG_VARARG,		/* a printf-like vararg: 8 bytes, and a string if it points to one */
};

enum fnarg_loc {
	FNARG_REG,		/* argument register @off (fentry: argument slot @off) */
	FNARG_REG_PAIR,		/* registers @off and @off + 1 */
	FNARG_STACK,		/* on the stack, @off bytes above the stack pointer at entry */
	/*
	 * Injected probes' context (-J): @off bytes into the probe's context (pt_regs, the
	 * tracepoint's record, the raw tracepoint's argument array): the value, or for
	 * FNARG_PTR and FNARG_STR the pointer.
	 */
	FNARG_CTX,
	/* a tracepoint's __data_loc field at @off: its data (a string) is inside the record */
	FNARG_CTX_DATALOC,
};

struct fnarg_spec {
	__u16 len;		/* bytes to capture: the value, pointee, or string at most */
	__u8 kind;		/* enum fnarg_kind */
	__u8 loc;		/* enum fnarg_loc: where the value (or the pointer) is */
	__u16 off;
	__u16 __pad;
};

/* Value of the BPF map indexed by function id. */
struct func_args_spec {
	__u32 arg_cnt;
	__u32 __pad;
	struct fnarg_spec args[MAX_FNARGS];
};

/*
 * Argument i's data in data[], in order, each piece padded to 8 bytes: its raw pointer
 * value (8 bytes) if bit i of ptr_mask is set, then lens[i] bytes if lens[i] > 0.
 * A negative lens[i] is an errno: -ENODATA for a NULL pointer, -ENOSPC when
 * args.max-total-args-size left no room, else the read's error. FNARG_VARARG: with
 * ptr_mask bit i the value was read as a string too (lens[i] its length, NUL included),
 * without it lens[i] is 8 and the data is the value.
 */
struct rec_fnargs {
	__u32 type;		/* REC_FNARGS */
	__u32 func_id;
	__u64 sess_id;
	__u32 seq_id;		/* the call's entry */
	__u32 data_len;		/* bytes in data[] */
	__u16 ptr_mask;
	__u16 arg_cnt;
	__s16 lens[MAX_FNARGS];
	__u32 flags;		/* enum fnargs_flags */
	__u8 data[];
};

enum fnargs_flags {
	FNARGS_F_RAW_PTRS = 0x1,	/* args.capture-raw-ptrs: pointers come with their value */
};

/*
 * -U: what user space needs to unwind the user-space stack of the thread that entered the
 * kernel: its registers as saved at the kernel entry (the architecture's pt_regs, raw) and
 * a window of its stack from the stack pointer up. The user stack does not change while
 * the thread is in the kernel, so BPF takes it at the end of a session that will be
 * reported, right before that sample's REC_SESSION_END (an interim sample's record comes
 * right before it too). Variable length: stack_len bytes follow.
 */
#define USTACK_MAX_REGS		34	/* arm64 user_pt_regs: x0-x30, sp, pc, pstate */
#define USTACK_MAX_SIZE		16384	/* -C stacks.user-stack-size at most (power of 2; a
					 * per-CPU value holds at most 32 KiB) */
#define USTACK_DEFAULT_SIZE	16384
#define USTACK_MAX_URETS	16	/* pending return probes sent with a capture (power of 2) */
#define USTACK_PAGE		4096	/* the window's read unit (struct rec_ustack's stack_holes) */

enum ustack_arch {
	USTACK_ARCH_X86_64 = 1,		/* regs[]: struct pt_regs, r15 first (21 words) */
	USTACK_ARCH_ARM64 = 2,		/* regs[]: struct user_pt_regs (34 words) */
};

enum ustack_flags {
	USTACK_F_NOT_USER = 0x1,	/* the saved registers are not user mode: a kernel thread */
	/*
	 * Taken where the session ended late (SESS_F_LATE_END): the thread's stack at its
	 * next traced call or its exit, not the one that made the failed call
	 */
	USTACK_F_LATE = 0x2,
};

struct rec_ustack {
	__u32 type;		/* REC_USTACK */
	__s32 err;		/* 0, or -errno: the registers could not be read */
	__u64 sess_id;
	__u32 tgid;
	__u32 pid;
	__u16 arch;		/* enum ustack_arch */
	__u16 reg_cnt;		/* words of regs[] filled */
	__u16 flags;		/* enum ustack_flags */
	/*
	 * Pages of the window that could not be read, their bytes zero in stack[]: bit i is
	 * the i-th USTACK_PAGE-sized page from sp's. BPF reads can't fault a page in, and a
	 * page of the stack the thread never touched (a large local buffer a syscall is
	 * about to fill, below its caller's return address) is not in memory yet.
	 */
	__u16 stack_holes;
	/*
	 * Bytes of stack[], read page by page from sp up, up to the end of the last page that
	 * could be read (pages past the top of the stack mapping can't).
	 */
	__u32 stack_len;
	__s32 stack_err;	/* 0, or the first read error (a hole or the window's end) */
	__u64 sp;		/* the user stack pointer, as in regs[] */
	__u64 regs[USTACK_MAX_REGS];
	/*
	 * The thread's pending return probes, innermost first: each wrote the process's
	 * uprobe trampoline (uret_tramp) over a return address, at @stack on x86-64 (the
	 * stack pointer at the traced function's entry), into the link register on arm64
	 * (its frame record, below @stack, gets it). An unwinder reading the trampoline
	 * stops there: user space puts @orig_ret back (ustack_uret.c). uret_cnt 0: none, or
	 * not known (no such fields in the kernel's BTF).
	 */
	__u64 uret_tramp;
	__u32 uret_cnt;
	__u32 __pad2;
	struct { __u64 stack, orig_ret; } uret[USTACK_MAX_URETS];
	__u8 stack[];
};

/* Processes never traced: retsnoop itself and every helper it starts. */
#define MAX_EXCLUDED_TGIDS	8

/*
 * The immediate of the one "reg = imm" instruction in each fentry/fexit template that
 * stands for the traced function's id: the mass attacher writes the id of the function
 * each program is loaded for in its place, so the probes need no ip -> id lookup.
 */
#define FENTRY_ID_MARK		0x5eadf00d

/*
 * The helper number a session program calls for "is this the return run?": before load it
 * becomes a call of the kfunc bpf_session_is_return(), by its id in this kernel's BTF
 * (6.12 declares it without arguments, 7.2 with ctx: passing ctx suits both). A kfunc
 * extern would make libbpf parse the vmlinux BTF again at every load.
 */
#define SESSION_RET_MARK	0x5e55104e

/*
 * The same for the kfunc bpf_session_cookie() (6.10+ with the above): eight bytes of the
 * call's own that its entry run writes and its return run reads. The kprobe session keeps
 * the function id there, so the return run needs no BPF cookie lookup (a binary search
 * over the link's addresses in the kernel, calling its compare function through a
 * retpoline at each step).
 */
#define SESSION_COOKIE_MARK	0x5e55c00c

/*
 * -F's fsession multi-link (tracing_multi.h): each function's BPF cookie is its id, with
 * this bit set when the function returns nothing. One program serves both kinds, where
 * the per-function clones have a template each: what the trampoline saved as a void
 * function's result is whatever its return register held.
 */
#define FMULTI_COOKIE_VOID	(1ULL << 32)

#endif
