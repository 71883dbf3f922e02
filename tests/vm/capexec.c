// SPDX-License-Identifier: BSD-2-Clause
/*
 * capexec: run a command as an unprivileged user holding exactly the given capabilities
 * (as ambient capabilities, so they survive exec), for the guests' privilege checks.
 *
 *   capexec UID CAP[,CAP...] CMD [ARG...]	CAP: a name like CAP_BPF, or "none"
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static const struct { const char *name; int cap; } caps[] = {
	{ "CAP_DAC_OVERRIDE", CAP_DAC_OVERRIDE }, { "CAP_DAC_READ_SEARCH", CAP_DAC_READ_SEARCH },
	{ "CAP_NET_ADMIN", CAP_NET_ADMIN }, { "CAP_IPC_LOCK", CAP_IPC_LOCK },
	{ "CAP_SYS_PTRACE", CAP_SYS_PTRACE }, { "CAP_SYS_ADMIN", CAP_SYS_ADMIN },
	{ "CAP_SYS_RESOURCE", CAP_SYS_RESOURCE }, { "CAP_SYSLOG", CAP_SYSLOG },
	{ "CAP_PERFMON", CAP_PERFMON }, { "CAP_BPF", CAP_BPF },
};

static int cap_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		if (strcmp(caps[i].name, name) == 0)
			return caps[i].cap;
	return -1;
}

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};
	int want[64], n = 0, i;
	char *list, *tok;
	uid_t uid;

	if (argc < 4) {
		fprintf(stderr, "usage: capexec UID CAP[,CAP...]|none CMD [ARG...]\n");
		return 2;
	}
	uid = atoi(argv[1]);
	list = strdup(argv[2]);
	for (tok = strtok(list, ","); tok && n < 64; tok = strtok(NULL, ",")) {
		if (strcmp(tok, "none") == 0)
			continue;
		want[n] = cap_by_name(tok);
		if (want[n] < 0) {
			fprintf(stderr, "capexec: unknown capability '%s'\n", tok);
			return 2;
		}
		n++;
	}
	/* keep the permitted set across the uid change, then narrow everything down */
	if (prctl(PR_SET_KEEPCAPS, 1) || setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		perror("capexec: dropping root");
		return 2;
	}
	for (i = 0; i < n; i++) {
		data[want[i] / 32].effective |= 1u << (want[i] % 32);
		data[want[i] / 32].permitted |= 1u << (want[i] % 32);
		data[want[i] / 32].inheritable |= 1u << (want[i] % 32);
	}
	if (syscall(SYS_capset, &hdr, data)) {
		perror("capexec: capset");
		return 2;
	}
	for (i = 0; i < n; i++) {
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, want[i], 0, 0)) {
			perror("capexec: ambient");
			return 2;
		}
	}
	execvp(argv[3], argv + 3);
	perror("capexec: exec");
	return 127;
}
