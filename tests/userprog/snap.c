// SPDX-License-Identifier: BSD-2-Clause
/*
 * snap [-w WINDOW] PATH OUT -- PROG [ARGS...]: write a real user-stack snapshot of PROG at
 * its openat(PATH) as an "unwind" request line to OUT (snap.h); fuzz seeds come from it.
 */
#include "snap.h"

int main(int argc, char **argv)
{
	size_t window = USTACK_DEFAULT_SIZE, len;
	const char *path, *out;
	char *line;
	int opt, err;
	FILE *f;

	while ((opt = getopt(argc, argv, "w:")) != -1) {
		if (opt != 'w')
			return 2;
		window = strtoul(optarg, NULL, 0);
	}
	if (argc - optind < 3 || window > USTACK_MAX_SIZE) {
		fprintf(stderr, "usage: snap [-w WINDOW] PATH OUT [--] PROG [ARGS...]\n");
		return 2;
	}
	path = argv[optind];
	out = argv[optind + 1];
	optind += 2;
	err = snap_take(path, window, argv + optind, &line, NULL);
	if (err) {
		fprintf(stderr, "snap: %s\n", strerror(-err));
		return 1;
	}
	f = fopen(out, "w");
	len = strlen(line);
	if (!f || fwrite(line, 1, len, f) != len || fputc('\n', f) == EOF || fclose(f))
		return 1;
	free(line);
	return 0;
}
