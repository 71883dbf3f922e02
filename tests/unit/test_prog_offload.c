// SPDX-License-Identifier: BSD-2-Clause
/*
 * prog_offload: a program of a real object (feature detection's calib_uentry, with its
 * maps, BTF function and line records) verified on a helper thread from libbpf's
 * prepare-load hook while libbpf loads a stub: after the object's load, the program's
 * descriptor is the real program's (its instructions, its BTF, close-on-exec kept); a
 * program the verifier refuses fails the finish, with the verifier's log; a program loaded
 * for uprobe.multi links takes one after the offload (its expected attach type kept, which
 * libbpf 1.4 sets only after the hook). Needs root and BPF: skipped (never passed) without
 * them.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "unit.h"
#include "calib_feat.skel.h"
#include "elf_funcs.h"
#include "prog_offload.h"
#include "uprobe_link.h"

static struct prog_offload *started;
static bool corrupt;

/* the hook for "uprobe" programs: offloads calib_uentry (made invalid when asked) */
static int hook(struct bpf_program *prog, struct bpf_prog_load_opts *o, long cookie)
{
	/* r0 = r5, which nothing set: the verifier refuses it */
	static const struct bpf_insn bad[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_0, .src_reg = BPF_REG_5 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct prog_offload_opts oo = { .sz = sizeof(oo), .license = "Dual BSD/GPL" };

	(void)cookie;
	if (strcmp(bpf_program__name(prog), "calib_uentry"))
		return 0;
	if (corrupt) {
		assert_int_equal(bpf_program__set_insns(prog, (struct bpf_insn *)bad, 2), 0);
		o->func_info = o->line_info = NULL;
		o->func_info_cnt = o->line_info_cnt = 0;
	}
	started = prog_offload__start(prog, o, &oo);
	assert_non_null(started);
	return 0;
}

/* The object with calib_uentry alone to load; @bad: the hook makes it one the verifier refuses */
static struct calib_feat *open_one(bool bad)
{
	struct calib_feat *skel = calib_feat__open();

	started = NULL;
	corrupt = bad;
	assert_non_null(skel);
	skel->rodata->try_task_storage = false;
	bpf_map__set_autocreate(skel->maps.storage_probe, false);
	bpf_program__set_autoload(skel->progs.calib_entry, false);
	bpf_program__set_autoload(skel->progs.calib_exit, false);
	return skel;
}

static void done(struct calib_feat *skel)
{
	prog_offload__free(started);
	calib_feat__destroy(skel);
}

/* Load @skel (libbpf loads the stub, the hook started the program's load): skipped without BPF */
static void load_or_skip(struct calib_feat *skel)
{
	int err = calib_feat__load(skel);

	if (err == -EPERM || err == -EACCES) {
		done(skel);
		skip();	/* not root, or no BPF here */
	}
	assert_int_equal(err, 0);
	assert_non_null(started);
}

static void test_offloaded(void **state)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	struct calib_feat *skel;
	size_t insn_cnt;
	int fd;

	(void)state;
	skel = open_one(false);
	insn_cnt = bpf_program__insn_cnt(skel->progs.calib_uentry);
	load_or_skip(skel);
	assert_int_equal(prog_offload__finish(started), 0);
	assert_ptr_equal(prog_offload__prog(started), skel->progs.calib_uentry);
	fd = bpf_program__fd(skel->progs.calib_uentry);
	assert_int_equal(bpf_prog_get_info_by_fd(fd, &info, &len), 0);
	/* the program, not the 2-instruction stub libbpf loaded: its BTF came with it */
	assert_string_equal(info.name, "calib_uentry");
	assert_true(info.xlated_prog_len / 8 > 2);
	assert_true(info.xlated_prog_len / 8 <= insn_cnt + 16);
	assert_true(info.btf_id != 0);
	assert_true(info.nr_func_info >= 1 && info.nr_line_info >= 1);
	assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	done(skel);
}

static void test_refused(void **state)
{
	struct calib_feat *skel;
	int err;

	(void)state;
	skel = open_one(true);
	/* libbpf loaded the stub; the program itself fails at the finish */
	load_or_skip(skel);
	err = prog_offload__finish(started);
	assert_true(err == -EACCES || err == -EINVAL);
	assert_non_null(strstr(prog_offload__log(started), "R5 !read_ok"));
	done(skel);
}

/* The file offset of this test's main(), for a uprobe.multi link to take (never hit) */
static unsigned long own_offset(void)
{
	struct elf_funcs *e = elf_funcs__open("/proc/self/exe", NULL);
	unsigned long off = 0;
	size_t i;

	assert_non_null(e);
	for (i = 0; i < elf_funcs__func_cnt(e) && !off; i++)
		if (!strcmp(elf_funcs__func(e, i)->name, "main"))
			off = elf_funcs__func(e, i)->offset;
	elf_funcs__free(e);
	assert_true(off != 0);
	return off;
}

static void test_attach_type_kept(void **state)
{
	unsigned long off = own_offset();
	struct uprobe_link_spec spec = { .path = "/proc/self/exe", .offsets = &off, .cnt = 1 };
	struct calib_feat *skel;
	int link;

	(void)state;
	skel = open_one(false);
	bpf_program__set_expected_attach_type(skel->progs.calib_uentry, BPF_TRACE_UPROBE_MULTI);
	load_or_skip(skel);
	assert_int_equal(prog_offload__finish(started), 0);
	link = uprobe_link__create(bpf_program__fd(skel->progs.calib_uentry),
				   BPF_TRACE_UPROBE_MULTI, &spec);
	if (link == -EOPNOTSUPP) {
		done(skel);
		skip();	/* no uprobe.multi links (before 6.6) */
	}
	/* -EINVAL: loaded without the attach type the link needs */
	assert_true(link >= 0);
	close(link);
	done(skel);
}

/* Attributes libbpf keeps to itself (a log) leave the program to libbpf: nothing changed */
static void test_not_taken(void **state)
{
	struct calib_feat *skel = open_one(false);
	char log[16];
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log, .log_size = sizeof(log));
	size_t cnt = bpf_program__insn_cnt(skel->progs.calib_uentry);

	(void)state;
	errno = 0;
	assert_null(prog_offload__start(skel->progs.calib_uentry, &o, NULL));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(bpf_program__insn_cnt(skel->progs.calib_uentry), cnt);
	calib_feat__destroy(skel);
	prog_offload__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offloaded),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_attach_type_kept),
		cmocka_unit_test(test_not_taken),
	};
	LIBBPF_OPTS(libbpf_prog_handler_opts, ho, .prog_prepare_load_fn = hook);

	libbpf_register_prog_handler("uprobe", BPF_PROG_TYPE_KPROBE, 0, &ho);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
