// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0)
/*
 * The floor of user-space tracing: uprobe entry and return programs that do nothing.
 * Whatever a call costs with these attached is the kernel's price for a uprobe hit (the
 * breakpoint trap, the return trampoline) and reaching a BPF program; retsnoop's own
 * handlers (uentry/uexit, usession in src/retsnoop.bpf.c) add to it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("uprobe.multi")
int ufloor_mentry(void *ctx)
{
	return 0;
}

SEC("uretprobe.multi")
int ufloor_mexit(void *ctx)
{
	return 0;
}

/*
 * A uprobe session link's program (ufloor -S, -E; loaded for that attach type by ufloor.c):
 * run at entry and, when the entry returned 0, at return. skip_return: the entry returns 1,
 * the return never runs (no return trap): what a call costs that needs no return.
 */
const volatile int skip_return;

SEC("uprobe")
int ufloor_session(void *ctx)
{
	return skip_return;
}

SEC("uprobe")
int ufloor_entry(void *ctx)
{
	return 0;
}

SEC("uretprobe")
int ufloor_exit(void *ctx)
{
	return 0;
}

/*
 * ufloor -R: an empty program on the sys_exit raw tracepoint, where retsnoop ties a user
 * function's failure to the errno of a syscall it made (usys_exit): every syscall of every
 * process then takes the kernel's slow way out, whatever the program does.
 */
SEC("raw_tp/sys_exit")
int ufloor_sys_exit(void *ctx)
{
	return 0;
}
