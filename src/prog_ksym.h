/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A loaded BPF program's JIT image as /proc/kallsyms names it, read from the program
 * itself: stacks unwound from the current task (kprobe.multi on the function graph, 6.14+)
 * show the program that took them, and naming that frame must not wait for kallsyms.
 */
#ifndef __RETSNOOP_PROG_KSYM_H
#define __RETSNOOP_PROG_KSYM_H

#include <linux/types.h>

/* kallsyms' longest name (KSYM_NAME_LEN) */
#define PROG_KSYM_NAME_LEN	512

struct prog_ksym {
	__u64 addr;			/* the main function's first instruction */
	__u64 size;			/* its length in bytes */
	char name[PROG_KSYM_NAME_LEN];	/* bpf_prog_<tag>_<function> */
};

/*
 * The main function of program @prog_fd, whose BTF function (or, without BTF, program)
 * name is @func: the kernel names it bpf_prog_<its tag in hex>_<func>. 0, -ENODATA when
 * the kernel shows no address (not JITed, or kallsyms hidden from us: kptr_restrict), or
 * another negative errno.
 */
int prog_ksym__get(int prog_fd, const char *func, struct prog_ksym *k);

#endif /* __RETSNOOP_PROG_KSYM_H */
