// SPDX-License-Identifier: BSD-2-Clause
/*
 * retsnoop-sidecar: answers symbolization requests about one ELF file, one
 * line per request on stdin, one reply per request on stdout (PROTOCOL.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>

#include "server.h"

static void usage(void)
{
	fprintf(stderr, "usage: retsnoop-sidecar [-v] ELF\n  -v  statistics on exit\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct reply_buf out = {};
	struct server *srv;
	char *line = NULL;
	int verbose = 0, opt, ret = 0;
	size_t cap = 0;
	ssize_t len;

	while ((opt = getopt(argc, argv, "v")) != -1) {
		if (opt == 'v')
			verbose++;
		else
			usage();
	}
	if (optind != argc - 1)
		usage();
	/* exec'ed from a memfd, the process would otherwise be named after the fd number */
	prctl(PR_SET_NAME, "retsnoop-sidec");

	srv = server__new(argv[optind], NULL);
	if (!srv)
		return 1;
	if (server__open_err(srv) && verbose)
		fprintf(stderr, "retsnoop-sidecar: %s: %s\n", argv[optind],
			strerror(-server__open_err(srv)));

	while (ret != 1 && (len = getline(&line, &cap, stdin)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		out.len = 0;
		ret = server__handle(srv, line, len, &out);
		if (ret < 0)
			return 1;
		/* replies go out at once: the client waits for each one (lock-step) */
		if (fwrite(out.p, 1, out.len, stdout) != out.len || fflush(stdout))
			return 1;
	}
	free(line);
	free(out.p);
	if (verbose && server__symbolizer(srv)) {
		const struct symb_stats *st = symbolizer__stats(server__symbolizer(srv));

		fprintf(stderr, "retsnoop-sidecar: %llu CUs indexed in %.1f ms, line tables %.1f ms\n",
			(unsigned long long)st->cus_indexed, st->index_ns / 1e6, st->lines_ns / 1e6);
	}
	server__free(srv);
	return 0;
}
