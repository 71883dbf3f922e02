// SPDX-License-Identifier: BSD-2-Clause
/* The sidecar's "unwind" request and reply lines (ustack_req.h, sidecar/PROTOCOL.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proc_maps.h"
#include "ustack_req.h"

static const char *arch_name(__u16 arch)
{
	switch (arch) {
	case USTACK_ARCH_X86_64:
		return "x86_64";
	case USTACK_ARCH_ARM64:
		return "arm64";
	}
	return NULL;
}

static int arch_regs(__u16 arch)
{
	return arch == USTACK_ARCH_X86_64 ? 21 : 34;
}

static void put_hex(FILE *f, const __u8 *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		fputc(digits[p[i] >> 4], f);
		fputc(digits[p[i] & 0xf], f);
	}
}

/* The holes of @r's window within its first @stack_len bytes (pages from sp's). */
static unsigned int holes_within(const struct rec_ustack *r, size_t stack_len)
{
	size_t pages = stack_len ? ((r->sp & (USTACK_PAGE - 1)) + stack_len - 1) / USTACK_PAGE + 1 : 0;

	return pages >= 16 ? r->stack_holes : r->stack_holes & ((1U << pages) - 1);
}

int ustack_req__format(const struct rec_ustack *r, size_t stack_len, const struct proc_maps *maps,
		       const int *image_ids, char **out)
{
	const char *arch = arch_name(r->arch);
	char *buf = NULL;
	size_t len, i;
	FILE *f;
	int n;

	if (!arch || r->err || r->reg_cnt < arch_regs(r->arch) || stack_len > r->stack_len)
		return -EINVAL;
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "unwind %s %u %llx ", arch, r->pid, (unsigned long long)r->sp);
	for (n = 0; n < arch_regs(r->arch); n++)
		fprintf(f, "%s%llx", n ? "," : "", (unsigned long long)r->regs[n]);
	fputc(' ', f);
	if (stack_len)
		put_hex(f, r->stack, stack_len);
	else
		fputc('-', f);
	fprintf(f, " %x ", holes_within(r, stack_len));
	for (i = 0; i < proc_maps__cnt(maps); i++) {
		const struct proc_map *m = proc_maps__get(maps, i);

		/*
		 * Anonymous memory: only code (a JIT's: a JVM's, a JavaScript engine's), which
		 * the unwinder passes by frame pointers; the rest holds no frame's code
		 */
		if (!m->path && !(m->prot & PROC_MAP_X))
			continue;
		fprintf(f, "%llx-%llx:%llx:%x:%x:%x:%llu:%d:", (unsigned long long)m->start,
			(unsigned long long)m->end, (unsigned long long)m->pgoff, m->prot,
			m->dev_major, m->dev_minor, (unsigned long long)m->inode,
			image_ids && m->path ? image_ids[i] : 0);
		if (m->path)
			put_hex(f, (const __u8 *)m->path, strlen(m->path));
		else
			fputc('-', f);
		fputc(',', f);
	}
	fputc('-', f);		/* ends the list, which may be empty */
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	*out = buf;
	return 0;
}

static int split(char *line, char **fields, int max)
{
	int n = 0;

	fields[n++] = line;
	for (; *line; line++) {
		if (*line != '\t')
			continue;
		*line = '\0';
		if (n == max)
			return -EINVAL;
		fields[n++] = line + 1;
	}
	return n;
}

static int num(const char *s, int base, __u64 *v)
{
	char *end;

	if (!*s)
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno || *end ? -EINVAL : 0;
}

int ustack_req__parse_line(char *line, struct ustack_req_frame *f, const char **stop)
{
	char *fl[13];
	__u64 v[6];
	int n;

	if (!strncmp(line, "stop\t", 5)) {
		*stop = line + 5;
		return 0;
	}
	if (strncmp(line, "frame\t", 6))
		return -EINVAL;
	n = split(line + 6, fl, 13);
	/* pc act vaddr off bid module sym symoff file line col nolines */
	if (n != 12 || num(fl[0], 16, &v[0]) || num(fl[2], 16, &v[1]) || num(fl[3], 16, &v[2]) ||
	    num(fl[7], 16, &v[3]) || num(fl[9], 10, &v[4]) || num(fl[10], 10, &v[5]) ||
	    (strcmp(fl[1], "a") && strcmp(fl[1], "r") && strcmp(fl[1], "g")) || v[4] > 0x7fffffff || v[5] > 0x7fffffff)
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	f->pc = v[0];
	f->activation = fl[1][0] == 'a';
	f->guessed = fl[1][0] == 'g';
	f->vaddr = v[1];
	f->file_off = v[2];
	f->build_id = fl[4];
	f->module = fl[5];
	f->sym = fl[6];
	f->sym_off = v[3];
	f->file = fl[8];
	f->line = v[4];
	f->col = v[5];
	f->no_lines = fl[11];
	return 1;
}
