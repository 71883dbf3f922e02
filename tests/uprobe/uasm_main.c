/*
 * Calls the assembly function of uasm.S once; exits 0 whatever it returns. With an
 * argument it first waits for a line on stdin, mapped and running, so that probes are
 * put into a live process (where the kernel looks at each probed instruction).
 * uasm evex: calls asm_evex() with 1..1000 and says how many came back wrong (exit 1
 * if any); exit 3 where the CPU has no AVX-512VL to run it.
 */
#include <stdio.h>
#include <string.h>

long asm_fail(void);
int asm_evex(int x);

int main(int argc, char **argv)
{
	char line[16];
	int i, wrong = 0;

	if (argc > 1 && strcmp(argv[1], "evex") == 0) {
#if defined(__x86_64__)
		if (!__builtin_cpu_supports("avx512vl"))
			return 3;
#endif
		for (i = 1; i <= 1000; i++)
			wrong += asm_evex(i) != i;
		printf("asm_evex: %d of 1000 wrong\n", wrong);
		return wrong ? 1 : 0;
	}
	if (argc > 1 && !fgets(line, sizeof(line), stdin))
		return 2;
	return asm_fail() == -1 ? 0 : 1;
}
