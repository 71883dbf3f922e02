/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A real user-stack snapshot taken the way BPF takes it, natively on the host (snap.c,
 * tests/sidecar/test_unwind.c): PROG runs under ptrace until the entry of its first
 * openat() of PATH; there its registers as saved at kernel entry, the stack window from sp
 * up (page by page, as ustack.bpf.h reads it) and its maps become the sidecar's "unwind"
 * request line (src/ustack_req.h). The process is killed afterwards.
 */
#ifndef USERPROG_SNAP_H
#define USERPROG_SNAP_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include "proc_maps.h"
#include "ustack_req.h"

#define PAGE 4096

static inline int snap_read_str(pid_t pid, unsigned long addr, char *buf, size_t sz)
{
	struct iovec l = { buf, sz - 1 }, r = { (void *)addr, sz - 1 };
	ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* Page by page, like ustack.bpf.h: stops at the first page that can't be read. */
static inline size_t snap_read_window(pid_t pid, __u64 sp, __u8 *buf, size_t want)
{
	size_t off = 0;

	while (off < want) {
		size_t chunk = PAGE - ((sp + off) & (PAGE - 1));
		struct iovec l, r;

		if (chunk > want - off)
			chunk = want - off;
		l = (struct iovec){ buf + off, chunk };
		r = (struct iovec){ (void *)(sp + off), chunk };
		if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)chunk)
			break;
		off += chunk;
	}
	return off;
}

/*
 * Run @argv[0] (with @argv) until the entry of its openat(@path) and capture there what BPF
 * would: *rec (malloc()ed, @window bytes of stack). The process stays stopped: *pidp, for
 * snap_kill(). 0 or -errno.
 */
static inline int snap_capture(const char *path, size_t window, char *const argv[],
			       struct rec_ustack **recp, pid_t *pidp)
{
	struct user_regs_struct uregs;
	struct rec_ustack *rec;
	char name[4096];
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execv(argv[0], argv);
		_exit(127);
	}
	*pidp = pid;
	/* the exec stop, then syscall entries and exits alternate */
	if (waitpid(pid, &status, 0) < 0 || !WIFSTOPPED(status))
		return -ECHILD;
	/* syscall stops told from signals, which go on to the program (its handlers run) */
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD));
	for (long sig = 0;;) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)sig) || waitpid(pid, &status, 0) < 0 ||
		    !WIFSTOPPED(status))
			return -ENOENT;
		sig = WSTOPSIG(status) == (SIGTRAP | 0x80) ? 0 : WSTOPSIG(status);
		if (sig)
			continue;
		if (ptrace(PTRACE_GETREGS, pid, NULL, &uregs))
			return -errno;
		/* at an entry rax is -ENOSYS; the path is the second argument */
		if (uregs.orig_rax == SYS_openat && (long)uregs.rax == -ENOSYS &&
		    !snap_read_str(pid, uregs.rsi, name, sizeof(name)) && !strcmp(name, path))
			break;
	}
	rec = calloc(1, sizeof(*rec) + window);
	if (!rec)
		return -ENOMEM;
	rec->type = REC_USTACK;
	rec->pid = rec->tgid = pid;
	rec->arch = USTACK_ARCH_X86_64;
	/* user_regs_struct starts with struct pt_regs' 21 words, in the same order */
	rec->reg_cnt = 21;
	memcpy(rec->regs, &uregs, 21 * 8);
	rec->sp = uregs.rsp;
	rec->stack_len = snap_read_window(pid, rec->sp, rec->stack, window);
	*recp = rec;
	return 0;
}

/* End a captured process; afterwards its /proc entry is gone. */
static inline void snap_kill(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

/*
 * Snapshot @argv[0] at its openat(@path) as a request line: 0 with *line malloc()ed, -errno.
 */
static inline int snap_take(const char *path, size_t window, char *const argv[], char **line,
			    pid_t *pidp)
{
	struct proc_maps *maps = NULL;
	struct rec_ustack *rec = NULL;
	pid_t pid = 0;
	int err;

	err = snap_capture(path, window, argv, &rec, &pid);
	if (!err)
		err = proc_maps__read(pid, NULL, &maps);
	if (!err)
		err = ustack_req__format(rec, rec->stack_len, maps, NULL, line);
	if (pid > 0)
		snap_kill(pid);
	free(rec);
	proc_maps__free(maps);
	if (pidp)
		*pidp = pid;
	return err;
}

#endif
