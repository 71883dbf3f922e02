/* Calls the assembly function of uasm.S once; exits 0 whatever it returns. */
long asm_fail(void);

int main(void)
{
	return asm_fail() == -1 ? 0 : 1;
}
