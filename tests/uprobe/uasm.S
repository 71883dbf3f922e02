/*
 * Functions written in assembly, as glibc's syscall wrappers are: with -g the assembler's
 * DWARF names it but knows no type (DW_TAG_unspecified_type), and its -1 must still count
 * as an error (the result is guessed, as without DWARF).
 */
	.text
	.globl	asm_fail
	.type	asm_fail, @function
asm_fail:
#if defined(__x86_64__)
	movq	$-1, %rax
	ret
#elif defined(__aarch64__)
	mov	x0, #-1
	ret
#else
#error "uasm.S: no variant for this architecture"
#endif
	.size	asm_fail, .-asm_fail

/*
 * One whose first instruction uprobes can't step: x86 refuses lock-prefixed instructions,
 * as glibc's pthread_spin_lock begins with one. Never called; its probe must be skipped,
 * which the kernel says only when it puts the probe into a process that maps this file.
 */
	.globl	asm_locked
	.type	asm_locked, @function
asm_locked:
#if defined(__x86_64__)
	lock decl (%rdi)
	ret
#else
	ret
#endif
	.size	asm_locked, .-asm_locked

/*
 * One whose first instruction uprobes accept and step wrongly: x86-64's AVX-512 (EVEX)
 * encoding, as glibc's __strchrnul_evex begins with (traced, printf() printed its format
 * as is). Returns its argument through %xmm2; uasm_main calls it only where the CPU has
 * AVX-512VL. (The same instruction VEX-encoded is stepped right.)
 */
	.globl	asm_evex
	.type	asm_evex, @function
asm_evex:
#if defined(__x86_64__)
	{evex} vpbroadcastd %edi, %xmm2
	vmovd	%xmm2, %eax
	ret
#else
	mov	w0, w0
	ret
#endif
	.size	asm_evex, .-asm_evex
	.section .note.GNU-stack,"",@progbits
