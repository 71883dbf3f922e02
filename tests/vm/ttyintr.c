// SPDX-License-Identifier: BSD-2-Clause
/*
 * ttyintr: run a command as a terminal's foreground job, and type Ctrl-C at that terminal
 * each time ttyintr gets SIGUSR1 (guests' signal checks). A Ctrl-C is the kernel's SIGINT
 * to the terminal's foreground process group (si_code SI_KERNEL), which no kill(1) can
 * send: retsnoop answers it differently (stop.h).
 *
 *   ttyintr CMD [ARGS...]
 *
 * The command's stdin is a new pseudo-terminal, its controlling one; stdout and stderr are
 * left as they are. Exit status: the command's (128 + N when signal N ended it); 125 when
 * ttyintr itself failed. Needs devpts mounted on /dev/pts (the guests' init does it).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

static volatile sig_atomic_t intrs;

static void on_usr1(int sig)
{
	(void)sig;
	intrs++;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	int master, slave, status, sent = 0;
	const char *name;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: ttyintr CMD [ARGS...]\n");
		return 125;
	}
	/* no SA_RESTART: waitpid() returns for each SIGUSR1 */
	if (sigaction(SIGUSR1, &sa, NULL))
		return 125;
	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || grantpt(master) || unlockpt(master) || !(name = ptsname(master))) {
		fprintf(stderr, "ttyintr: no pseudo-terminal: %s (is devpts on /dev/pts?)\n",
			strerror(errno));
		return 125;
	}
	pid = fork();
	if (pid < 0)
		return 125;
	if (pid == 0) {
		/* a session of its own, whose controlling terminal the slave becomes */
		setsid();
		slave = open(name, O_RDWR);
		if (slave < 0 || ioctl(slave, TIOCSCTTY, 0) || dup2(slave, STDIN_FILENO) < 0)
			_exit(125);
		if (slave != STDIN_FILENO)
			close(slave);
		/* as a terminal's job: a shell's `&` without job control ignored these */
		signal(SIGUSR1, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		execvp(argv[1], argv + 1);
		fprintf(stderr, "ttyintr: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	for (;;) {
		while (sent < intrs) {
			/* the terminal's VINTR character (^C by default): its line discipline signals */
			if (write(master, "\003", 1) != 1)
				fprintf(stderr, "ttyintr: typing ^C failed: %s\n", strerror(errno));
			sent++;
		}
		if (waitpid(pid, &status, 0) == pid)
			break;
		if (errno != EINTR)
			return 125;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
