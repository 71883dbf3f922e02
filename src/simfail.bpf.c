// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0)
/* Tiny programs simfail loads to provoke BPF load/attach errors on demand. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

__u64 hits = 0;

/* bpf-simple-obj: loads and verifies, attached nowhere */
SEC("kprobe")
int simple_kprobe(struct pt_regs *ctx)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

/* bpf-kprobe-bad-kfunc: loads fine, the attach to a missing function fails */
SEC("kprobe")
int bad_kprobe(struct pt_regs *ctx)
{
	return 0;
}

/* bpf-fentry-unsupp-func: a target whose prototype trampolines could not handle */
SEC("fentry/btf_struct_access")
int unsupp_fentry(void *ctx)
{
	return 0;
}
