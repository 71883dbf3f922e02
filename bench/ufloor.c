// SPDX-License-Identifier: BSD-2-Clause
/*
 * ufloor -R: attach only an empty program to the sys_exit raw tracepoint (what every
 * syscall on the machine pays while retsnoop traces user functions: bench/usyscall.sh).
 * ufloor -M|-K|-S|-E IMAGE GLOB: attach an empty uprobe entry+return pair (ufloor.bpf.c) to
 * every function of IMAGE whose name matches GLOB, the way retsnoop would (-M one
 * uprobe.multi link per direction, -K one uprobe and one uretprobe per function, -S one
 * uprobe session link whose program runs at entry and return, -E the same whose entry
 * skips the return; by file offset from retsnoop's own ELF reader), say how long
 * attaching took, wait for SIGINT/SIGTERM,
 * detach and say how long that took. The floor of the uprobe benchmarks (bench/uprobe.sh).
 *
 * Output (stdout, one line each):
 *   ufloor: mode=M funcs=N attach_ms=X
 *   ufloor: ready
 *   ufloor: detach_ms=D
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "elf_funcs.h"
#include "glob.h"
#include "uprobe_link.h"
#include "ufloor.skel.h"

static volatile sig_atomic_t stop;

static void on_sig(int sig)
{
	stop = 1;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ufloor -R */
static int sys_exit_floor(void)
{
	struct ufloor_bpf *skel = ufloor_bpf__open();
	struct bpf_program *p;
	struct bpf_link *l;

	if (!skel)
		return 1;
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == skel->progs.ufloor_sys_exit);
	if (ufloor_bpf__load(skel))
		return 1;
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	l = bpf_program__attach(skel->progs.ufloor_sys_exit);
	if (!l) {
		fprintf(stderr, "ufloor: sys_exit: %s\n", strerror(errno));
		return 1;
	}
	printf("ufloor: mode=R\nufloor: ready\n");
	fflush(stdout);
	while (!stop)
		pause();
	bpf_link__destroy(l);
	ufloor_bpf__destroy(skel);
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_link **links = NULL;
	int sess_fd = -1;
	struct ufloor_bpf *skel;
	struct elf_funcs *e;
	unsigned long *offs;
	size_t i, n = 0, nl = 0;
	bool multi, session;
	long t0;

	if (argc == 2 && !strcmp(argv[1], "-R"))
		return sys_exit_floor();
	if (argc != 4 || (strcmp(argv[1], "-M") && strcmp(argv[1], "-K") &&
			  strcmp(argv[1], "-S") && strcmp(argv[1], "-E"))) {
		fprintf(stderr, "usage: ufloor -R | -M|-K|-S|-E IMAGE GLOB\n");
		return 2;
	}
	multi = strcmp(argv[1], "-M") == 0;
	session = strcmp(argv[1], "-S") == 0 || strcmp(argv[1], "-E") == 0;
	e = elf_funcs__open(argv[2], NULL);
	if (!e) {
		fprintf(stderr, "ufloor: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	offs = calloc(elf_funcs__func_cnt(e) + 1, sizeof(*offs));
	links = calloc(2 * elf_funcs__func_cnt(e) + 2, sizeof(*links));
	for (i = 0; i < elf_funcs__func_cnt(e); i++)
		if (glob__match(argv[3], elf_funcs__func(e, i)->name))
			offs[n++] = elf_funcs__func(e, i)->offset;
	skel = ufloor_bpf__open();
	if (!skel)
		return 1;
	bpf_program__set_autoload(skel->progs.ufloor_mentry, multi);
	bpf_program__set_autoload(skel->progs.ufloor_mexit, multi);
	bpf_program__set_autoload(skel->progs.ufloor_entry, !multi && !session);
	bpf_program__set_autoload(skel->progs.ufloor_exit, !multi && !session);
	bpf_program__set_autoload(skel->progs.ufloor_session, session);
	bpf_program__set_autoload(skel->progs.ufloor_sys_exit, false);
	bpf_program__set_expected_attach_type(skel->progs.ufloor_session,
					      UPROBE_SESSION_ATTACH_TYPE);
	skel->rodata->skip_return = strcmp(argv[1], "-E") == 0;
	if (ufloor_bpf__load(skel))
		return 1;
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	t0 = now_ms();
	if (session) {
		struct uprobe_link_spec spec = { .path = argv[2], .offsets = offs, .cnt = n };

		sess_fd = uprobe_link__create(bpf_program__fd(skel->progs.ufloor_session),
					      UPROBE_SESSION_ATTACH_TYPE, &spec);
		if (sess_fd < 0) {
			fprintf(stderr, "ufloor: session link: %s\n", strerror(-sess_fd));
			return 1;
		}
	} else if (multi) {
		LIBBPF_OPTS(bpf_uprobe_multi_opts, mo, .offsets = offs, .cnt = n);

		links[nl++] = bpf_program__attach_uprobe_multi(skel->progs.ufloor_mentry, -1,
							       argv[2], NULL, &mo);
		mo.retprobe = true;
		links[nl++] = bpf_program__attach_uprobe_multi(skel->progs.ufloor_mexit, -1,
							       argv[2], NULL, &mo);
	} else {
		for (i = 0; i < n; i++) {
			LIBBPF_OPTS(bpf_uprobe_opts, uo);

			links[nl++] = bpf_program__attach_uprobe_opts(skel->progs.ufloor_entry, -1,
								      argv[2], offs[i], &uo);
			uo.retprobe = true;
			links[nl++] = bpf_program__attach_uprobe_opts(skel->progs.ufloor_exit, -1,
								      argv[2], offs[i], &uo);
		}
	}
	for (i = 0; i < nl; i++) {
		if (!links[i]) {
			fprintf(stderr, "ufloor: attach failed: %s\n", strerror(errno));
			return 1;
		}
	}
	printf("ufloor: mode=%s funcs=%zu attach_ms=%ld\nufloor: ready\n", argv[1] + 1, n,
	       now_ms() - t0);
	fflush(stdout);
	while (!stop)
		pause();
	t0 = now_ms();
	for (i = nl; i > 0; i--)
		bpf_link__destroy(links[i - 1]);
	if (sess_fd >= 0)
		close(sess_fd);
	printf("ufloor: detach_ms=%ld\n", now_ms() - t0);
	ufloor_bpf__destroy(skel);
	elf_funcs__free(e);
	free(offs);
	free(links);
	return 0;
}
