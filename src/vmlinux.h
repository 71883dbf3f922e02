/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0) */
/*
 * Kernel types for the BPF programs: the vmlinux.h of the target arch, generated from a
 * Debian kernel's BTF (make vmlinux-h [ARCH=arm64]). The Makefile passes
 * -D__TARGET_ARCH_<arch>, which bpf_tracing.h needs as well.
 */
#if defined(__TARGET_ARCH_x86)
#include "x86/vmlinux.h"
#elif defined(__TARGET_ARCH_arm64)
#include "arm64/vmlinux.h"
#else
#error "no vmlinux.h for this target arch (src/<arch>/vmlinux.h, make vmlinux-h ARCH=<arch>)"
#endif
