// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "file_buf.h"
#include "ksyms.h"
#include "ksyms_int.h"

#define KSYMS_IOBUF_SZ (1 << 16)

bool ksym__is_func(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

static int cmp_str_null_first(const char *a, const char *b)
{
	if (!a || !b)
		return a ? 1 : (b ? -1 : 0);
	return strcmp(a, b);
}

/* FNV-1a: the name sort compares these first, strings only when they are equal */
static __u32 name_hash(const char *name)
{
	__u32 h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h;
}

/* A function symbol and its name's hash, while by_name is sorted. */
struct name_key {
	__u32 hash;
	const struct ksym *sym;
};

static int cmp_key_syms(const struct ksym *a, const struct ksym *b)
{
	int c;

	c = strcmp(a->name, b->name);
	if (c)
		return c;
	c = cmp_str_null_first(a->module, b->module);
	if (c)
		return c;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int cmp_by_name(const void *pa, const void *pb)
{
	const struct name_key *a = pa, *b = pb;

	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return cmp_key_syms(a->sym, b->sym);
}

static int cmp_by_addr(const void *pa, const void *pb)
{
	const struct ksym *a = *(const struct ksym **)pa, *b = *(const struct ksym **)pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	/* keep file order among aliases so results are stable */
	return a < b ? -1 : a > b;
}

/* a hex digit's value plus one; 0: not a hex digit */
static const unsigned char hex_val1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7,
	['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static int hex_digit(char c)
{
	return hex_val1[(unsigned char)c] - 1;
}

/*
 * strtoull(@p, @end, 16) for what kallsyms prints, up to 16 plain hex digits: glibc's
 * took 450 instructions a line, the largest part of reading 150k lines. Anything else
 * (blanks, a sign, "0x", more digits) goes to strtoull() itself.
 */
static __u64 parse_hex(char *p, char **end)
{
	__u64 v = 0;
	int i, d;

	if (hex_digit(p[0]) < 0 || (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')))
		return strtoull(p, end, 16);
	for (i = 0; i < 16 && (d = hex_digit(p[i])) >= 0; i++)
		v = v << 4 | d;
	if (hex_digit(p[i]) >= 0)
		return strtoull(p, end, 16);
	*end = p + i;
	return v;
}

/* Parse one "ADDR TYPE NAME[\t[MODULE]]" line in place; false if it isn't one. */
static bool parse_line(char *p, struct ksym *s)
{
	char *tok;

	memset(s, 0, sizeof(*s));
	s->addr = parse_hex(p, &tok);
	if (tok == p || (*tok != ' ' && *tok != '\t'))
		return false;	/* not a symbol line (blank or junk): ignore */
	while (*tok == ' ' || *tok == '\t')
		tok++;
	if (!tok[0] || (tok[1] != ' ' && tok[1] != '\t'))
		return false;
	s->type = tok[0];
	tok += 2;
	while (*tok == ' ' || *tok == '\t')
		tok++;
	if (!*tok)
		return false;
	s->name = tok;
	tok += strcspn(tok, " \t\n");
	if (*tok) {
		char *mod;

		*tok++ = '\0';
		mod = strchr(tok, '[');
		if (mod) {
			char *rb = strchr(++mod, ']');

			if (rb)
				*rb = '\0';
			s->module = mod;
		}
	}
	/*
	 * The end of the kernel's text, which symbolization's early table needs, is a
	 * function's end on x86 ('T') but data on arm64 ('D'): a function boundary in every
	 * table, so that the function-only ones keep it too.
	 */
	if (!s->module && !ksym__is_func(s->type) && !strcmp(s->name, "_etext"))
		s->type = 'T';
	return true;
}

bool ksym__is_dynamic(const struct ksym *s)
{
	return s->module && (!strcmp(s->module, "bpf") || !strncmp(s->module, "__builtin__", 11));
}

static bool filtered_out(const struct ksyms *ks, const struct ksym *s)
{
	return ks->funcs_only && (!ksym__is_func(s->type) ||
				  (s->addr >= ks->skip_start && s->addr < ks->skip_end) ||
				  (ks->static_only && ksym__is_dynamic(s)));
}

static struct ksym *new_sym(struct ksyms *ks, size_t *cap)
{
	if (ks->cnt == *cap) {
		size_t c = *cap ? *cap * 2 : 4096;
		struct ksym *n = realloc(ks->syms, c * sizeof(*n));

		if (!n)
			return NULL;
		ks->syms = n;
		*cap = c;
	}
	return &ks->syms[ks->cnt];
}

/* Parse the lines of ks->buf in place. */
static int parse_lines(struct ksyms *ks, size_t len)
{
	char *p = ks->buf, *end = ks->buf + len, *nl;
	size_t cap = 0;
	struct ksym *s;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		*nl = '\0';
		s = new_sym(ks, &cap);
		if (!s)
			return -ENOMEM;
		if (parse_line(p, s) && !filtered_out(ks, s))
			ks->cnt++;
	}
	return 0;
}

/* Append @str to the arena @names (@used of @room bytes); its offset, or -1. */
static long arena_add(char **names, size_t *used, size_t *room, const char *str)
{
	size_t n = strlen(str) + 1;
	long off = *used;

	if (*used + n > *room) {
		size_t r = (*room + n) * 2;
		char *grown = realloc(*names, r);

		if (!grown)
			return -1;
		*names = grown;
		*room = r;
	}
	memcpy(*names + *used, str, n);
	*used += n;
	return off;
}

/* Reallocate the table and the name arena (@used bytes) to their size. */
static void shrink_to_fit(struct ksyms *ks, char **names, size_t used)
{
	struct ksym *syms;
	char *n;

	if (ks->cnt && (syms = realloc(ks->syms, ks->cnt * sizeof(*syms))))
		ks->syms = syms;
	if (used && (n = realloc(*names, used)))
		*names = n;
}

/*
 * A file's lines, read in large chunks into one buffer and cut there in place: getline()
 * copied each line out of stdio's buffer, 100 of the 936 host instructions a line of
 * the kallsyms read took (callgrind). The buffer is also what makes the reads large: the
 * kernel formats kallsyms anew for each read() and hands out up to a page a call, where
 * glibc's own buffer asked for 1 kB (st_blksize) at a time: 6,700 system calls instead
 * of 1,700 for 6.8 MB (6.12), each dear in a TCG guest.
 */
struct line_reader {
	int fd;
	char *buf;
	size_t cap, pos, end;	/* [pos, end) not yet handed out; one byte kept for a NUL */
	bool eof;
};

/*
 * The next line without its newline, NUL-terminated and valid until the next call; NULL
 * at the end, or on a read error (*@err set).
 */
static char *next_line(struct line_reader *lr, int *err)
{
	char *nl, *line, *grown;
	ssize_t n;

	for (;;) {
		line = lr->buf + lr->pos;
		nl = memchr(line, '\n', lr->end - lr->pos);
		if (nl) {
			*nl = '\0';
			lr->pos = nl + 1 - lr->buf;
			return line;
		}
		if (lr->eof) {
			/* a last line without a newline (the room for its NUL is kept) */
			if (lr->pos == lr->end)
				return NULL;
			lr->buf[lr->end] = '\0';
			lr->pos = lr->end;
			return line;
		}
		/* the partial line to the front, then more after it */
		memmove(lr->buf, line, lr->end - lr->pos);
		lr->end -= lr->pos;
		lr->pos = 0;
		if (lr->end + 1 >= lr->cap) {
			grown = realloc(lr->buf, lr->cap * 2);
			if (!grown) {
				*err = -ENOMEM;
				return NULL;
			}
			lr->buf = grown;
			lr->cap *= 2;
		}
		n = read(lr->fd, lr->buf + lr->end, lr->cap - 1 - lr->end);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*err = -errno;
			return NULL;
		}
		lr->eof = n == 0;
		lr->end += n;
	}
}

/*
 * A filtered table keeps a small part of the file: read it a line at a time and keep only
 * the names of the symbols kept, never the whole file (15 MB at its peak on 6.12). Names
 * are offsets into the arena while it may still move; module offsets are stored plus one,
 * 0 being no module.
 */
static int read_filtered(struct ksyms *ks, struct line_reader *lr)
{
	size_t cap = 0, used = 0, room = 0, i;
	char *line, *names = NULL;
	long name_off, mod_off;
	struct ksym *s;
	int err = 0;

	while ((line = next_line(lr, &err))) {
		s = new_sym(ks, &cap);
		if (!s) {
			err = -ENOMEM;
			break;
		}
		if (!parse_line(line, s) || filtered_out(ks, s))
			continue;
		name_off = arena_add(&names, &used, &room, s->name);
		mod_off = s->module ? arena_add(&names, &used, &room, s->module) : -2;
		if (name_off < 0 || mod_off == -1) {
			err = -ENOMEM;
			break;
		}
		s->name = (const char *)(uintptr_t)name_off;
		s->module = (const char *)(uintptr_t)(mod_off + 2 ? mod_off + 1 : 0);
		ks->cnt++;
	}
	/* kept for the whole run: give back what the doublings left unused (up to half) */
	if (!err)
		shrink_to_fit(ks, &names, used);
	for (i = 0; i < ks->cnt; i++) {
		ks->syms[i].name = names + (uintptr_t)ks->syms[i].name;
		if (ks->syms[i].module)
			ks->syms[i].module = names + (uintptr_t)ks->syms[i].module - 1;
	}
	ks->buf = names;
	return err;
}

/*
 * Sort @keys by cmp_by_name(): a radix sort of the hashes (four byte-wide passes, stable),
 * then the runs of equal hashes (a name listed more than once, or a rare collision) by
 * name, module and address.
 */
static int sort_keys(struct name_key *keys, size_t n)
{
	struct name_key *tmp = malloc((n ? n : 1) * sizeof(*tmp)), *src = keys, *dst = tmp, *t;
	size_t cnt[256], i, j, pos, sum;
	int shift;

	if (!tmp)
		return -ENOMEM;
	for (shift = 0; shift < 32; shift += 8) {
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[(src[i].hash >> shift) & 0xff]++;
		for (i = 0, sum = 0; i < 256; i++) {
			pos = sum;
			sum += cnt[i];
			cnt[i] = pos;
		}
		for (i = 0; i < n; i++)
			dst[cnt[(src[i].hash >> shift) & 0xff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	/* an even number of passes: the result is back in @keys */
	free(tmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && keys[j].hash == keys[i].hash; j++)
			;
		if (j - i > 1)
			qsort(keys + i, j - i, sizeof(*keys), cmp_by_name);
	}
	return 0;
}

int ksyms__build_indexes(struct ksyms *ks)
{
	struct name_key *keys;
	size_t i, n = 0;

	for (i = 0; i < ks->cnt; i++)
		n += ksym__is_func(ks->syms[i].type);
	ks->by_name = calloc(n ? n : 1, sizeof(*ks->by_name));
	ks->name_hashes = calloc(n ? n : 1, sizeof(*ks->name_hashes));
	ks->by_addr = calloc(n ? n : 1, sizeof(*ks->by_addr));
	keys = calloc(n ? n : 1, sizeof(*keys));
	if (!ks->by_name || !ks->name_hashes || !ks->by_addr || !keys) {
		free(keys);
		return -ENOMEM;
	}
	for (i = 0, n = 0; i < ks->cnt; i++) {
		if (ksym__is_func(ks->syms[i].type)) {
			keys[n].hash = name_hash(ks->syms[i].name);
			keys[n].sym = &ks->syms[i];
			ks->by_addr[n++] = &ks->syms[i];
		}
	}
	ks->func_cnt = n;
	/*
	 * Sorted by hash first: a name sort spent most of start-up in strcmp() over the
	 * long shared prefixes of 100k kernel names. Equal names still end up adjacent.
	 */
	if (sort_keys(keys, n)) {
		free(keys);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		ks->by_name[i] = keys[i].sym;
		ks->name_hashes[i] = keys[i].hash;
	}
	free(keys);
	ksyms__order_by_addr(ks);
	return 0;
}

void ksyms__order_by_addr(struct ksyms *ks)
{
	size_t i, n = ks->func_cnt;

	/* kallsyms lists the kernel's own text in address order: most reads need no sort */
	for (i = 1; i < n && ks->by_addr[i - 1]->addr <= ks->by_addr[i]->addr; i++)
		;
	if (i < n)
		qsort(ks->by_addr, n, sizeof(*ks->by_addr), cmp_by_addr);

	/*
	 * size = distance to the next function at a higher address; aliases share it. One
	 * pass over runs of equal addresses: hidden addresses (kptr_restrict) are one run of
	 * 150k zeros, which a rescan per symbol would take half a minute over.
	 */
	for (i = 0; i < n; ) {
		size_t j = i + 1, k;
		__u64 size;

		while (j < n && ks->by_addr[j]->addr == ks->by_addr[i]->addr)
			j++;
		size = j < n ? ks->by_addr[j]->addr - ks->by_addr[i]->addr : 0;
		for (k = i; k < j; k++)
			((struct ksym *)ks->by_addr[k])->size = size;
		i = j;
	}
}

/* The symbols read (unless @err, a negative errno, says reading failed) made searchable. */
static struct ksyms *indexed(struct ksyms *ks, int err)
{
	if (!err)
		err = ksyms__build_indexes(ks);
	if (err) {
		ksyms__free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
}

static struct ksyms *ksyms__from_buf(char *buf, size_t len)
{
	struct ksyms *ks;
	int err;

	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		free(buf);
		errno = ENOMEM;
		return NULL;
	}
	ks->buf = buf;
	err = parse_lines(ks, len);
	return indexed(ks, err);
}

struct ksyms *ksyms__parse(const char *text, size_t len)
{
	char *buf = file_buf__dup(text, len);

	return buf ? ksyms__from_buf(buf, len) : NULL;
}

struct ksyms *ksyms__load(const char *path)
{
	size_t len = 0;
	char *buf = NULL;
	int err;

	err = file_buf__read(path ? path : "/proc/kallsyms", &buf, &len);
	if (err) {
		errno = -err;
		return NULL;
	}
	return ksyms__from_buf(buf, len);
}

static struct ksyms *load_funcs(const char *path, __u64 skip_start, __u64 skip_end,
				bool static_only)
{
	struct line_reader lr = {
		.fd = open(path ? path : "/proc/kallsyms", O_RDONLY | O_CLOEXEC),
		.buf = malloc(KSYMS_IOBUF_SZ),
		.cap = KSYMS_IOBUF_SZ,
	};
	struct ksyms *ks = calloc(1, sizeof(*ks));
	int err;

	if (lr.fd < 0 || !lr.buf || !ks) {
		err = lr.fd < 0 ? errno : ENOMEM;
		if (lr.fd >= 0)
			close(lr.fd);
		free(lr.buf);
		free(ks);
		errno = err;
		return NULL;
	}
	ks->funcs_only = true;
	ks->static_only = static_only;
	ks->skip_start = skip_start;
	ks->skip_end = skip_end;
	err = read_filtered(ks, &lr);
	close(lr.fd);
	free(lr.buf);
	return indexed(ks, err);
}

struct ksyms *ksyms__load_funcs_except(const char *path, __u64 skip_start, __u64 skip_end)
{
	return load_funcs(path, skip_start, skip_end, false);
}

struct ksyms *ksyms__load_funcs(const char *path)
{
	/* an empty range to skip: every function */
	return load_funcs(path, 0, 0, false);
}

struct ksyms *ksyms__load_static_funcs(const char *path)
{
	return load_funcs(path, 0, 0, true);
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->found);
	free(ks->by_name);
	free(ks->by_addr);
	if (ks->syms_map_len)
		munmap(ks->syms, ks->syms_map_len);
	else
		free(ks->syms);
	if (ks->map) {
		munmap(ks->map, ks->map_len);
	} else {
		free(ks->name_hashes);
		free(ks->buf);
	}
	free(ks);
}

size_t ksyms__cnt(const struct ksyms *ks)
{
	return ks->cnt;
}

const struct ksym *ksyms__sym_at(const struct ksyms *ks, size_t i)
{
	struct ksym *s = &ks->syms[i];
	const struct ksym_rec *r;

	if (!ks->recs || s->name)
		return s;
	/* the records were checked at the load: offsets inside the names */
	r = &ks->recs[i];
	s->addr = r->addr;
	s->size = r->size;
	s->type = r->type;
	s->module = r->module ? ks->buf + r->module - 1 : NULL;
	s->name = ks->buf + r->name;
	return s;
}

const struct ksym *ksyms__get(const struct ksyms *ks, size_t idx)
{
	return idx < ks->cnt ? ksyms__sym_at(ks, idx) : NULL;
}

/* Function @i of the address order: its address, and the symbol */
static __u64 addr_at(const struct ksyms *ks, size_t i)
{
	return ks->recs ? ks->recs[ks->rec_by_addr[i]].addr : ks->by_addr[i]->addr;
}

static const struct ksym *func_by_addr(const struct ksyms *ks, size_t i)
{
	return ks->recs ? ksyms__sym_at(ks, ks->rec_by_addr[i]) : ks->by_addr[i];
}

/* Function @i of the name order: its name and module (NULL: vmlinux) */
static const char *name_at(const struct ksyms *ks, size_t i, const char **mod)
{
	const struct ksym_rec *r;

	if (!ks->recs) {
		*mod = ks->by_name[i]->module;
		return ks->by_name[i]->name;
	}
	r = &ks->recs[ks->rec_by_name[i]];
	*mod = r->module ? ks->buf + r->module - 1 : NULL;
	return ks->buf + r->name;
}

static bool has_name_index(const struct ksyms *ks)
{
	return ks->recs ? ks->rec_by_name != NULL : ks->by_name != NULL;
}

static int cmp_key(__u32 hash, const char *name, const char *mod, const struct ksyms *ks,
		   size_t idx)
{
	const char *s_mod, *s_name;
	int c;

	if (hash != ks->name_hashes[idx])
		return hash < ks->name_hashes[idx] ? -1 : 1;
	s_name = name_at(ks, idx, &s_mod);
	c = strcmp(name, s_name);
	return c ? c : cmp_str_null_first(mod, s_mod);
}

/* An image's answer: the symbols of name order [@lo, @lo + @n), filled, in ks->found */
static const struct ksym *const *found_syms(const struct ksyms *ks, size_t lo, size_t n)
{
	struct ksyms *w = (struct ksyms *)ks;	/* the answer's array is the table's own */
	size_t i;

	if (n > w->found_cap) {
		const struct ksym **f = realloc(w->found, n * sizeof(*f));

		if (!f)
			return NULL;
		w->found = f;
		w->found_cap = n;
	}
	for (i = 0; i < n; i++)
		w->found[i] = ksyms__sym_at(ks, ks->rec_by_name[lo + i]);
	return w->found;
}

size_t ksyms__find_funcs(const struct ksyms *ks, const char *name, const char *mod,
			 const struct ksym *const **syms)
{
	size_t n = has_name_index(ks) ? ks->func_cnt : 0, lo = 0, hi = n, end;
	__u32 hash = name_hash(name);

	/* lower bound of (hash, name, mod), then extend over equal keys */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_key(hash, name, mod, ks, mid) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < n && cmp_key(hash, name, mod, ks, end) == 0; end++)
		;
	if (!n) {
		*syms = NULL;
		return 0;
	}
	if (!ks->recs) {
		*syms = ks->by_name + lo;
		return end - lo;
	}
	*syms = found_syms(ks, lo, end - lo);
	return *syms ? end - lo : 0;
}

/* @name in vmlinux, first in file order: ksyms__find() through the name index */
static const struct ksym *find_indexed(const struct ksyms *ks, const char *name)
{
	const struct ksym *const *syms, *first = NULL;
	size_t i, n = ksyms__find_funcs(ks, name, NULL, &syms);

	for (i = 0; i < n; i++)
		if (!first || syms[i] < first)	/* lower in the table: earlier in the file */
			first = syms[i];
	return first;
}

bool ksyms__text_bounds(const struct ksyms *ks, __u64 *start, __u64 *end)
{
	struct ksyms *w = (struct ksyms *)ks;	/* the answer is kept with the table */
	const struct ksym *a, *b;

	if (!w->text_looked) {
		if (has_name_index(ks)) {
			a = find_indexed(ks, "_stext");
			b = find_indexed(ks, "_etext");
		} else {
			a = ksyms__find(ks, "_stext");
			b = ksyms__find(ks, "_etext");
		}
		if (a && b && a->addr && a->addr < b->addr) {
			w->text_start = a->addr;
			w->text_end = b->addr;
		}
		w->text_looked = true;
	}
	*start = w->text_start;
	*end = w->text_end;
	return w->text_end != 0;
}

void ksyms__drop_name_index(struct ksyms *ks)
{
	__u64 start, end;

	/* what symbolization asks by name, found while the index is there */
	ksyms__text_bounds(ks, &start, &end);
	free(ks->by_name);
	if (!ks->map)
		free(ks->name_hashes);
	ks->by_name = NULL;
	ks->rec_by_name = NULL;
	ks->name_hashes = NULL;
}

const struct ksym *ksyms__find(const struct ksyms *ks, const char *name)
{
	size_t i;

	for (i = 0; i < ks->cnt; i++) {
		if (ks->recs) {
			/* compared in the map: only the one found is filled */
			if (!ks->recs[i].module && strcmp(ks->buf + ks->recs[i].name, name) == 0)
				return ksyms__sym_at(ks, i);
		} else if (!ks->syms[i].module && strcmp(ks->syms[i].name, name) == 0) {
			return &ks->syms[i];
		}
	}
	return NULL;
}

const struct ksym *ksyms__map_addr(const struct ksyms *ks, __u64 addr)
{
	size_t lo = 0, hi = ks->func_cnt;

	/* first function above @addr; the one before it is the answer */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr_at(ks, mid) <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	/* among aliases at that address, report the first in file order */
	while (lo > 1 && addr_at(ks, lo - 2) == addr_at(ks, lo - 1))
		lo--;
	return func_by_addr(ks, lo - 1);
}

bool ksyms__addrs_hidden(const struct ksyms *ks)
{
	/* sorted by address: hidden ones are all zero, so the highest one is too */
	return ks->func_cnt && addr_at(ks, ks->func_cnt - 1) == 0;
}
