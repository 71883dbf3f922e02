/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One hex digit's value, for the hand-written parsers of retsnoop and of its sidecar (a
 * separate binary that includes this header too): strtoull() would take signs, spaces and
 * a "0x" the formats they read don't have.
 */
#ifndef RETSNOOP_HEX_H
#define RETSNOOP_HEX_H

/* 0-15, or -1 for a character that is not a hex digit (either case). */
static inline int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
