// SPDX-License-Identifier: BSD-2-Clause
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "probe_fds.h"

/* getdents64's record (the libc has no async-signal-safe readdir) */
struct dent64 {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* A BPF object (link, program, map) or a perf event (a kprobe's or uprobe's). */
static bool is_probe_fd(int dirfd, const char *name)
{
	char target[32];
	ssize_t n = readlinkat(dirfd, name, target, sizeof(target) - 1);

	if (n <= 0)
		return false;
	target[n] = '\0';
	return strncmp(target, "anon_inode:bpf", 14) == 0 ||
	       strcmp(target, "anon_inode:[perf_event]") == 0;
}

void probe_fds__keep_only(int keep)
{
	char buf[1024];
	int dirfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n, off;

	if (dirfd < 0)
		return;
	while ((n = syscall(SYS_getdents64, dirfd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n; off += ((struct dent64 *)(buf + off))->reclen) {
			const char *name = ((struct dent64 *)(buf + off))->name;
			int fd = 0;

			if (name[0] < '0' || name[0] > '9')
				continue;
			while (*name >= '0' && *name <= '9')
				fd = fd * 10 + *name++ - '0';
			name = ((struct dent64 *)(buf + off))->name;
			if (fd != dirfd && fd != keep && !is_probe_fd(dirfd, name))
				close(fd);
		}
	}
	close(dirfd);
}
