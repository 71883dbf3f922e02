// SPDX-License-Identifier: BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "arg_dump.h"
#include "arg_plan.h"
#include "arg_render.h"
#include "opts.h"
#include "errnos.h"

#define ELLIPSIS "\u2026"

static int round8(int n)
{
	return (n + 7) & ~7;
}

int arg_render__piece(const struct sample_args *a, int i, struct arg_piece *pc)
{
	__u32 off = 0;
	int k;

	if (!a->data && a->data_len)
		return -EINVAL;
	if (i < 0 || i >= a->arg_cnt || i >= MAX_FNARGS)
		return -EINVAL;
	for (k = 0; k <= i; k++) {
		bool ptr = a->ptr_mask >> k & 1;
		int len = a->lens[k];
		__u32 need = (ptr ? 8 : 0) + (len > 0 ? round8(len) : 0);

		if (need > a->data_len - off)
			return -EINVAL;
		if (k == i) {
			memset(pc, 0, sizeof(*pc));
			pc->has_ptr = ptr;
			if (ptr)
				memcpy(&pc->ptr, a->data + off, 8);
			pc->len = len;
			pc->data = a->data + off + (ptr ? 8 : 0);
			return 0;
		}
		off += need;
	}
	return -EINVAL;
}

/* '%' conversions in a format string, "%%" not counted. */
static int fmt_conversions(const __u8 *s, int len)
{
	int i, n = 0;

	for (i = 0; i < len && s[i]; i++) {
		if (s[i] != '%')
			continue;
		if (i + 1 < len && s[i + 1] == '%')
			i++;
		else
			n++;
	}
	return n;
}

int arg_render__shown(const struct sample_args *a)
{
	const struct func_arg_plan *p = a->plan;
	struct arg_piece pc;
	int n = a->arg_cnt, first_vararg, i;

	if (!p)
		return 0;
	if (n > p->arg_cnt)
		n = p->arg_cnt;
	if (p->fmt_idx < 0)
		return n;
	first_vararg = p->fmt_idx + 1;
	/* without the format string, every captured slot is shown */
	if (arg_render__piece(a, p->fmt_idx, &pc) || pc.len <= 0)
		return n;
	i = first_vararg + fmt_conversions(pc.data, pc.len);
	return i < n ? i : n;
}

/* Captured string bytes between quotes, every non-printable one as a space. */
static void print_str(FILE *out, const __u8 *s, int len)
{
	int i;

	fputc('\'', out);
	for (i = 0; i < len && s[i]; i++)
		fputc(isprint(s[i]) ? s[i] : ' ', out);
	fputc('\'', out);
}

static void print_err(FILE *out, int len)
{
	const char *name;

	if (len == -ENODATA) {
		fputs("NULL", out);
	} else if (len == -ENOSPC) {
		fputs("(trunc)", out);
	} else if ((name = errno__name(-len))) {
		fprintf(out, "<ERR:-%s>", name);
	} else {
		fprintf(out, "<ERR:%d>", len);
	}
}

static __u64 word(const struct arg_piece *pc)
{
	__u64 v = 0;

	memcpy(&v, pc->data, pc->len < 8 ? pc->len : 8);
	return v;
}

void arg_render__value(FILE *out, const struct sample_args *a, int i, bool verbose, int indent)
{
	const struct arg_plan *ap = &a->plan->args[i];
	struct arg_dump_opts dopts = { .sz = sizeof(dopts), .verbose = verbose, .indent = indent };
	struct arg_piece pc;
	__u64 v;

	switch (ap->kind) {
	case ARG_UNSUPP:
		fputs("(unsupp)", out);
		return;
	case ARG_SKIP_VARARG:
		fputs("(vararg)", out);
		return;
	case ARG_STACK_TOO_FAR:
		fputs("(stack-too-far)", out);
		return;
	default:
		break;
	}
	if (arg_render__piece(a, i, &pc)) {
		fputs(ARG_MISSING_TEXT, out);
		return;
	}
	if (ap->kind == ARG_VARARG) {
		/* with the pointer bit, the value pointed to a string that was read */
		if (!pc.has_ptr) {
			arg_dump__int(out, pc.len > 0 ? word(&pc) : 0, false);
			return;
		}
		if (a->raw_ptrs)
			fprintf(out, "(0x%llx)", (unsigned long long)pc.ptr);
		if (pc.len > 0)
			print_str(out, pc.data, pc.len);
		else
			arg_dump__int(out, pc.ptr, false);
		return;
	}
	if (pc.has_ptr)
		fprintf(out, "(0x%llx)", (unsigned long long)pc.ptr);
	if (pc.len < 0) {
		print_err(out, pc.len);
		return;
	}
	switch (ap->kind) {
	case ARG_RAW_REG:
		arg_dump__int(out, word(&pc), false);
		return;
	case ARG_RAW_PTR:
		v = word(&pc);
		if (v)
			fprintf(out, "0x%llx", (unsigned long long)v);
		else
			fputs("NULL", out);
		return;
	case ARG_STR:
		print_str(out, pc.data, pc.len);
		return;
	case ARG_PTR:
		fputc('&', out);
		/* fall through */
	case ARG_VALUE:
	case ARG_VALUE_BY_REF:
		if (!a->plan->btf || arg_dump(out, a->plan->btf, ap->type_id, pc.data, pc.len,
					      &dopts) == -EINVAL)
			fputs("(unsupp)", out);
		return;
	default:
		fputs("(unsupp)", out);
	}
}

int arg_render__cols(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Bytes of @s to keep when cutting it to @width columns (the last one an ellipsis), -1: fits. */
static int cut_at(const char *s, int width)
{
	const char *p;
	int cols = 0;

	if (width <= 0 || arg_render__cols(s) <= width)
		return -1;
	for (p = s; *p; p++) {
		if (((unsigned char)*p & 0xc0) == 0x80)
			continue;
		if (cols++ == width - 1)
			break;
	}
	return p - s;
}

static char *render_one(const struct sample_args *a, int i, const struct arg_render_opts *o)
{
	bool verbose = o->mode == ARGS_FMT_VERBOSE;
	char *val = NULL, *item = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&val, &len);
	int width = verbose ? 0 : o->max_width;

	if (!f)
		return NULL;
	arg_render__value(f, a, i, verbose, o->indent);
	if (fclose(f))
		return NULL;
	item = malloc(strlen(a->plan->args[i].name) + len + sizeof(" = " ELLIPSIS));
	if (item) {
		const char *sep = o->mode == ARGS_FMT_COMPACT ? "=" : " = ";
		int keep = cut_at(val, width);

		if (keep >= 0)
			sprintf(item, "%s%s%.*s%s", a->plan->args[i].name, sep, keep, val, ELLIPSIS);
		else
			sprintf(item, "%s%s%s", a->plan->args[i].name, sep, val);
	}
	free(val);
	return item;
}

void arg_render__free_strs(char **strs, int cnt)
{
	int i;

	for (i = 0; strs && i < cnt; i++)
		free(strs[i]);
	free(strs);
}

int arg_render__strs(const struct sample_args *a, const struct arg_render_opts *opts,
		     char ***strs, int *cnt)
{
	int n = a->missing || !a->plan ? 1 : arg_render__shown(a), i;
	struct arg_render_opts o;
	char **v;

	*strs = NULL;
	*cnt = 0;
	if (OPTS_COPY(&o, opts))
		return -EINVAL;
	v = calloc(n ?: 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (a->missing || !a->plan) {
		v[0] = strdup(ARG_MISSING_TEXT);
		if (!v[0])
			goto nomem;
	} else {
		for (i = 0; i < n; i++) {
			v[i] = render_one(a, i, &o);
			if (!v[i])
				goto nomem;
		}
	}
	*strs = v;
	*cnt = n;
	return 0;
nomem:
	arg_render__free_strs(v, n);
	return -ENOMEM;
}

char *arg_render__compact(const struct sample_args *a, const struct arg_render_opts *o)
{
	char **strs, *buf = NULL;
	size_t len = 0;
	int cnt, i;
	FILE *f;

	if (arg_render__strs(a, o, &strs, &cnt))
		return NULL;
	f = open_memstream(&buf, &len);
	if (f) {
		for (i = 0; i < cnt; i++)
			fprintf(f, "%s%s", i ? " " : "", strs[i]);
		if (fclose(f)) {
			free(buf);
			buf = NULL;
		}
	}
	arg_render__free_strs(strs, cnt);
	return buf;
}
