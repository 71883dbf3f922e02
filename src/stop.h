/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The run's one stop request. SIGINT, SIGTERM and SIGHUP are caught from the start of a run,
 * before anything is attached: the first sets a flag that every slow step polls (function
 * discovery, the verification of -F clones, attaching, the poll loop) and records which
 * signal it was. What the next ones do depends on the phase (stop__set_phase()):
 *
 *   STOP_STARTING  nothing attached: a second signal kills, as its default action;
 *   STOP_CALIBRATING  feature detection: nothing to finish, so the first signal exits at
 *                  once, with main's "Interrupted" line, leaving the calibration probes'
 *                  release to a child as below;
 *   STOP_ATTACHED  links attached: a second signal exits at once and leaves their release
 *                  to a child in a session of its own (the kernel's release takes as long
 *                  either way; a killed process would keep the terminal waiting for it);
 *   STOP_SAMPLING  samples flow: the first stops without hurrying, so the samples already
 *                  received are finished (symbolized in full); the second hurries (the hurry
 *                  flag: cut lookups short), the third exits as in STOP_ATTACHED.
 *                  A first signal from a terminal (stop__from_terminal()) also has the
 *                  detach that follows wait for its releasing child only briefly
 *                  (trace_detach.h), which then goes on alone.
 *
 * A stop during attach, or one that came before tracing began, hands what was attached to
 * that child too (stop__hand_off()): nothing is left to finish.
 *
 * Modules never include this: they take the flags as `const volatile sig_atomic_t *` in
 * their opts (NULL: never stopped), so they stay usable without signals and in tests.
 */
#ifndef RETSNOOP_STOP_H
#define RETSNOOP_STOP_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

/* Install the handlers (once, early in main). 0 or a negative errno. */
int stop__catch(void);

/* Non-zero once a stop was asked for; what slow steps poll. */
volatile sig_atomic_t *stop__flag(void);
bool stop__requested(void);
/* The signal that asked for the stop; 0 if none, or if code asked (stop__request()). */
int stop__signal(void);
/*
 * The signal that asked came from a terminal (Ctrl-C, a hang-up: si_code SI_KERNEL), not
 * from a program (kill(1), timeout(1), a service manager), whose wait for our exit may
 * mean "nothing is left attached".
 */
bool stop__from_terminal(void);
/* "SIGINT", "SIGTERM", "SIGHUP" for the signal that asked; "a request" when code asked. */
const char *stop__signal_name(void);
/* Ask for a stop from code (a child that exited, say): as a signal would, @sig 0 or one. */
void stop__request(int sig);

/*
 * While @pid > 0, the handler first sends the signal it got to @pid (the traced command of
 * `-- CMD`), then sets the flag; not a terminal's own signal (Ctrl-C: si_code SI_KERNEL),
 * which reached the command's process group already. 0: no one.
 */
void stop__forward_to(pid_t pid);

/*
 * While @pid > 0, a child (detach_child.h) is releasing what was attached: a signal that
 * would hand the release off (STOP_ATTACHED) names that child and exits, forking no other.
 * 0: none.
 */
void stop__set_releaser(pid_t pid);

enum stop_phase {
	STOP_STARTING,
	STOP_CALIBRATING,
	STOP_ATTACHED,
	STOP_SAMPLING,
};

/* Where the run is (see above); STOP_STARTING until told. */
void stop__set_phase(enum stop_phase p);

/*
 * Set with the stop flag outside STOP_SAMPLING, by the second signal in it: whatever
 * finishes work already received (symbolization) should cut it short.
 */
volatile sig_atomic_t *stop__hurry_flag(void);

/*
 * Hold the three signals off (stop__hold) around "no stop asked yet, so say we are ready",
 * then let them in again (stop__release): a signal in between is delivered after the line,
 * never lost, and no ready line is ever printed after a stop was asked for.
 */
void stop__hold(sigset_t *old);
void stop__release(const sigset_t *old);

/*
 * The exit status of a run the stop ended before tracing began: 128 + the signal, as a
 * shell reports a process killed by it (130 for SIGINT); 130 when code asked.
 */
int stop__exit_status(void);

/*
 * A stop during attach: rather than wait for the kernel to release what was attached (one
 * grace period a kprobe, seconds for a few hundred), leave it to a child in a session of its
 * own, as a second signal does. The child keeps a reference to every fd until this process
 * is gone, then closes them: this process's own closes are quick and it exits at once. The
 * child's pid, or -1 (nothing forked: the release stays ours).
 */
pid_t stop__hand_off(void);

#endif
