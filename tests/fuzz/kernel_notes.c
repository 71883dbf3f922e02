// SPDX-License-Identifier: BSD-2-Clause
/*
 * ELF notes of /sys/kernel/notes (src/kernel_image.c): the GNU build ID is found or the blob
 * is refused, never read past; a found ID is a copy of bytes inside the blob. Two ID buffer
 * sizes exercise both the fitting and the -E2BIG paths.
 */
#include <errno.h>
#include <stdbool.h>
#include "fuzz.h"
#include "kernel_image.h"

static void check(const uint8_t *data, size_t size, size_t id_sz)
{
	unsigned char *id = malloc(id_sz ? id_sz : 1);
	int n;

	if (!id)
		abort();
	n = kernel_image__notes_build_id(data, size, id, id_sz);
	FUZZ_CHECK(n >= 0 || n == -ENOENT || n == -EINVAL || n == -E2BIG);
	if (n >= 0) {
		FUZZ_CHECK((size_t)n <= id_sz && (size_t)n <= size);
		FUZZ_CHECK(!n || memmem(data, size, id, n));
	}
	free(id);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check(data, size, BUILD_ID_MAX);
	check(data, size, 4);
	return 0;
}
