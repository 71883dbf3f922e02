// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0)
/*
 * prog_lines ID...: where each loaded BPF program's JIT code comes from, one line per
 * line-info entry: "JIT-ADDRESS FILE:LINE SOURCE-TEXT", sorted by address, and where each
 * of its functions' code ends: "JIT-ADDRESS <end>" (what follows is not the program's: the
 * allocator packs trampolines and other programs right after it). A profile's
 * sampled kernel addresses (perf script -F ip) then add up per source line
 * (bench/prog-profile.sh): the guest's bpftool has no JIT disassembler, and a
 * bpf_stats run time says how long a program ran, not where.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

struct entry {
	__u64 addr;
	const char *file, *text;
	__u32 line;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int dump_prog(__u32 id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), n, rec, i, nf;
	struct bpf_line_info *li = NULL;
	struct entry *e = NULL;
	__u64 *jli = NULL, *ksyms = NULL;
	__u32 *flens = NULL;
	struct btf *btf = NULL;
	int fd, err;

	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	err = bpf_prog_get_info_by_fd(fd, &info, &len);
	if (err)
		goto out;
	n = info.nr_jited_line_info;
	rec = info.line_info_rec_size;
	nf = info.nr_jited_ksyms;
	if (!n || info.nr_line_info != n || rec < sizeof(*li) || !info.btf_id ||
	    info.nr_jited_func_lens != nf) {
		err = -ENODATA;
		goto out;
	}
	li = calloc(n, rec);
	jli = calloc(n, sizeof(*jli));
	ksyms = calloc(nf ?: 1, sizeof(*ksyms));
	flens = calloc(nf ?: 1, sizeof(*flens));
	e = calloc(n + nf, sizeof(*e));
	if (!li || !jli || !ksyms || !flens || !e) {
		err = -ENOMEM;
		goto out;
	}
	memset(&info, 0, sizeof(info));
	info.nr_line_info = n;
	info.line_info_rec_size = rec;
	info.line_info = (__u64)(unsigned long)li;
	info.nr_jited_line_info = n;
	info.jited_line_info_rec_size = sizeof(__u64);
	info.jited_line_info = (__u64)(unsigned long)jli;
	info.nr_jited_ksyms = nf;
	info.jited_ksyms = (__u64)(unsigned long)ksyms;
	info.nr_jited_func_lens = nf;
	info.jited_func_lens = (__u64)(unsigned long)flens;
	len = sizeof(info);
	err = bpf_prog_get_info_by_fd(fd, &info, &len);
	if (err)
		goto out;
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!btf) {
		err = -errno;
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct bpf_line_info *l = (void *)((char *)li + (size_t)i * rec);

		e[i].addr = jli[i];
		e[i].file = btf__name_by_offset(btf, l->file_name_off) ?: "?";
		e[i].text = btf__name_by_offset(btf, l->line_off) ?: "";
		e[i].line = BPF_LINE_INFO_LINE_NUM(l->line_col);
	}
	for (i = 0; i < nf; i++)
		e[n + i] = (struct entry){ .addr = ksyms[i] + flens[i] };
	qsort(e, n + nf, sizeof(*e), cmp_entry);
	for (i = 0; i < n + nf; i++) {
		const char *base;

		if (!e[i].file) {
			printf("%llx %u <end>\n", (unsigned long long)e[i].addr, id);
			continue;
		}
		base = strrchr(e[i].file, '/');
		printf("%llx %u %s:%u %s\n", (unsigned long long)e[i].addr, id,
		       base ? base + 1 : e[i].file, e[i].line, e[i].text);
	}
out:
	btf__free(btf);
	free(e);
	free(flens);
	free(ksyms);
	free(jli);
	free(li);
	close(fd);
	return err;
}

int main(int argc, char **argv)
{
	int i, err, rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: prog_lines PROG_ID...\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		err = dump_prog(strtoul(argv[i], NULL, 0));
		if (err) {
			fprintf(stderr, "prog_lines: program %s: %s\n", argv[i], strerror(-err));
			rc = 1;
		}
	}
	return rc;
}
