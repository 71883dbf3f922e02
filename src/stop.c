// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "probe_fds.h"
#include "stop.h"

static volatile sig_atomic_t stop_flag;
static volatile sig_atomic_t stop_sig;
static volatile sig_atomic_t forward_pid;
static volatile sig_atomic_t hurry_flag;
static volatile sig_atomic_t phase;	/* enum stop_phase */
static volatile sig_atomic_t stops;	/* signals seen */
static volatile sig_atomic_t stop_tty;	/* the first came from a terminal */
static volatile sig_atomic_t releaser;	/* a detach_child's pid, or 0 */
/* who sent the first stop with kill(2), and when: its echo is not a second stop */
static volatile sig_atomic_t first_sender;
static struct timespec first_at;

/* An echo comes within this of the first: two kill()s in a row from one process. */
#define ECHO_WINDOW_NS 200000000L

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

/* Async-signal-safe output: a string, a number. */
static void say(const char *s)
{
	ssize_t n = write(STDERR_FILENO, s, strlen(s));

	(void)n;
}

static void say_num(long v)
{
	char buf[24], *p = buf + sizeof(buf) - 1;

	*p = '\0';
	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v && p > buf);
	say(p);
}

/*
 * One stop too many with links attached: the kernel's release can't go faster, and a
 * killed process would not exit before it ended either (the kernel releases the links in
 * exit, one by one). So a child in a session of its own keeps the links and lets them go,
 * closing every fd it inherited (stdout too: a pipe's reader sees its end now), and this
 * process exits at once.
 */
pid_t stop__hand_off(void)
{
	struct timespec ms = { .tv_nsec = 1000000 };
	pid_t parent = getpid();
	/* _Fork(): fork without atfork handlers, safe in a signal handler */
	pid_t pid = _Fork();
	int fd;

	if (pid == 0) {
		sigset_t all;

		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, NULL);
		setsid();
		probe_fds__keep_only(-1);
		/*
		 * Only once the parent is gone: closing first would leave it the last reference
		 * to each link, and its exit would release them all, one by one.
		 */
		while (getppid() == parent)
			nanosleep(&ms, NULL);
		if (syscall(SYS_close_range, 0, ~0U, 0))
			for (fd = 0; fd < 65536; fd++)
				close(fd);
		_exit(0);
	}
	return pid;
}

static const char *sig_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	default: return "a request";
	}
}

/* @interrupted: end with main's line for a run stopped before tracing */
static void hand_off(int sig, bool interrupted)
{
	/* a child already releasing holds everything this process still has: no other */
	pid_t pid = releaser > 0 ? releaser : stop__hand_off();

	if (pid > 0) {
		say("\nretsnoop: the kernel goes on releasing what was attached in the background (pid ");
		say_num(pid);
		say("); exiting now.\n");
	}
	if (interrupted) {
		say("Interrupted by ");
		say(sig_name(sig));
		say(" before tracing began; nothing was traced.\n");
	}
	_exit(128 + sig);
}

/*
 * The first stop sent again by the same process at once is one request, not two: GNU
 * timeout (without --foreground) kills its child and then its whole process group, and
 * a script may signal a pid and its group alike. Counted twice, the echo would cut the
 * samples' symbolization short and leave the detach to a child. Only kill(2)'s signals
 * carry a sender (SI_USER); a terminal's (SI_KERNEL) or raise()'s (SI_TKILL) never match.
 */
static bool is_echo(int sig, const siginfo_t *info)
{
	struct timespec now;
	long ns;

	if (stops != 1 || !info || info->si_code != SI_USER || sig != stop_sig ||
	    info->si_pid != first_sender || first_sender == 0)
		return false;
	if (clock_gettime(CLOCK_MONOTONIC, &now))	/* async-signal-safe */
		return false;
	ns = (now.tv_sec - first_at.tv_sec) * 1000000000L + (now.tv_nsec - first_at.tv_nsec);
	return ns >= 0 && ns < ECHO_WINDOW_NS;
}

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	int saved = errno;	/* kill() may change it under the interrupted code */
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	pid_t pid = forward_pid;

	if (is_echo(sig, info)) {
		errno = saved;
		return;
	}

	/*
	 * A terminal's Ctrl-C (SI_KERNEL) reached the command's process group already; a
	 * kill(1) from elsewhere (SI_USER) reached only us.
	 */
	if (pid > 0 && (!info || info->si_code != SI_KERNEL))
		kill(pid, sig);
	stops++;
	/*
	 * Feature detection has nothing to finish, and its calibration load or release (one
	 * probe pair: RCU grace periods) is no reason to wait: out now, as main would say.
	 */
	if (stops == 1 && phase == STOP_CALIBRATING) {
		stop_sig = sig;
		stop_flag = 1;
		hand_off(sig, true);
	}
	if (stops == 1) {
		stop_sig = sig;
		stop_tty = info && info->si_code == SI_KERNEL;
		first_sender = info && info->si_code == SI_USER ? info->si_pid : 0;
		if (first_sender && clock_gettime(CLOCK_MONOTONIC, &first_at))
			first_sender = 0;
		stop_flag = 1;
		/* samples already received are still finished, unless asked again */
		if (phase != STOP_SAMPLING)
			hurry_flag = 1;
		errno = saved;
		return;
	}
	if (stops == 2 && phase == STOP_SAMPLING) {
		hurry_flag = 1;
		errno = saved;
		return;
	}
	if (phase != STOP_STARTING)
		hand_off(sig, false);
	/* nothing attached: as its default action, delivered when the handler returns */
	sigaction(sig, &dfl, NULL);
	raise(sig);
	errno = saved;
}

int stop__catch(void)
{
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };
	size_t i;

	/*
	 * No SA_RESTART: a blocking syscall (poll, the verifier, a sidecar read) returns EINTR
	 * and its caller looks at the flag. The others wait in the handler's mask so the
	 * first signal is the one recorded.
	 */
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(&sa.sa_mask, stop_signals[i]);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		if (sigaction(stop_signals[i], &sa, NULL))
			return -errno;
	return 0;
}

volatile sig_atomic_t *stop__flag(void)
{
	return &stop_flag;
}

bool stop__requested(void)
{
	return stop_flag != 0;
}

int stop__signal(void)
{
	return stop_flag ? stop_sig : 0;
}

bool stop__from_terminal(void)
{
	return stop_flag && stop_tty;
}

const char *stop__signal_name(void)
{
	return sig_name(stop__signal());
}

void stop__request(int sig)
{
	if (!stop_flag)
		stop_sig = sig;
	stop_flag = 1;
	if (phase != STOP_SAMPLING)
		hurry_flag = 1;
}

void stop__set_phase(enum stop_phase p)
{
	phase = p;
}

volatile sig_atomic_t *stop__hurry_flag(void)
{
	return &hurry_flag;
}

void stop__forward_to(pid_t pid)
{
	forward_pid = pid;
}

void stop__set_releaser(pid_t pid)
{
	releaser = pid;
}

void stop__hold(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(&set, stop_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

void stop__release(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

int stop__exit_status(void)
{
	int sig = stop__signal();

	return 128 + (sig > 0 && sig < 64 ? sig : SIGINT);
}
