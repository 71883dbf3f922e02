/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared parts of the sidecar's fuzz targets (the .c files of sidecar/fuzz/). Each is a plain
 * function, fuzz_<name>(data, size); built with -DSIDECAR_LIBFUZZER it is also libFuzzer's
 * entry point, otherwise tests/sidecar/test_fuzz_replay.c runs it over the seed corpora
 * and the crash inputs kept in tests/sidecar/fuzz-regressions/. A broken reply aborts, so
 * the fuzzer reports it like a crash.
 */
#ifndef __SIDECAR_FUZZ_H
#define __SIDECAR_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"

int fuzz_request(const uint8_t *data, size_t size);
int fuzz_elf(const uint8_t *data, size_t size);
int fuzz_dwarf(const uint8_t *data, size_t size);
int fuzz_unwind(const uint8_t *data, size_t size);
int fuzz_image(const uint8_t *data, size_t size);

/*
 * Check that @out holds exactly one well-formed reply (PROTOCOL.md, "Framing") to a request
 * with verb @verb; a reply line of sym has 4 fields, of glob 3, of info and stats 2.
 * Aborts with a message if not.
 */
void fuzz_check_reply(const char *verb, const struct reply_buf *out);

/* Send @req (descriptors from @fds, may be NULL) and check the reply as @verb's. */
void fuzz_ask(struct server *srv, struct fd_queue *fds, const char *verb, const char *req);

/* Ask @srv what retsnoop asks (info, glob, sym of @addrs, stats), checking every reply. */
void fuzz_query(struct server *srv, const uint64_t *addrs, int naddrs);

/* A file holding @size bytes of @data; its /proc path in @path. Returns the fd to close. */
int fuzz_memfile(const void *data, size_t size, char *path, size_t path_sz);

#endif /* __SIDECAR_FUZZ_H */
