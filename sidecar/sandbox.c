// SPDX-License-Identifier: BSD-2-Clause
/* Privilege drop and seccomp filter of the sidecar (sandbox.h). */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stddef.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "sandbox.h"

/*
 * Sanitized test builds: ASan and LeakSanitizer need much more at exit (sigaltstack,
 * /proc/self/maps, a ptrace()ing helper), so there the privileges go but the filter only
 * is not installed and the process stays dumpable. The shipped (static,
 * unsanitized) sidecar always gets the full filter.
 */
#if defined(__SANITIZE_ADDRESS__)
#define SANDBOX_RELAXED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANDBOX_RELAXED 1
#endif
#endif

#if defined(__x86_64__)
#define SANDBOX_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_ARCH AUDIT_ARCH_AARCH64
#else
#error "sidecar sandbox: unsupported architecture"
#endif

/*
 * What serving requests needs: reading requests (and descriptors) from the socket, writing
 * replies, reading and mapping the files handed over (libelf mmaps or preads them), memory
 * management, the clock for statistics, locks of libdw, and ending. Entries a given
 * architecture lacks (arm64 has no plain open) are left out by the preprocessor.
 */
static const int allowed[] = {
	__NR_read, __NR_write, __NR_writev, __NR_recvmsg, __NR_close, __NR_pread64, __NR_lseek,
	__NR_fstat, __NR_newfstatat,
	/* libdwfl takes ownership of a descriptor it is given: the unwinder passes dups */
	__NR_dup, __NR_dup3, __NR_fcntl,
#ifdef __NR_statx
	__NR_statx,
#endif
	__NR_mmap, __NR_munmap, __NR_mremap, __NR_mprotect, __NR_madvise, __NR_brk,
	__NR_futex, __NR_clock_gettime, __NR_gettimeofday, __NR_getpid, __NR_gettid,
	__NR_rt_sigprocmask, __NR_rt_sigreturn, __NR_getrandom, __NR_sched_yield,
	/* abort() on a failed assertion: still only this process */
	__NR_tgkill,
	__NR_exit, __NR_exit_group,
};

/* Asked to open a file: it has none to open, say so instead of dying. */
static const int denied_open[] = {
#ifdef __NR_open
	__NR_open,
#endif
	__NR_openat,
#ifdef __NR_openat2
	__NR_openat2,
#endif
};

#define N_ALLOWED (sizeof(allowed) / sizeof(allowed[0]))
#define N_DENIED_OPEN (sizeof(denied_open) / sizeof(denied_open[0]))
/* arch check (4) + x32 check (1) + two per listed call + the three returns */
#define MAX_INSNS (5 + 2 * (N_ALLOWED + N_DENIED_OPEN) + 3)

static int __attribute__((unused)) install_filter(void)
{
	struct sock_filter f[MAX_INSNS];
	struct sock_fprog prog;
	unsigned int n = 0, i;

	/* a call through another ABI (32-bit, x32) is nothing it ever makes */
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					       offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_ARCH, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					       offsetof(struct seccomp_data, nr));
#if defined(__x86_64__)
	/* x32 numbers have bit 30 set: jump to the kill above is not possible, kill here */
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
#endif
	for (i = 0; i < N_ALLOWED; i++) {
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, allowed[i], 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	}
	for (i = 0; i < N_DENIED_OPEN; i++) {
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, denied_open[i],
						      0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						      SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA));
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					       SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
	prog = (struct sock_fprog){ .len = n, .filter = f };
	if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return -errno;
	return 0;
}

/* Empty every capability set this process has (permitted, effective, inheritable). */
static int clear_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {};

	if (syscall(__NR_capset, &h, d))
		return -errno;
	return 0;
}

int sandbox__enter(void)
{
	uid_t ruid, euid, suid;
	struct rlimit no_core = {};
	pid_t parent = getppid();
	int cap, err;

	/* the bounding set needs CAP_SETPCAP: only root can empty it, before leaving root */
	for (cap = 0; cap <= CAP_LAST_CAP; cap++) {
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL && errno != EPERM)
			return -errno;
	}
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (getresuid(&ruid, &euid, &suid))
		return -errno;
	if (!ruid || !euid || !suid) {
		if (setgroups(0, NULL) || setresgid(SANDBOX_GID, SANDBOX_GID, SANDBOX_GID) ||
		    setresuid(SANDBOX_UID, SANDBOX_UID, SANDBOX_UID))
			return -errno;
	}
	err = clear_caps();
	if (err)
		return err;
	/*
	 * A credential change cleared the parent-death signal: arm it again, and go if the
	 * parent died meanwhile. Not dumpable: no core file, and other processes of the
	 * same user cannot ptrace it (and the descriptors it holds).
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		return -ESRCH;
	if (setrlimit(RLIMIT_CORE, &no_core))
		return -errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
#ifdef SANDBOX_RELAXED
	return 0;
#else
	if (prctl(PR_SET_DUMPABLE, 0))
		return -errno;
	return install_filter();
#endif
}
