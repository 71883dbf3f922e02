/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef RETSNOOP_VERSION_H
#define RETSNOOP_VERSION_H

#define RETSNOOP_VERSION "v0.11"

#endif
