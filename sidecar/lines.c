// SPDX-License-Identifier: BSD-2-Clause
/* DWARF line-program decoder (DWARF 2-5, little-endian, one op per instruction). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>

#include "dwarf_read.h"
#include "lines.h"

/* Bounds-checked reader; any overrun sets 'bad' and yields zeros. */
struct rd {
	const unsigned char *p, *end;
	bool bad;
};

DEFINE_DWARF_READERS(rd, struct rd)

static const char *rd_cstr(struct rd *r)
{
	const unsigned char *s = r->p;

	while (r->p < r->end && *r->p)
		r->p++;
	if (r->p >= r->end) {
		r->bad = true;
		return NULL;
	}
	r->p++;
	return (const char *)s;
}

static const char *sect_str(const unsigned char *sec, size_t sz, uint64_t off)
{
	if (!sec || off >= sz || !memchr(sec + off, 0, sz - off))
		return NULL;
	return (const char *)sec + off;
}

/* One DWARF 5 entry-format attribute: string for paths, number for indexes, else skipped. */
static int rd_form(struct rd *r, const struct line_sects *sec, uint64_t form, int offsz,
		   const char **str, uint64_t *num)
{
	*str = NULL;
	*num = 0;
	switch (form) {
	case DW_FORM_string:
		*str = rd_cstr(r);
		break;
	case DW_FORM_line_strp:
		*str = sect_str(sec->line_str, sec->line_str_sz, rd_u(r, offsz));
		break;
	case DW_FORM_strp:
		*str = sect_str(sec->str, sec->str_sz, rd_u(r, offsz));
		break;
	case DW_FORM_udata:
		*num = rd_uleb(r);
		break;
	case DW_FORM_data1:
		*num = rd_u(r, 1);
		break;
	case DW_FORM_data2:
		*num = rd_u(r, 2);
		break;
	case DW_FORM_data4:
		*num = rd_u(r, 4);
		break;
	case DW_FORM_data8:
		*num = rd_u(r, 8);
		break;
	case DW_FORM_data16:
		rd_u(r, 8);
		rd_u(r, 8);
		break;
	case DW_FORM_block:
		*num = rd_uleb(r);
		if ((uint64_t)(r->end - r->p) < *num)
			return -EINVAL;
		r->p += *num;
		*num = 0;
		break;
	default:
		return -ENOTSUP;	/* strx needs .debug_str_offsets: leave it to libdw */
	}
	return r->bad ? -EINVAL : 0;
}

/* DWARF 5 directory or file table into names[] (+ dir indexes). */
static int rd_v5_table(struct rd *r, const struct line_sects *sec, int offsz, const char ***names,
		       uint32_t **dirs, size_t *cnt)
{
	uint64_t fmt[16][2], n, i;
	int nfmt, k, err;

	nfmt = rd_u(r, 1);
	if (nfmt > 16)
		return -ENOTSUP;
	for (k = 0; k < nfmt; k++) {
		fmt[k][0] = rd_uleb(r);
		fmt[k][1] = rd_uleb(r);
	}
	n = rd_uleb(r);
	if (r->bad || n > (uint64_t)(r->end - r->p))
		return -EINVAL;
	*names = calloc(n ? n : 1, sizeof(**names));
	if (dirs)
		*dirs = calloc(n ? n : 1, sizeof(**dirs));
	if (!*names || (dirs && !*dirs))
		return -ENOMEM;
	*cnt = n;
	for (i = 0; i < n; i++) {
		for (k = 0; k < nfmt; k++) {
			const char *str;
			uint64_t num;

			err = rd_form(r, sec, fmt[k][1], offsz, &str, &num);
			if (err)
				return err;
			if (fmt[k][0] == DW_LNCT_path)
				(*names)[i] = str;
			else if (fmt[k][0] == DW_LNCT_directory_index && dirs)
				(*dirs)[i] = num;
		}
	}
	return 0;
}

static inline int add_row(struct line_table *lt, size_t *cap, uint64_t addr, uint64_t file,
			  uint64_t line, uint64_t col, bool end)
{
	struct line_row row = {
		.addr = addr,
		.line = line > UINT32_MAX ? UINT32_MAX : line,
		.col = col > 0xffff ? 0xffff : col,
		.file = end ? LINE_END : file,
	};

	if (!end && file >= LINE_END)
		return -ENOTSUP;
	/*
	 * Lookups take the last row at or below an address, so a row that repeats the
	 * previous location adds nothing, and a row at the previous row's address hides it.
	 */
	if (lt->nrows) {
		struct line_row *prev = &lt->rows[lt->nrows - 1];

		if (!end && prev->file == row.file && prev->line == row.line && prev->col == row.col)
			return 0;
		if (prev->addr == addr)
			lt->nrows--;
	}
	if (lt->nrows == *cap) {
		size_t ncap = *cap ? *cap * 2 : 1024;
		struct line_row *nr = realloc(lt->rows, ncap * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		lt->rows = nr;
		*cap = ncap;
	}
	lt->rows[lt->nrows++] = row;
	return 0;
}

struct seq {
	uint64_t addr;
	size_t start, n;
};

static int cmp_seq(const void *a, const void *b)
{
	const struct seq *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->start < y->start ? -1 : 1;
}

/*
 * Rows are ordered within a sequence; order the sequences by start address so the whole
 * table is sorted and, at equal addresses, the last row of the program wins. A sequence's
 * end marker then sits before a next sequence starting at the same address.
 */
static int sort_sequences(struct line_table *lt)
{
	struct seq *seqs = NULL;
	struct line_row *rows;
	size_t i, nseq = 0, cap = 0, start = 0, k = 0;

	for (i = 0; i < lt->nrows; i++) {
		if (lt->rows[i].file != LINE_END && i + 1 != lt->nrows)
			continue;
		if (nseq == cap) {
			struct seq *ns;

			cap = cap ? cap * 2 : 64;
			ns = realloc(seqs, cap * sizeof(*ns));
			if (!ns) {
				free(seqs);
				return -ENOMEM;
			}
			seqs = ns;
		}
		seqs[nseq++] = (struct seq){ lt->rows[start].addr, start, i + 1 - start };
		start = i + 1;
	}
	rows = malloc(lt->nrows * sizeof(*rows));
	if (!rows) {
		free(seqs);
		return -ENOMEM;
	}
	qsort(seqs, nseq, sizeof(*seqs), cmp_seq);
	for (i = 0; i < nseq; i++) {
		memcpy(rows + k, lt->rows + seqs[i].start, seqs[i].n * sizeof(*rows));
		k += seqs[i].n;
	}
	free(seqs);
	free(lt->rows);
	lt->rows = rows;
	return 0;
}

int line_table__load(struct line_table *lt, const struct line_sects *sec, uint64_t off)
{
	struct rd r, hr;
	uint64_t len, hlen, addr = 0, file = 1, line = 1, col = 0;
	unsigned int min_inst, max_ops = 1, line_range, opcode_base, i;
	const unsigned char *std_len;
	int offsz = 4, addrsz = 8, line_base, err;
	/* special opcodes: address and line advance, without a division per row */
	struct { uint32_t addr; int32_t line; } spec[256];
	size_t cap = 0;
	bool sorted = true;

	memset(lt, 0, sizeof(*lt));
	if (!sec->line || off >= sec->line_sz)
		return -ENOTSUP;
	r = (struct rd){ sec->line + off, sec->line + sec->line_sz, false };
	len = rd_u(&r, 4);
	if (len == 0xffffffff) {
		len = rd_u(&r, 8);
		offsz = 8;
	}
	if (r.bad || len > (uint64_t)(r.end - r.p))
		return -EINVAL;
	r.end = r.p + len;
	lt->version = rd_u(&r, 2);
	if (lt->version < 2 || lt->version > 5)
		return -ENOTSUP;
	if (lt->version >= 5) {
		addrsz = rd_u(&r, 1);
		rd_u(&r, 1);	/* segment selector size */
		if (addrsz != 4 && addrsz != 8)
			return -ENOTSUP;
	}
	hlen = rd_u(&r, offsz);
	if (r.bad || hlen > (uint64_t)(r.end - r.p))
		return -EINVAL;
	hr = (struct rd){ r.p, r.p + hlen, false };
	r.p += hlen;	/* the program follows the header */

	min_inst = rd_u(&hr, 1);
	if (lt->version >= 4)
		max_ops = rd_u(&hr, 1);
	rd_u(&hr, 1);	/* default_is_stmt: every row counts for lookups */
	line_base = (signed char)rd_u(&hr, 1);
	line_range = rd_u(&hr, 1);
	opcode_base = rd_u(&hr, 1);
	if (hr.bad || !line_range || !opcode_base || max_ops != 1)
		return -ENOTSUP;	/* VLIW op_index: not worth it here */
	std_len = hr.p;
	if ((unsigned int)(hr.end - hr.p) < opcode_base - 1)
		return -EINVAL;
	hr.p += opcode_base - 1;

	if (lt->version >= 5) {
		err = rd_v5_table(&hr, sec, offsz, &lt->dirs, NULL, &lt->ndirs);
		if (!err)
			err = rd_v5_table(&hr, sec, offsz, &lt->file_names, &lt->file_dirs, &lt->nfiles);
		if (err)
			goto cleanup;
	} else {
		/* index 0 is the compilation directory (dirs) / unused (files) */
		size_t dcap = 8, fcap = 8;
		const char *s;

		lt->dirs = calloc(dcap, sizeof(*lt->dirs));
		lt->file_names = calloc(fcap, sizeof(*lt->file_names));
		lt->file_dirs = calloc(fcap, sizeof(*lt->file_dirs));
		if (!lt->dirs || !lt->file_names || !lt->file_dirs) {
			err = -ENOMEM;
			goto cleanup;
		}
		lt->ndirs = lt->nfiles = 1;
		while ((s = rd_cstr(&hr)) && *s) {
			if (lt->ndirs == dcap) {
				const char **nd = realloc(lt->dirs, 2 * dcap * sizeof(*nd));

				if (!nd) {
					err = -ENOMEM;
					goto cleanup;
				}
				lt->dirs = nd;
				dcap *= 2;
			}
			lt->dirs[lt->ndirs++] = s;
		}
		while ((s = rd_cstr(&hr)) && *s) {
			if (lt->nfiles == fcap) {
				const char **nf = realloc(lt->file_names, 2 * fcap * sizeof(*nf));
				uint32_t *nd = nf ? realloc(lt->file_dirs, 2 * fcap * sizeof(*nd)) : NULL;

				if (nf)
					lt->file_names = nf;
				if (!nd) {
					err = -ENOMEM;
					goto cleanup;
				}
				lt->file_dirs = nd;
				fcap *= 2;
			}
			lt->file_names[lt->nfiles] = s;
			lt->file_dirs[lt->nfiles++] = rd_uleb(&hr);
			rd_uleb(&hr);	/* mtime */
			rd_uleb(&hr);	/* length */
		}
	}
	if (hr.bad) {
		err = -EINVAL;
		goto cleanup;
	}
	for (i = opcode_base; i < 256; i++) {
		spec[i].addr = (i - opcode_base) / line_range * min_inst;
		spec[i].line = line_base + (int)((i - opcode_base) % line_range);
	}

	while (r.p < r.end && !r.bad) {
		unsigned int op = *r.p++;

		if (op >= opcode_base) {
			addr += spec[op].addr;
			line += spec[op].line;
			err = add_row(lt, &cap, addr, file, line, col, false);
			if (err)
				goto cleanup;
			continue;
		}
		switch (op) {
		case 0: {
			uint64_t elen = rd_uleb(&r);
			const unsigned char *next;
			unsigned int sub;

			if (r.bad || !elen || elen > (uint64_t)(r.end - r.p)) {
				err = -EINVAL;
				goto cleanup;
			}
			next = r.p + elen;
			sub = rd_u(&r, 1);
			if (sub == DW_LNE_end_sequence) {
				err = add_row(lt, &cap, addr, file, line, col, true);
				if (err)
					goto cleanup;
				addr = 0;
				file = 1;
				line = 1;
				col = 0;
			} else if (sub == DW_LNE_set_address) {
				addr = rd_u(&r, elen - 1 > 8 ? 8 : elen - 1);
			}
			r.p = next;
			break;
		}
		case DW_LNS_copy:
			err = add_row(lt, &cap, addr, file, line, col, false);
			if (err)
				goto cleanup;
			break;
		case DW_LNS_advance_pc:
			addr += rd_uleb(&r) * min_inst;
			break;
		case DW_LNS_advance_line:
			line += rd_sleb(&r);
			break;
		case DW_LNS_set_file:
			file = rd_uleb(&r);
			break;
		case DW_LNS_set_column:
			col = rd_uleb(&r);
			break;
		case DW_LNS_const_add_pc:
			addr += (uint64_t)((255 - opcode_base) / line_range) * min_inst;
			break;
		case DW_LNS_fixed_advance_pc:
			addr += rd_u(&r, 2);
			break;
		case DW_LNS_negate_stmt:
		case DW_LNS_set_basic_block:
		case DW_LNS_set_prologue_end:
		case DW_LNS_set_epilogue_begin:
			break;
		default:
			/* set_isa and unknown standard opcodes: skip their ULEB operands */
			for (i = 0; i < std_len[op - 1]; i++)
				rd_uleb(&r);
			break;
		}
	}
	if (r.bad) {
		err = -EINVAL;
		goto cleanup;
	}
	for (i = 1; i < lt->nrows && sorted; i++)
		sorted = lt->rows[i - 1].addr <= lt->rows[i].addr;
	if (!sorted) {
		err = sort_sequences(lt);
		if (err)
			goto cleanup;
	}
	return 0;

cleanup:
	line_table__free(lt);
	return err;
}

void line_table__free(struct line_table *lt)
{
	free(lt->rows);
	free(lt->dirs);
	free(lt->file_names);
	free(lt->file_dirs);
	memset(lt, 0, sizeof(*lt));
}

const struct line_row *line_table__find(const struct line_table *lt, uint64_t addr)
{
	size_t lo = 0, hi = lt->nrows;
	const struct line_row *row;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lt->rows[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	row = &lt->rows[lo - 1];
	return row->file == LINE_END ? NULL : row;
}

char *line_table__file_path(const struct line_table *lt, uint64_t idx, const char *comp_dir)
{
	const char *name, *dir = NULL;
	uint64_t di;
	char *out;

	if (idx >= lt->nfiles || (lt->version < 5 && idx == 0))
		return NULL;
	name = lt->file_names[idx];
	if (!name)
		return NULL;
	if (name[0] == '/')
		return strdup(name);
	di = lt->file_dirs[idx];
	/* directory 0 is the compilation directory (DWARF 5 repeats it in the table) */
	if (di == 0 || di >= lt->ndirs)
		dir = comp_dir;
	else
		dir = lt->dirs[di];
	if (dir && dir[0] != '/' && di != 0 && comp_dir && *comp_dir) {
		if (asprintf(&out, "%s/%s/%s", comp_dir, dir, name) < 0)
			return NULL;
		return out;
	}
	if (!dir || !*dir)
		return strdup(name);
	if (asprintf(&out, "%s/%s", dir, name) < 0)
		return NULL;
	return out;
}
