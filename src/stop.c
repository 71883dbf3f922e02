// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include "stop.h"

static volatile sig_atomic_t stop_flag;
static volatile sig_atomic_t stop_sig;
static volatile sig_atomic_t forward_pid;

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	int saved = errno;	/* kill() may change it under the interrupted code */
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	pid_t pid = forward_pid;
	size_t i;

	/*
	 * A terminal's Ctrl-C (SI_KERNEL) reached the command's process group already; a
	 * kill(1) from elsewhere (SI_USER) reached only us.
	 */
	if (pid > 0 && (!info || info->si_code != SI_KERNEL))
		kill(pid, sig);
	if (!stop_flag) {
		stop_sig = sig;
		/* any second one kills: Ctrl-C after a SIGTERM that takes too long, say */
		for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
			sigaction(stop_signals[i], &dfl, NULL);	/* async-signal-safe */
	}
	stop_flag = 1;
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

const char *stop__signal_name(void)
{
	switch (stop__signal()) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	default: return "a request";
	}
}

void stop__request(int sig)
{
	if (!stop_flag)
		stop_sig = sig;
	stop_flag = 1;
}

void stop__forward_to(pid_t pid)
{
	forward_pid = pid;
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
