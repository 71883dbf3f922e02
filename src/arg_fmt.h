/* SPDX-License-Identifier: BSD-2-Clause */
/* How captured arguments are laid out (-C args.fmt-mode). */
#ifndef RETSNOOP_ARG_FMT_H
#define RETSNOOP_ARG_FMT_H

enum args_fmt_mode {
	ARGS_FMT_COMPACT,	/* all on the row: name=value ... */
	ARGS_FMT_MULTILINE,	/* one "› name = value" line each, values on one line */
	ARGS_FMT_VERBOSE,	/* one "› name = value" each, structs spread over lines */
};

#endif
