// SPDX-License-Identifier: BSD-2-Clause
/*
 * Take a real user-stack snapshot the way BPF does, natively on the host: run a program
 * under ptrace, stop it at the entry of its first openat() of PATH, and record what
 * retsnoop's BPF side would have captured there (the registers saved at kernel entry, the
 * stack window from sp up, read page by page) and its maps, as the sidecar's "unwind"
 * request line (src/ustack_req.h). Unit tests unwind it; fuzz seeds start from it.
 *
 * usage: snap [-w WINDOW] PATH OUT -- PROG [ARGS...]
 */
#include <errno.h>
#include <fcntl.h>
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

static int read_str(pid_t pid, unsigned long addr, char *buf, size_t sz)
{
	struct iovec l = { buf, sz - 1 }, r = { (void *)addr, sz - 1 };
	ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* Page by page, like ustack.bpf.h: stops at the first page that can't be read. */
static size_t read_window(pid_t pid, __u64 sp, __u8 *buf, size_t want)
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

int main(int argc, char **argv)
{
	size_t window = USTACK_DEFAULT_SIZE, len;
	struct user_regs_struct uregs;
	struct proc_maps *maps = NULL;
	struct rec_ustack *rec;
	const char *path, *out;
	char *line, name[4096];
	int opt, status, err;
	FILE *f;
	pid_t pid;

	while ((opt = getopt(argc, argv, "w:")) != -1) {
		if (opt != 'w')
			return 2;
		window = strtoul(optarg, NULL, 0);
	}
	if (argc - optind < 3 || window > USTACK_MAX_SIZE) {
		fprintf(stderr, "usage: snap [-w WINDOW] PATH OUT [--] PROG [ARGS...]\n");
		return 2;
	}
	path = argv[optind];
	out = argv[optind + 1];
	optind += 2;
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execv(argv[optind], argv + optind);
		_exit(127);
	}
	/* the exec stop, then syscall entries and exits alternate */
	if (waitpid(pid, &status, 0) < 0 || !WIFSTOPPED(status))
		return 1;
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_EXITKILL);
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, NULL) || waitpid(pid, &status, 0) < 0 ||
		    !WIFSTOPPED(status)) {
			fprintf(stderr, "snap: no openat(\"%s\") seen\n", path);
			return 1;
		}
		if (ptrace(PTRACE_GETREGS, pid, NULL, &uregs))
			return 1;
		/* at an entry rax is -ENOSYS; the path is the second argument */
		if (uregs.orig_rax == SYS_openat && (long)uregs.rax == -ENOSYS &&
		    !read_str(pid, uregs.rsi, name, sizeof(name)) && !strcmp(name, path))
			break;
	}
	rec = calloc(1, sizeof(*rec) + window);
	if (!rec)
		return 1;
	rec->type = REC_USTACK;
	rec->pid = rec->tgid = pid;
	rec->arch = USTACK_ARCH_X86_64;
	/* user_regs_struct starts with struct pt_regs' 21 words, in the same order */
	rec->reg_cnt = 21;
	memcpy(rec->regs, &uregs, 21 * 8);
	rec->sp = uregs.rsp;
	rec->stack_len = read_window(pid, rec->sp, rec->stack, window);
	err = proc_maps__read(pid, NULL, &maps) ?:
	      ustack_req__format(rec, rec->stack_len, maps, &line);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (err) {
		fprintf(stderr, "snap: %s\n", strerror(-err));
		return 1;
	}
	f = fopen(out, "w");
	len = strlen(line);
	if (!f || fwrite(line, 1, len, f) != len || fputc('\n', f) == EOF || fclose(f))
		return 1;
	free(line);
	free(rec);
	proc_maps__free(maps);
	return 0;
}
