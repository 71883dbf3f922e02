/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Session programs (kprobe.multi 6.10+, uprobe.multi 6.13+): one program run at entry and
 * at return, which asks the kfunc bpf_session_is_return() which run it is. The BPF side
 * calls a marker helper number instead (SESSION_RET_MARK, records.h): a kfunc extern would
 * make libbpf parse the vmlinux BTF again at every load, and its signature differs between
 * kernels (6.12: no argument, 7.x: ctx; passing ctx suits both).
 */
#ifndef __RETSNOOP_SESSION_PROG_H
#define __RETSNOOP_SESSION_PROG_H

#include <stdbool.h>
#include <linux/types.h>

/*
 * BPF_TRACE_FSESSION (Linux 7.0+; libbpf 1.4 has no name for it): one tracing program the
 * trampoline runs at entry and at return, one link for both.
 */
#define FSESSION_ATTACH_TYPE	58

struct bpf_program;

/*
 * Before load: make @prog a session program of @attach_type (the kernel links only
 * programs loaded with it into session links) and turn its one call of helper
 * SESSION_RET_MARK into a call of the kfunc with BTF id @kfunc_id, and its call of
 * SESSION_COOKIE_MARK, if it has one, into one of @cookie_kfunc_id (bpf_session_cookie).
 * 0, -ENOENT (no SESSION_RET_MARK call, or a needed id 0), -EINVAL (a mark called more
 * than once), or libbpf's error.
 */
int session_prog__prepare(struct bpf_program *prog, __u32 kfunc_id, __u32 cookie_kfunc_id,
			  int attach_type);

/*
 * Feature probes: each loads (and at once unloads) a 3-instruction session program calling
 * the kfunc bpf_session_is_return (@kfunc_id), which the kernel lets only session programs
 * call. Does this kernel run kprobe session programs? Does it load fsession programs (the
 * kfunc is also the function the probe's program is for)? For fsession the attach type's
 * name in the vmlinux BTF is not enough: an architecture's JIT may lack the trampoline
 * part, and the kernel then refuses the load, not the attach.
 */
bool session_prog__kprobe_probe(__u32 kfunc_id);
bool session_prog__fsession_probe(__u32 kfunc_id);
/*
 * Does it load an fsession program for a tracing multi-link (no attach BTF id) and link
 * such programs (an empty link is refused as empty, not as unsupported)?
 */
bool session_prog__fsession_multi_probe(__u32 kfunc_id);

#endif /* __RETSNOOP_SESSION_PROG_H */
