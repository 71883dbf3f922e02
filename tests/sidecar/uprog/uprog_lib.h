/* SPDX-License-Identifier: BSD-2-Clause */
/* The test program's own shared library (tests/sidecar/test_images.c). */
#ifndef UPROG_LIB_H
#define UPROG_LIB_H

/* Report the return address into its caller, and one inside an inlined helper. */
void uprog_lib_report(void (*out)(const char *what, void *addr));

#endif
