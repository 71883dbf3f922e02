// SPDX-License-Identifier: BSD-2-Clause
#include <stdbool.h>
#include <stddef.h>
#include "glob.h"
#include "user_unprobeable.h"

/*
 * glibc's (every image: ld.so has its own __sigsetjmp). Found by tracing real programs:
 * dlopen() of a missing library with '_dl_* [ld-linux-x86-64.so.2]' traced crashed in
 * _dl_fixup() (the link map replaced; _dl_runtime_profile* is entered the same way, under
 * LD_AUDIT); setjmp() traced, a program that longjmp()s crashed or ran on with the wrong
 * branch taken; getcontext() traced, the program's setcontext() died of SIGILL
 * (swapcontext() saves its return address the same way). Tried and left alone, since a
 * return probe did them no harm: vfork() (its child returns first on the same stack) and
 * __restore_rt (a signal handler returns into it).
 */
/* the two reasons; sigsetjmp() is siglongjmp()'s, the same story */
#define JUMPED_TO "the PLT jumps to it with the link map where a return address would be, which a return probe replaces"
#define RETURNS_AGAIN(at) "it returns a second time, at " at ", through the return address it saved, which a return probe replaces"

static const struct {
	const char *glob;
	const char *why;
} unprobeable[] = {
	{ "_dl_runtime_resolve*", JUMPED_TO },
	{ "_dl_runtime_profile*", JUMPED_TO },
	{ "setjmp", RETURNS_AGAIN("longjmp()") },
	{ "_setjmp", RETURNS_AGAIN("longjmp()") },
	{ "__setjmp", RETURNS_AGAIN("longjmp()") },
	{ "sigsetjmp", RETURNS_AGAIN("siglongjmp()") },
	{ "__sigsetjmp", RETURNS_AGAIN("longjmp()") },
	{ "getcontext", RETURNS_AGAIN("setcontext()") },
	{ "__getcontext", RETURNS_AGAIN("setcontext()") },
	{ "swapcontext", RETURNS_AGAIN("setcontext()") },
	{ "__swapcontext", RETURNS_AGAIN("setcontext()") },
};

const char *user_unprobeable__why(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(unprobeable) / sizeof(unprobeable[0]); i++)
		if (glob__match(unprobeable[i].glob, name))
			return unprobeable[i].why;
	return NULL;
}

/*
 * x86-64: an AVX-512 (EVEX-encoded, 0x62) first instruction. The 6.18 host's uprobes
 * accept it and step it wrongly: glibc's __strchrnul_evex (its first instruction
 * vpbroadcastb %esi,%ymm17) traced, printf() found no '%' and printed its format as is
 * ("hits %d"), in the traced program and in a dynamically linked retsnoop alike; a test
 * function starting with an EVEX vpbroadcastd into %xmm2 returned the wrong value, the
 * same with VEX encoding did not. (0x62 is BOUND in 32-bit code, invalid in 64-bit: any
 * 0x62 there begins an EVEX instruction.)
 */
const char *user_unprobeable__code_why(const unsigned char *code, size_t len)
{
#if defined(__x86_64__)
	if (len >= 1 && code[0] == 0x62)
		return "its first instruction is an AVX-512 (EVEX) one, which the kernel's uprobes step wrongly (the program would compute wrong results)";
#else
	(void)code;
	(void)len;
#endif
	return NULL;
}

/*
 * x86-64: what uprobes refuse at registration, every uprobe.multi link of an image failing
 * with ENOTSUPP while one such function is in it. Its analysis rejects an instruction with
 * a lock prefix, and judges a VEX-encoded one by its opcode byte as if it were a one-byte
 * opcode: AVX2's vmovd (0x6e) and vpxor (0xef) then look like the string and port I/O
 * instructions, which it never steps. Tracing all of glibc met 23 such functions
 * (pthread_spin_lock, __strchr_avx2 ...); each refused link cost a grace period of 13-120
 * ms on the 6.18 host while the attacher halved its way to them (103 refusals, 8 s of
 * attach; bench/results/uprobe-refused.txt). Found here they cost nothing.
 * Only what every kernel tried refuses (5.10, 6.1, 6.12, the 6.18 host, 7.2: make test
 * compares with each one's own verdict): 6.18 also refuses an ES, CS, SS or DS segment
 * prefix (the "cs nopw" compilers pad with), 7.2 takes it, so that stays the kernel's call.
 */
#if defined(__x86_64__)
static bool io_opcode(unsigned char op)
{
	return (op >= 0x6c && op <= 0x6f) || (op >= 0xe4 && op <= 0xe7) ||
	       (op >= 0xec && op <= 0xef);
}
#endif

const char *user_unprobeable__code_refused(const unsigned char *code, size_t len)
{
#if defined(__x86_64__)
	size_t i;

	for (i = 0; i < len && i < 14; i++) {
		switch (code[i]) {
		case 0xf0:
			return "its first instruction is lock-prefixed, which the kernel's uprobes refuse";
		case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
		case 0x66: case 0x67: case 0xf2: case 0xf3:
			continue;	/* prefixes: a lock may follow */
		}
		break;
	}
	/* VEX: 0xc5 and one payload byte, or 0xc4 and two; in 64-bit code never LES/LDS */
	if (i == 0 && ((len >= 3 && code[0] == 0xc5 && io_opcode(code[2])) ||
		       (len >= 4 && code[0] == 0xc4 && io_opcode(code[3]))))
		return "its first instruction is VEX-encoded with an opcode byte the kernel's uprobes take for an I/O instruction, and refuse";
#else
	(void)code;
	(void)len;
#endif
	return NULL;
}
