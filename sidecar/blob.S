/* SPDX-License-Identifier: BSD-2-Clause */
/* The static retsnoop-sidecar binary, embedded as data; src/addr2line.c runs it from memory. */
	.section .rodata.retsnoop_sidecar, "a"
	.balign 16
	.globl retsnoop_sidecar_start
	.type retsnoop_sidecar_start, @object
retsnoop_sidecar_start:
	.incbin SIDECAR_BIN_PATH
	.globl retsnoop_sidecar_end
	.type retsnoop_sidecar_end, @object
retsnoop_sidecar_end:
	.section .note.GNU-stack, "", @progbits
