/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kprobe.multi session links (Linux 6.10+): one BPF program, one link, run at a function's
 * entry and, unless the entry run returned 1, at its return. libbpf 1.4 (ours) knows
 * neither the attach type nor how to link it, so the few pieces it would do are here: the
 * attach type and the link (the feature probe is session_prog__kprobe_probe()). Used by the mass attacher,
 * feature detection and the floor benchmark (bench/floor.c compiles this file in).
 */
#ifndef RETSNOOP_KPROBE_SESSION_H
#define RETSNOOP_KPROBE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct bpf_program;

/* BPF_TRACE_KPROBE_SESSION of the kernel's UAPI (6.10+), missing from libbpf 1.4's copy */
#define KPROBE_SESSION_ATTACH_TYPE	56

/*
 * Link loaded session program @prog_fd to @cnt functions, by address (@addrs) or, when
 * @addrs is NULL, by name (@syms); @cookies (may be NULL) one per function. A link fd, or
 * a negative errno.
 */
int kprobe_session__link(int prog_fd, const unsigned long *addrs, const char *const *syms,
			 const __u64 *cookies, size_t cnt);

#endif
