/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel's kprobe PMU, for kprobes opened with perf_event_open() (-K, -J, and the floor
 * benchmark, bench/floor.c, which compiles this file into its own binary); its uprobe PMU
 * likewise, for the uprobe entry clones of kernels without BPF cookies.
 */
#ifndef RETSNOOP_KPROBE_PMU_H
#define RETSNOOP_KPROBE_PMU_H

#include <stdbool.h>
#include <linux/types.h>

/*
 * The PMU's type and the config bit that makes a kretprobe (in [0, 64)), from sysfs.
 * 0, -errno of an unreadable file, or -EINVAL for an unexpected format.
 */
int kprobe_pmu__read(int *type, int *ret_bit);
/* The same for the uprobe PMU (uprobes opened with perf_event_open(), uprobe_attacher.c). */
int uprobe_pmu__read(int *type, int *ret_bit);
/*
 * A probe of PMU @type (from the reads above; @ret_bit makes it a return probe) at
 * @config1/@config2 (kprobe: no name and an address, or a name and an offset; uprobe: a
 * path and a file offset), in process @pid (> 0) or in every process (on CPU 0, as perf
 * and libbpf open them). Its perf event fd (close-on-exec), or a negative errno.
 */
int probe_pmu__open(int type, int ret_bit, bool retprobe, __u64 config1, __u64 config2,
		    int pid);

#endif
