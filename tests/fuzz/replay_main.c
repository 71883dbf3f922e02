// SPDX-License-Identifier: BSD-2-Clause
/*
 * Plain driver for one fuzz target, run by make test-unit: every crash input kept in
 * tests/fuzz/regressions/<target>/ and every seed in tests/fuzz/corpus/<target>/ goes through
 * LLVMFuzzerTestOneInput() once, under ASan/UBSan, without libFuzzer. FUZZ_NAME is the target
 * (set by tests/fuzz/fuzz.mk); FUZZ_DIR overrides tests/fuzz.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sanitizer/common_interface_defs.h>
#include "unit.h"
#include "fuzz.h"

/* Targets that need one-time set-up define it; most don't. */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static char current[1024];

/*
 * UBSan reports end in a plain exit that skips the death callback below; make them abort
 * (caught by on_abort) and show where they happened.
 */
const char *__ubsan_default_options(void)
{
	return "abort_on_error=1:print_stacktrace=1";
}

/* A sanitizer report (or a FUZZ_CHECK abort) names the stack, not the input: name it. */
static void on_death(void)
{
	fprintf(stderr, "fuzz replay (%s): crashing input: %s\n", FUZZ_NAME, current);
}

static void on_abort(int sig)
{
	on_death();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* An input that takes this long is a hang (libFuzzer's -timeout in tests/fuzz/run.sh is 10). */
#define INPUT_TIMEOUT_S 10

static void on_alarm(int sig)
{
	fprintf(stderr, "fuzz replay (%s): input ran for over %d s\n", FUZZ_NAME, INPUT_TIMEOUT_S);
	abort();
}

static int read_all(const char *path, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "re");
	struct stat st;
	int err = 0;

	if (!f)
		return -errno;
	if (fstat(fileno(f), &st)) {
		err = -errno;
		goto out;
	}
	*size = st.st_size;
	/* an exact-size heap copy, so ASan sees reads past the end of the input */
	*data = malloc(*size ? *size : 1);
	if (!*data)
		err = -ENOMEM;
	else if (*size && fread(*data, *size, 1, f) != 1)
		err = -EIO;
out:
	fclose(f);
	return err;
}

/* Feed every regular file of @dir (in name order); the count, or -errno. */
static int replay_dir(const char *dir)
{
	struct dirent **names;
	int n, i, cnt = 0, err = 0;

	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		uint8_t *data = NULL;
		size_t size = 0;
		struct stat st;

		snprintf(current, sizeof(current), "%s/%s", dir, names[i]->d_name);
		if (stat(current, &st) || !S_ISREG(st.st_mode))
			continue;
		err = read_all(current, &data, &size);
		if (err) {
			print_error("%s: %s\n", current, strerror(-err));
			break;
		}
		alarm(INPUT_TIMEOUT_S);
		LLVMFuzzerTestOneInput(data, size);
		alarm(0);
		free(data);
		cnt++;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err ?: cnt;
}

static const char *fuzz_dir(void)
{
	return getenv("FUZZ_DIR") ?: "tests/fuzz";
}

static void regressions_dir(char *dir, size_t sz)
{
	snprintf(dir, sz, "%s/regressions/%s", fuzz_dir(), FUZZ_NAME);
}

/* Registered only where crash inputs were kept (main()): an empty directory fails. */
static void test_regressions(void **state)
{
	char dir[512];

	regressions_dir(dir, sizeof(dir));
	assert_true(replay_dir(dir) > 0);
}

static void test_corpus(void **state)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/corpus/%s", fuzz_dir(), FUZZ_NAME);
	/* a missing or empty seed corpus is a broken checkout, not a pass */
	assert_true(replay_dir(dir) > 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_regressions),
	};
	char dir[512];
	struct stat st;
	size_t cnt = 2;

	/*
	 * A target whose fuzzing never found anything has no regressions directory: that is
	 * nothing to replay, not a skipped test (make test would count it as one).
	 */
	regressions_dir(dir, sizeof(dir));
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		printf("fuzz replay %s: no crash inputs kept (%s absent), seeds only\n",
		       FUZZ_NAME, dir);
		cnt = 1;
	}

	__sanitizer_set_death_callback(on_death);
	signal(SIGABRT, on_abort);
	signal(SIGALRM, on_alarm);
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	return _cmocka_run_group_tests("fuzz replay " FUZZ_NAME, tests, cnt, NULL, NULL);
}
