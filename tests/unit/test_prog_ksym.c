// SPDX-License-Identifier: BSD-2-Clause
/*
 * prog_ksym__get() against the running kernel: a program loaded here is named and placed
 * exactly as /proc/kallsyms lists it (the oracle), so that a stack's frame in one of our
 * programs reads the same whether kallsyms or the program itself answered.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "unit.h"
#include "prog_ksym.h"

/* The [bpf] line of @name in /proc/kallsyms: its address, 0 if none. */
static unsigned long long kallsyms_addr(const char *name)
{
	char line[1024], sym[PROG_KSYM_NAME_LEN], mod[64];
	unsigned long long addr, found = 0;
	char type;
	FILE *f = fopen("/proc/kallsyms", "re");

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %511s %63s", &addr, &type, sym, mod) == 4 &&
		    strcmp(sym, name) == 0 && strcmp(mod, "[bpf]") == 0)
			found = addr;
	fclose(f);
	return found;
}

static void test_matches_kallsyms(void **state)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct prog_ksym k;
	int fd;

	if (geteuid() != 0)
		skip();	/* loading needs root: reported as skipped, never as passed */
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "rs_ksym_test", "GPL", insns, 2, NULL);
	assert_true(fd >= 0);
	assert_int_equal(prog_ksym__get(fd, "rs_ksym_test", &k), 0);
	assert_true(k.size > 0);
	assert_int_equal(strncmp(k.name, "bpf_prog_", 9), 0);
	assert_non_null(strstr(k.name, "_rs_ksym_test"));
	/* the tag: 16 hex digits between the two */
	assert_int_equal(strlen(k.name), strlen("bpf_prog_") + 16 + strlen("_rs_ksym_test"));
	assert_int_equal(kallsyms_addr(k.name), k.addr);
	close(fd);
}

static void test_bad_fd(void **state)
{
	struct prog_ksym k;

	assert_true(prog_ksym__get(-1, "x", &k) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_kallsyms),
		cmocka_unit_test(test_bad_fd),
	};

	libbpf_set_print(NULL);
	return cmocka_run_group_tests_name("prog_ksym", tests, NULL, NULL);
}
