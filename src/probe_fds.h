/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * For a process that goes on holding a run's probes after retsnoop leaves (the releasers
 * of stop.h and detach_child.h): let go of every other fd it inherited. Held on, they would
 * keep this run's peers waiting: a pipe's reader (| less) or the held `-- CMD` (EOF on its
 * release pipe) for their end, a sidecar for its stdin's EOF, which retsnoop's own exit
 * waits for (a deadlock).
 */
#ifndef RETSNOOP_PROBE_FDS_H
#define RETSNOOP_PROBE_FDS_H

/*
 * Close every fd but BPF objects (links, programs, maps), perf events (a kprobe's or
 * uprobe's) and @keep (-1: none). Async-signal-safe (getdents64 on /proc/self/fd);
 * without /proc, nothing is closed.
 */
void probe_fds__keep_only(int keep);

#endif
