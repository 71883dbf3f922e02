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
 * More of what x86's uprobes refuse (user_unprobeable__code_refused() says so before the
 * kernel does): a VEX-encoded first instruction whose opcode byte the kernel judges as a
 * one-byte opcode, here vmovd's 0x6e (outsb), as glibc's __strchr_avx2 begins with. A CS
 * segment prefix behind an operand-size one (the long nop compilers pad with) that the
 * 6.18 host's kernel refuses and 7.2's takes: left to the kernel's verdict. And two every
 * kernel takes, which must not be skipped: a VEX vxorps (0x57) and the stack protector's
 * %fs: load. Never called.
 */
	.globl	asm_vex_io
	.type	asm_vex_io, @function
asm_vex_io:
#if defined(__x86_64__)
	vmovd	%esi, %xmm0
#endif
	ret
	.size	asm_vex_io, .-asm_vex_io

	.globl	asm_cs_nop
	.type	asm_cs_nop, @function
asm_cs_nop:
#if defined(__x86_64__)
	.byte	0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00	/* cs nopw 0x0(%rax,%rax,1) */
#endif
	ret
	.size	asm_cs_nop, .-asm_cs_nop

	.globl	asm_vex_ok
	.type	asm_vex_ok, @function
asm_vex_ok:
#if defined(__x86_64__)
	vxorps	%xmm0, %xmm0, %xmm0
#endif
	ret
	.size	asm_vex_ok, .-asm_vex_ok

	.globl	asm_fs_load
	.type	asm_fs_load, @function
asm_fs_load:
#if defined(__x86_64__)
	movq	%fs:0x28, %rax
#endif
	ret
	.size	asm_fs_load, .-asm_fs_load

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
