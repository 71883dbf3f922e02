// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0)
/*
 * The floor of user-space tracing: uprobe entry and return programs that do nothing.
 * Whatever a call costs with these attached is the kernel's price for a uprobe hit (the
 * breakpoint trap, the return trampoline) and reaching a BPF program; retsnoop's own
 * handlers (uentry/uexit in src/retsnoop.bpf.c) add to it.
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
