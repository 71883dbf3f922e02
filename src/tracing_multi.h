/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Tracing multi-links (Linux 7.x, x86-64): one tracing program, verified once, linked to a
 * whole set of kernel functions by their BTF ids with one link; the trampoline of each
 * function runs it, and bpf_get_attach_cookie() tells which function it runs for. The
 * program is loaded with one of the *_MULTI attach types and no attach BTF id (the kernel
 * verifies it against a function without arguments: arguments and the result are read
 * with bpf_get_func_arg()/bpf_get_func_ret()). libbpf 1.4 knows neither the attach types
 * nor the link's attributes: both are here. Used by the mass attacher (-F's fsession
 * multi-link), feature detection and the floor benchmark (bench/floor.c compiles it in).
 */
#ifndef RETSNOOP_TRACING_MULTI_H
#define RETSNOOP_TRACING_MULTI_H

#include <stddef.h>
#include <linux/types.h>

/* BPF_TRACE_FSESSION_MULTI of the kernel's UAPI: fsession programs on a multi-link */
#define FSESSION_MULTI_ATTACH_TYPE	61

/*
 * Link loaded multi program @prog_fd (of @attach_type) to the @cnt functions of BTF ids
 * @ids (of the BTF the program was loaded for: vmlinux's unless a module's was named),
 * @cookies (may be NULL) one per function. A link fd, or a negative errno: -EINVAL also
 * when an id can't be traced (the kernel does not say which), -EOPNOTSUPP where the
 * architecture can't (arm64 in 7.2). @ids NULL with @cnt 0 is accepted here (the feature
 * probe): the kernel then refuses with -EINVAL where it has the links.
 */
int tracing_multi__link(int prog_fd, int attach_type, const __u32 *ids, const __u64 *cookies,
			size_t cnt);

#endif
