// SPDX-License-Identifier: BSD-2-Clause
/*
 * Capture files (src/capture.c): replay__open() of any file loads it or refuses it, and a
 * loaded one feeds its records through the session store into every renderer the file's
 * views ask for, as `retsnoop --replay` would. Seeds: the golden captures.
 */
#include <errno.h>
#include "fuzz.h"
#include "capture.h"
#include "render.h"

struct ctx {
	struct sample_build_opts b;
};

static int on_session(void *c, const struct sess_recs *r)
{
	struct ctx *ctx = c;
	struct sample *s;
	int err;

	err = sample__build(r, &ctx->b, &s);
	FUZZ_CHECK(!err || err == -ENOMEM);
	if (err)
		return err;
	fuzz_sink_reset();
	err = render_text__sample(fuzz_sink(), s, &ctx->b.view);
	fflush(fuzz_sink());
	sample__free(s);
	return err;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	setenv("TZ", "UTC", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx ctx;
	struct session_store_opts so = { .sz = sizeof(so), .on_session = on_session, .ctx = &ctx };
	struct session_store *st;
	struct replay *r;
	int err;

	r = replay__open(fuzz_file(0, data, size));
	if (!r) {
		FUZZ_CHECK(errno == EINVAL || errno == ENOMEM);
		return 0;
	}
	replay__build_opts(r, &ctx.b);
	st = session_store__new(&so);
	if (!st)
		abort();
	err = replay__feed(r, st);
	FUZZ_CHECK(!err || err == -ENOMEM);
	session_store__free(st);
	replay__free(r);
	return 0;
}
