/*
 * Calls the assembly function of uasm.S once; exits 0 whatever it returns. With an
 * argument it first waits for a line on stdin, mapped and running, so that probes are
 * put into a live process (where the kernel looks at each probed instruction).
 */
#include <stdio.h>

long asm_fail(void);

int main(int argc, char **argv)
{
	char line[16];

	(void)argv;
	if (argc > 1 && !fgets(line, sizeof(line), stdin))
		return 2;
	return asm_fail() == -1 ? 0 : 1;
}
