// SPDX-License-Identifier: BSD-2-Clause
/*
 * Capture files (src/capture.c): replay__open() of any file loads it or refuses it, and a
 * loaded one feeds its records through the session store into every renderer the file's
 * views ask for, as `retsnoop --replay` would. Seeds: the golden captures.
 */
#include <errno.h>
#include "fuzz.h"
#include "capture.h"

static int on_sample(void *ctx, const struct sample *s)
{
	int err;

	fuzz_sink_reset();
	err = render_text__sample(fuzz_sink(), s, ctx);
	fflush(fuzz_sink());
	return err;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	setenv("TZ", "UTC", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct render_opts o;
	struct session_store_opts so = { .sz = sizeof(so), .on_sample = on_sample, .ctx = &o };
	struct session_store *st;
	struct replay *r;
	int err;

	r = replay__open(fuzz_file(0, data, size));
	if (!r) {
		FUZZ_CHECK(errno == EINVAL || errno == ENOMEM);
		return 0;
	}
	replay__render_opts(r, &o);
	st = session_store__new(&so);
	if (!st)
		abort();
	err = replay__feed(r, st);
	FUZZ_CHECK(!err || err == -ENOMEM);
	session_store__free(st);
	replay__free(r);
	return 0;
}
