// SPDX-License-Identifier: BSD-2-Clause
/*
 * struct kernel_features as text, one "name value" line per field, for the boot cache
 * (kernel_features.h). Named fields, not the struct's bytes: a retsnoop whose struct has
 * other fields, or the same in another order, finds a copy it can't read in full and
 * detects the features again instead of taking one field for another.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel_features.h"

#define FORMAT_LINE "retsnoop-kernel-features 1\n"

enum field_kind { FIELD_BOOL, FIELD_UINT, FIELD_INT };

struct field {
	const char *name;
	size_t off;
	size_t size;
	enum field_kind kind;
};

#define B(n) { #n, offsetof(struct kernel_features, n), sizeof(bool), FIELD_BOOL }
#define U(n) { #n, offsetof(struct kernel_features, n), sizeof(unsigned int), FIELD_UINT }
#define I(n) { #n, offsetof(struct kernel_features, n), sizeof(int), FIELD_INT }

/* every field of struct kernel_features, in its order (kernel_features__text_check()) */
static const struct field fields[] = {
	B(has_ringbuf), B(has_func_ip), B(has_branch_snapshot), B(has_cookie),
	B(has_rawtp_cookie), B(has_kprobe_multi), B(has_kprobe_session),
	U(session_kfunc_id), U(session_cookie_kfunc_id), B(has_uprobe_multi),
	B(has_uprobe_session), I(kret_ip_off), B(has_fexit_sleep_fix),
	B(has_fentry_protection), B(has_fgraph_fprobe), B(has_task_stack),
	B(has_task_storage), B(has_fentry), B(has_func_ret), B(has_func_arg), B(has_fsession),
	B(has_fsession_multi), U(task_group_leader_off), U(task_comm_off), U(task_pid_off),
	U(task_exit_code_off),
	U(trace_kprobe_addr_off), U(task_stack_off), U(user_regs_off), U(task_mm_off),
	U(mm_xol_area_off), U(xol_vaddr_off), U(task_utask_off), U(utask_ri_off),
	U(ri_stack_off), U(ri_orig_ret_off), U(ri_next_off),
};

#define FIELD_CNT (sizeof(fields) / sizeof(fields[0]))

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

/*
 * Each field starts where the one before it ends, or at the next multiple of its size
 * (the compiler's padding), and the last one ends the struct but for its tail padding: a
 * field added to the struct and not to the table leaves a hole this finds, unless it is a
 * bool hidden in a hole the padding would have left anyway.
 */
int kernel_features__text_check(void)
{
	size_t i, end = 0;

	for (i = 0; i < FIELD_CNT; i++) {
		if (fields[i].off != align_up(end, fields[i].size))
			return -EINVAL;
		end = fields[i].off + fields[i].size;
	}
	return align_up(end, _Alignof(struct kernel_features)) ==
	       sizeof(struct kernel_features) ? 0 : -EINVAL;
}

int kernel_features__format(const struct kernel_features *f, bool uprobe_links, char *buf,
			    size_t sz)
{
	const char *base = (const char *)f;
	size_t i, len;
	int n;

	n = snprintf(buf, sz, FORMAT_LINE "uprobe_links %d\n", uprobe_links);
	if (n < 0 || (size_t)n >= sz)
		return -ENOSPC;
	len = n;
	for (i = 0; i < FIELD_CNT; i++) {
		const struct field *fd = &fields[i];
		const void *p = base + fd->off;

		switch (fd->kind) {
		case FIELD_BOOL:
			n = snprintf(buf + len, sz - len, "%s %d\n", fd->name, *(const bool *)p);
			break;
		case FIELD_UINT:
			n = snprintf(buf + len, sz - len, "%s %u\n", fd->name,
				     *(const unsigned int *)p);
			break;
		default:
			n = snprintf(buf + len, sz - len, "%s %d\n", fd->name, *(const int *)p);
			break;
		}
		if (n < 0 || (size_t)n >= sz - len)
			return -ENOSPC;
		len += n;
	}
	return len;
}

/* A decimal in [min, max] and nothing after it but the line's end. */
static int parse_num(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int set_field(struct kernel_features *f, const struct field *fd, const char *val)
{
	void *p = (char *)f + fd->off;
	long long v;
	int err;

	switch (fd->kind) {
	case FIELD_BOOL:
		err = parse_num(val, 0, 1, &v);
		if (!err)
			*(bool *)p = v;
		return err;
	case FIELD_UINT:
		err = parse_num(val, 0, UINT_MAX, &v);
		if (!err)
			*(unsigned int *)p = v;
		return err;
	default:
		err = parse_num(val, INT_MIN, INT_MAX, &v);
		if (!err)
			*(int *)p = v;
		return err;
	}
}

static int parse_line(struct kernel_features *f, bool *uprobe_links, char *line,
		      bool seen[FIELD_CNT])
{
	char *val = strchr(line, ' ');
	long long v;
	size_t i;

	if (!val)
		return -EINVAL;
	*val++ = '\0';
	if (!strcmp(line, "uprobe_links")) {
		if (parse_num(val, 0, 1, &v))
			return -EINVAL;
		*uprobe_links = v;
		return 0;
	}
	for (i = 0; i < FIELD_CNT; i++) {
		if (strcmp(line, fields[i].name))
			continue;
		if (seen[i])
			return -EINVAL;
		seen[i] = true;
		return set_field(f, &fields[i], val);
	}
	return -EINVAL;	/* a field this build doesn't have */
}

int kernel_features__parse(struct kernel_features *f, bool *uprobe_links, const char *text)
{
	bool seen[FIELD_CNT] = {}, links = false;
	struct kernel_features nf = {};
	size_t hdr = strlen(FORMAT_LINE), i;
	char *copy, *line, *nl;
	int err = 0;

	if (strncmp(text, FORMAT_LINE, hdr))
		return -EINVAL;
	copy = strdup(text + hdr);
	if (!copy)
		return -ENOMEM;
	for (line = copy; !err && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl) {
			err = -EINVAL;	/* cut short */
			break;
		}
		*nl = '\0';
		err = parse_line(&nf, &links, line, seen);
	}
	free(copy);
	for (i = 0; !err && i < FIELD_CNT; i++)
		if (!seen[i])
			err = -EINVAL;	/* written by a build without this field */
	if (err)
		return err;
	*f = nf;
	*uprobe_links = links;
	return 0;
}
