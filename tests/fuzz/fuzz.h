/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared bits of the libFuzzer targets in tests/fuzz/. Each target is one file that defines
 * LLVMFuzzerTestOneInput(); built with -fsanitize=fuzzer it is a fuzzer, linked with
 * replay_main.c (gcc, ASan/UBSan) it replays the checked-in corpus and crash inputs as part
 * of make test-unit. So nothing here may depend on clang or on libFuzzer.
 */
#ifndef RETSNOOP_TESTS_FUZZ_H
#define RETSNOOP_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * A property the code under test promises: a violation is a bug like a crash, so it aborts
 * (libFuzzer then saves the input, the replay driver fails).
 */
#define FUZZ_CHECK(cond) do {							\
	if (!(cond)) {								\
		fprintf(stderr, "%s:%d: fuzz property violated: %s\n",		\
			__FILE__, __LINE__, #cond);				\
		abort();							\
	}									\
} while (0)

/* NUL-terminated copy of the input (the parsers under test take C strings). */
static inline char *fuzz_strdup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * For code that takes a path: the input as the contents of in-memory file @slot (0..3),
 * reachable as /proc/self/fd/N. Created once, rewritten per input. Returns the path.
 */
static inline const char *fuzz_file(int slot, const void *data, size_t size)
{
	static char paths[4][64];
	static int fds[4] = { -1, -1, -1, -1 };

	if (fds[slot] < 0) {
		fds[slot] = memfd_create("fuzz-input", MFD_CLOEXEC);
		if (fds[slot] < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(paths[slot], sizeof(paths[slot]), "/proc/self/fd/%d", fds[slot]);
	}
	if (ftruncate(fds[slot], 0) ||
	    (size && pwrite(fds[slot], data, size, 0) != (ssize_t)size)) {
		perror("fuzz input file");
		abort();
	}
	return paths[slot];
}

/*
 * Renderer output goes to a sink that only counts, and a sample's text must stay within
 * FUZZ_MAX_OUTPUT: hostile records must not make retsnoop print without bound (the check
 * also fires early, before a runaway padding width costs seconds).
 */
#define FUZZ_MAX_OUTPUT (16 << 20)

static size_t fuzz_sink_bytes;

static inline ssize_t fuzz_sink_write(void *cookie, const char *buf, size_t size)
{
	fuzz_sink_bytes += size;
	FUZZ_CHECK(fuzz_sink_bytes <= FUZZ_MAX_OUTPUT);
	return size;
}

static inline FILE *fuzz_sink(void)
{
	static FILE *f;

	if (!f) {
		f = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = fuzz_sink_write });
		if (!f)
			abort();
	}
	return f;
}

/* Start counting a new sample's output. */
static inline void fuzz_sink_reset(void)
{
	fflush(fuzz_sink());
	fuzz_sink_bytes = 0;
}

/*
 * Send what the code under test prints to stderr nowhere, until fuzz_stderr_restore()
 * (sanitizer reports write to fd 2 directly and still show).
 */
static inline FILE *fuzz_stderr_quiet(void)
{
	static FILE *null;
	FILE *saved = stderr;

	if (!null)
		null = fopen("/dev/null", "we");
	if (null)
		stderr = null;
	return saved;
}

static inline void fuzz_stderr_restore(FILE *saved)
{
	stderr = saved;
}

#endif
