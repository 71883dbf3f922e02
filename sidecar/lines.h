/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A compact DWARF 2-5 line-table decoder. libdw 0.188 parses a whole CU line program into
 * large per-row objects and sorts them even to list the file names; for a vmlinux that is
 * most of the time and memory of symbolizing. This keeps 16 bytes per row instead.
 */
#ifndef __SIDECAR_LINES_H
#define __SIDECAR_LINES_H

#include <stddef.h>
#include <stdint.h>

struct line_row {
	uint64_t addr;
	uint32_t line;
	uint16_t col;
	uint16_t file;		/* LINE_END: end of a sequence, no line info from here */
};

#define LINE_END 0xffff

struct line_sects {
	const unsigned char *line, *line_str, *str;
	size_t line_sz, line_str_sz, str_sz;
	/* not for line tables: the symbolizer's own DIE scan */
	const unsigned char *info, *abbrev, *rnglists, *ranges;
	size_t info_sz, abbrev_sz, rnglists_sz, ranges_sz;
};

struct line_table {
	struct line_row *rows;	/* sorted by address; equal addresses keep program order */
	size_t nrows;
	const char **dirs;	/* into the mmapped sections (or owned copies, see own_dirs) */
	size_t ndirs;
	const char **file_names;
	uint32_t *file_dirs;
	size_t nfiles;
	int version;
};

/* Decode the line program at @off; 0 or negative errno (-ENOTSUP: let libdw do it). */
int line_table__load(struct line_table *lt, const struct line_sects *sec, uint64_t off);
void line_table__free(struct line_table *lt);

/* Row in effect at @addr, NULL if none. */
const struct line_row *line_table__find(const struct line_table *lt, uint64_t addr);

/*
 * Path of file @idx (DW_AT_call_file / row numbering of this table's version), joined with
 * its directory and @comp_dir the way libdw does; malloc()ed, NULL if @idx is invalid.
 */
char *line_table__file_path(const struct line_table *lt, uint64_t idx, const char *comp_dir);

#endif /* __SIDECAR_LINES_H */
