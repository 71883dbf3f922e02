// SPDX-License-Identifier: BSD-2-Clause
/* retsnoop entry point (placeholder until the tracer core lands: --version/--usage only). */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include "version.h"

static const char usage_doc[] =
	"retsnoop: mass-trace kernel function calls and report error-returning call stacks.\n"
	"Usage: retsnoop [-v] [-e GLOB]* [-a GLOB]* [-T] [-B] [-A] [-J PROBE]*\n";

enum { OPT_USAGE = 0x1000 };

static const struct argp_option opts[] = {
	{ "version", 'V', NULL, 0, "Print version and exit", 0 },
	{ "usage", OPT_USAGE, NULL, 0, "Print a short usage message", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'V':
		printf("retsnoop %s\n", RETSNOOP_VERSION);
		exit(0);
	case OPT_USAGE:
		fputs(usage_doc, stdout);
		exit(0);
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = usage_doc };
	int err;

	err = argp_parse(&argp, argc, argv, ARGP_NO_HELP, NULL, NULL);
	if (err)
		return 1;
	fprintf(stderr, "retsnoop: tracing is not implemented yet; try --version or --usage\n");
	return 1;
}
