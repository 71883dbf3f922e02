// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0)
/*
 * The floor of tracing cost: entry and exit programs that do nothing. Whatever a call costs
 * with these attached is the kernel's price for reaching a BPF program at all (kprobe.multi,
 * single kprobes or a fentry/fexit trampoline); retsnoop's own handlers add to it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* kprobe.multi: programs must be loaded as such to be linked to many functions at once */
SEC("kprobe.multi")
int floor_mentry(void *ctx)
{
	return 0;
}

SEC("kretprobe.multi")
int floor_mexit(void *ctx)
{
	return 0;
}

/*
 * kprobe.multi session (6.10+, -S): one program at entry and at return; returning 0 from
 * the entry run keeps the return run, so it costs what the pair's two runs do. Loaded with
 * the session attach type by floor.c (libbpf 1.4 has no section name for it).
 */
SEC("kprobe.multi")
int floor_session(void *ctx)
{
	return 0;
}

/* single kprobes, attached by address through perf events */
SEC("kprobe")
int floor_kentry(void *ctx)
{
	return 0;
}

SEC("kretprobe")
int floor_kexit(void *ctx)
{
	return 0;
}

/* fentry/fexit: loaded for the first function, cloned for the others */
SEC("fentry")
int floor_fentry(void *ctx)
{
	return 0;
}

SEC("fexit")
int floor_fexit(void *ctx)
{
	return 0;
}
