// SPDX-License-Identifier: BSD-2-Clause
/*
 * Functions a probe breaks (user_unprobeable.c): glibc's PLT resolvers and the functions
 * that return twice, by name, each with its reason, and an AVX-512 first instruction;
 * their neighbours (longjmp(), which never returns; vfork() and __restore_rt, tried and
 * fine) are left alone. And the first instructions x86's uprobes refuse (a lock prefix, a
 * VEX opcode byte it takes for I/O), against the neighbours it takes (FS/GS loads,
 * operand-size prefixes, other VEX opcodes) and a segment prefix, which one kernel refuses
 * and another takes: the kernels' own verdicts in tests/uprobe/run.sh 8b and the VM
 * scenario uprobe-session (RETSNOOP_UPROBE_PREDICT=0).
 */
#include <string.h>
#include "unit.h"
#include "user_unprobeable.h"

static void test_names(void **state)
{
	static const char *const broken[] = {
		"_dl_runtime_resolve_xsavec", "_dl_runtime_resolve_fxsave", "_dl_runtime_profile_avx512",
		"setjmp", "_setjmp", "__sigsetjmp", "getcontext",
		"__swapcontext",
	};
	static const char *const fine[] = {
		"longjmp", "__longjmp_chk", "siglongjmp", "vfork", "__vfork", "setcontext", "__restore_rt",
		"_dl_map_object", "_dl_catch_exception", "setjmp_helper", "my_getcontext", "",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(broken) / sizeof(broken[0]); i++)
		if (!user_unprobeable__why(broken[i]))
			fail_msg("%s: should be skipped", broken[i]);
	for (i = 0; i < sizeof(fine) / sizeof(fine[0]); i++)
		if (user_unprobeable__why(fine[i]))
			fail_msg("%s: should be traced", fine[i]);
	assert_non_null(strstr(user_unprobeable__why("_dl_runtime_resolve_xsave"), "link map"));
	assert_non_null(strstr(user_unprobeable__why("_setjmp"), "longjmp()"));
	assert_non_null(strstr(user_unprobeable__why("getcontext"), "setcontext()"));
}

/* x86-64: an EVEX (0x62) first instruction; VEX, endbr64 and plain code are stepped right */
static void test_code(void **state)
{
	static const unsigned char evex[] = { 0x62, 0xe2, 0x7d, 0x28 };	/* vpbroadcastb %esi,%ymm17 */
	static const unsigned char vex[] = { 0xc5, 0xf9, 0x6e, 0xcf };	/* vmovd %edi,%xmm1 */
	static const unsigned char endbr[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const unsigned char push[] = { 0x55, 0x48, 0x89, 0xe5 };	/* push %rbp; mov %rsp,%rbp */

	(void)state;
#if defined(__x86_64__)
	assert_non_null(strstr(user_unprobeable__code_why(evex, sizeof(evex)), "EVEX"));
#else
	assert_null(user_unprobeable__code_why(evex, sizeof(evex)));
#endif
	assert_null(user_unprobeable__code_why(vex, sizeof(vex)));
	assert_null(user_unprobeable__code_why(endbr, sizeof(endbr)));
	assert_null(user_unprobeable__code_why(push, sizeof(push)));
	assert_null(user_unprobeable__code_why(evex, 0));
}

/* bytes, and whether x86's uprobes refuse a probe there */
static const struct {
	unsigned char code[USER_UNPROBEABLE_CODE_LEN];
	size_t len;
	const char *what;	/* a word of the reason, NULL: taken */
} insns[] = {
	{ { 0xf0, 0xff, 0x0f }, 3, "lock" },			/* lock decl (%rdi) */
	{ { 0xf0, 0x0f, 0xba, 0xaf, 0x08, 0x03 }, 6, "lock" },	/* lock btsl $5,0x308(%rdi) */
	{ { 0x66, 0xf0, 0x0f, 0xb1, 0x17 }, 5, "lock" },	/* lock cmpxchg %dx,(%rdi) */
	{ { 0x2e, 0xf0, 0xff, 0x0f }, 4, "lock" },		/* cs lock decl (%rdi) */
	/* 6.18 refuses these, 7.2 takes them: the kernel's call */
	{ { 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00 }, 6, NULL },	/* cs nopw */
	{ { 0x3e, 0xff, 0xe0 }, 3, NULL },			/* notrack jmp *%rax */
	{ { 0xc5, 0xf9, 0x6e, 0xc6 }, 4, "VEX" },		/* vmovd %esi,%xmm0 (__strchr_avx2) */
	{ { 0xc5, 0xf9, 0xef, 0xc0 }, 4, "VEX" },		/* vpxor (__memset_avx512_no_vzeroupper) */
	{ { 0xc4, 0x41, 0x01, 0xef, 0xff }, 5, "VEX" },	/* vpxor %xmm15 (__strcmp_avx2) */
	{ { 0xc5, 0xfe, 0x6f, 0x06 }, 4, "VEX" },		/* vmovdqu (%rsi),%ymm0 */
	{ { 0xc4, 0xe2, 0x7d, 0x78, 0xc6 }, 5, NULL },	/* vpbroadcastb (0x78) */
	{ { 0xc5, 0xf8, 0x57, 0xc0 }, 4, NULL },		/* vxorps */
	{ { 0xc5, 0xf8, 0x77 }, 3, NULL },			/* vzeroupper */
	{ { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28 }, 6, NULL },	/* mov %fs:0x28,%rax */
	{ { 0x65, 0x48, 0x8b, 0x04, 0x25, 0x00 }, 6, NULL },	/* mov %gs:0,%rax */
	{ { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 }, 6, NULL },	/* nopw */
	{ { 0xf3, 0x0f, 0x1e, 0xfa }, 4, NULL },		/* endbr64 */
	{ { 0x55, 0x48, 0x89, 0xe5 }, 4, NULL },		/* push %rbp */
	{ { 0x48, 0xf0 }, 2, NULL },	/* no prefix after REX: a lock there is no lock prefix */
	{ { 0xc5, 0xf9 }, 2, NULL },	/* cut short: the opcode byte unread */
	{ { 0xc3 }, 1, NULL },
	{ { 0 }, 0, NULL },
};

static void test_refused(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(insns) / sizeof(insns[0]); i++) {
		const char *why = user_unprobeable__code_refused(insns[i].code, insns[i].len);

#if defined(__x86_64__)
		if (!insns[i].what ? why != NULL : !why || !strstr(why, insns[i].what))
			fail_msg("insn %zu (%02x %02x ...): '%s', wanted %s", i, insns[i].code[0],
				 insns[i].code[1], why ?: "taken", insns[i].what ?: "taken");
		/* never for a reason of the other kind: the kernel steps these, rightly */
		if (why && user_unprobeable__code_why(insns[i].code, insns[i].len))
			fail_msg("insn %zu: both refused and stepped wrongly", i);
#else
		if (why)
			fail_msg("insn %zu: '%s' outside x86-64", i, why);
#endif
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_code),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
