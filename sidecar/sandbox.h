/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sidecar's sandbox: it parses binaries any user controls while retsnoop runs as root,
 * so before reading the first request it gives up everything a corrupt file could abuse.
 */
#ifndef __SIDECAR_SANDBOX_H
#define __SIDECAR_SANDBOX_H

/* The user and group the sidecar runs as when started as root (the kernel's overflow id). */
#define SANDBOX_UID 65534
#define SANDBOX_GID 65534

/*
 * Drop root (to SANDBOX_UID/GID, no supplementary groups) and every capability (bounding
 * and ambient sets too), forbid gaining any back (no_new_privs), forbid core dumps and
 * ptrace by other processes of that user, and install a seccomp filter that allows only the
 * system calls serving requests on descriptors it already has: opening files fails with
 * EACCES, anything else not listed with EPERM; system calls of another ABI kill it.
 * The parent-death signal is armed again (a credential change clears it). 0 or -errno.
 */
int sandbox__enter(void);

#endif /* __SIDECAR_SANDBOX_H */
