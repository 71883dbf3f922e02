/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A captured user stack with the uprobe trampoline written over traced calls' return
 * addresses put back together from the kernel's pending return probes (rec_ustack.uret[]),
 * so that unwinding goes on past each traced frame to its real caller.
 */
#ifndef RETSNOOP_USTACK_URET_H
#define RETSNOOP_USTACK_URET_H

#include <stddef.h>
#include "records.h"

/*
 * In @r's registers and the first @stack_len bytes of its window, each word that holds
 * the trampoline (8-byte aligned in the address space) becomes the return address the
 * innermost pending probe at or above it replaced. Returns how many were put back.
 */
size_t ustack_uret__restore(struct rec_ustack *r, size_t stack_len);

#endif
