// SPDX-License-Identifier: BSD-2-Clause
/* The tracer's loaded programs as kallsyms names them (prog_ksym.h). */
#include <bpf/libbpf.h>
#include "prog_ksym.h"
#include "tracer_int.h"

int tracer__for_each_prog_ksym(struct tracer *t,
			       int (*cb)(const struct prog_ksym *k, void *ctx), void *ctx)
{
	struct bpf_program *prog;
	struct prog_ksym k;
	int err;

	bpf_object__for_each_program(prog, t->skel->obj) {
		int fd = bpf_program__fd(prog);

		if (fd < 0)
			continue;	/* not loaded in this run */
		/* libbpf's program name is its BTF function's, which the kernel names it by */
		err = prog_ksym__get(fd, bpf_program__name(prog), &k);
		if (!err)
			err = cb(&k, ctx);
		if (err)
			return err;
	}
	return 0;
}
