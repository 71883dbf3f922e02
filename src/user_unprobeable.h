/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * User-space functions a return probe breaks, by name: their entry's stack slot (arm64:
 * the link register) holds no return address, or they return a second time through the
 * one they saved. The kernel puts its return trampoline's address there, and the program
 * crashes (or quietly goes wrong) when the function uses or returns through it again.
 */
#ifndef RETSNOOP_USER_UNPROBEABLE_H
#define RETSNOOP_USER_UNPROBEABLE_H

/* Why function @name can't take a return probe, or NULL when it can. */
const char *user_unprobeable__why(const char *name);

#endif
