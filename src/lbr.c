// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/libbpf.h>
#include "lbr.h"

static const struct {
	const char *name;
	__u64 flag;
} lbr_aliases[] = {
	{ "any", PERF_SAMPLE_BRANCH_ANY },
	{ "any_call", PERF_SAMPLE_BRANCH_ANY_CALL },
	{ "any_return", PERF_SAMPLE_BRANCH_ANY_RETURN },
	{ "ind_call", PERF_SAMPLE_BRANCH_IND_CALL },
	{ "abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX },
	{ "in_tx", PERF_SAMPLE_BRANCH_IN_TX },
	{ "no_tx", PERF_SAMPLE_BRANCH_NO_TX },
	{ "cond", PERF_SAMPLE_BRANCH_COND },
	{ "call_stack", PERF_SAMPLE_BRANCH_CALL_STACK },
	{ "ind_jump", PERF_SAMPLE_BRANCH_IND_JUMP },
	{ "call", PERF_SAMPLE_BRANCH_CALL },
};

int lbr__parse_spec(const char *spec, __u64 *flags)
{
	unsigned long long v;
	char *end;
	size_t i;

	for (i = 0; i < sizeof(lbr_aliases) / sizeof(lbr_aliases[0]); i++) {
		if (strcmp(spec, lbr_aliases[i].name) == 0) {
			*flags = lbr_aliases[i].flag;
			return 0;
		}
	}
	errno = 0;
	v = strtoull(spec, &end, 0);
	if (!*spec || *end || errno)
		return -EINVAL;
	*flags = v;
	return 0;
}

const char *lbr__aliases(void)
{
	return "any, any_call, any_return (default), cond, call, ind_call, ind_jump, "
	       "call_stack, abort_tx, in_tx, no_tx";
}

struct lbr {
	int *fds;
	int cnt;
};

struct lbr *lbr__open(__u64 flags)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.sample_type = PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type = (flags ?: LBR_DEFAULT_FLAGS) | LBR_KERNEL_FLAG,
	};
	struct lbr *lbr = calloc(1, sizeof(*lbr));
	int ncpu = libbpf_num_possible_cpus(), cpu, err;

	if (!lbr || ncpu <= 0) {
		err = ncpu <= 0 ? -ncpu : ENOMEM;
		goto err;
	}
	lbr->fds = calloc(ncpu, sizeof(int));
	if (!lbr->fds) {
		err = ENOMEM;
		goto err;
	}
	for (cpu = 0; cpu < ncpu; cpu++) {
		int fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		/* offline CPUs can't have events; they also never run our probes */
		if (fd < 0 && errno == ENODEV)
			continue;
		if (fd < 0) {
			err = errno;
			goto err;
		}
		lbr->fds[lbr->cnt++] = fd;
	}
	return lbr;
err:
	lbr__close(lbr);
	errno = err;
	return NULL;
}

void lbr__close(struct lbr *lbr)
{
	int i;

	if (!lbr)
		return;
	for (i = 0; i < lbr->cnt; i++)
		close(lbr->fds[i]);
	free(lbr->fds);
	free(lbr);
}
