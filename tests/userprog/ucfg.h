/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef UCFG_H
#define UCFG_H

int open_config(const char *path);

#endif
