// SPDX-License-Identifier: BSD-2-Clause
/*
 * Traced calls' return addresses put back into a user stack capture: each trampoline word
 * gets the original of the innermost pending return probe at or above it.
 */
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "ustack_uret.h"

#define TRAMP	0x7fffffffe000ULL
#define SP	0x7ffc1000ULL
#define WORDS	32

static struct rec_ustack *capture(__u16 arch, __u64 sp)
{
	struct rec_ustack *r = calloc(1, sizeof(*r) + WORDS * 8);

	assert_non_null(r);
	r->arch = arch;
	r->reg_cnt = arch == USTACK_ARCH_ARM64 ? 34 : 21;
	r->sp = sp;
	r->stack_len = WORDS * 8;
	r->uret_tramp = TRAMP;
	return r;
}

static void put(struct rec_ustack *r, __u64 addr, __u64 val)
{
	memcpy(r->stack + (addr - r->sp), &val, 8);
}

static __u64 get(const struct rec_ustack *r, __u64 addr)
{
	__u64 v;

	memcpy(&v, r->stack + (addr - r->sp), 8);
	return v;
}

static void add_uret(struct rec_ustack *r, __u64 stack, __u64 orig)
{
	r->uret[r->uret_cnt].stack = stack;
	r->uret[r->uret_cnt].orig_ret = orig;
	r->uret_cnt++;
}

/* x86-64: each trampoline word is at its probe's stack address, innermost first */
static void test_x86_slots(void **state)
{
	struct rec_ustack *r = capture(USTACK_ARCH_X86_64, SP);

	put(r, SP + 0x10, TRAMP);	/* fail_and_exit's return into do_work */
	put(r, SP + 0x40, TRAMP);	/* do_work's return into main */
	put(r, SP + 0x48, 0x1234);	/* a local, not the trampoline: untouched */
	add_uret(r, SP + 0x10, 0x5000);
	add_uret(r, SP + 0x40, 0x6000);
	assert_int_equal(ustack_uret__restore(r, WORDS * 8), 2);
	assert_int_equal(get(r, SP + 0x10), 0x5000);
	assert_int_equal(get(r, SP + 0x40), 0x6000);
	assert_int_equal(get(r, SP + 0x48), 0x1234);
	/* done once: nothing left to put back */
	assert_int_equal(ustack_uret__restore(r, WORDS * 8), 0);
	free(r);
}

/* arm64: the frame record below the entry stack pointer, the leaf's link register */
static void test_arm64_records_and_lr(void **state)
{
	struct rec_ustack *r = capture(USTACK_ARCH_ARM64, SP);

	r->regs[30] = TRAMP;		/* the innermost traced function has not saved x30 */
	put(r, SP + 0x28, TRAMP);	/* its caller's frame record, under the caller's entry */
	add_uret(r, SP, 0x7000);	/* innermost: entered at sp, x30 still in the register */
	add_uret(r, SP + 0x40, 0x8000);
	assert_int_equal(ustack_uret__restore(r, WORDS * 8), 2);
	assert_int_equal(r->regs[30], 0x7000);
	assert_int_equal(get(r, SP + 0x28), 0x8000);
	free(r);
}

/* x86-64's link register slot is no register: regs[30] is not looked at there */
static void test_x86_no_lr(void **state)
{
	struct rec_ustack *r = capture(USTACK_ARCH_X86_64, SP);

	r->reg_cnt = 34;
	r->regs[30] = TRAMP;
	add_uret(r, SP, 0x7000);
	assert_int_equal(ustack_uret__restore(r, WORDS * 8), 0);
	assert_int_equal(r->regs[30], TRAMP);
	free(r);
}

/* a tail call's chained probe: two probes at one word, the same original */
static void test_chained(void **state)
{
	struct rec_ustack *r = capture(USTACK_ARCH_X86_64, SP);

	put(r, SP + 0x20, TRAMP);
	add_uret(r, SP + 0x20, 0x9000);
	add_uret(r, SP + 0x20, 0x9000);
	assert_int_equal(ustack_uret__restore(r, WORDS * 8), 1);
	assert_int_equal(get(r, SP + 0x20), 0x9000);
	free(r);
}

/*
 * No probe at or above a trampoline word (more probes than the record holds, the older
 * ones cut): the word stays, the unwinder stops there as before. No trampoline address:
 * nothing is changed.
 */
static void test_unknown_left(void **state)
{
	struct rec_ustack *r = capture(USTACK_ARCH_X86_64, SP);

	put(r, SP + 0x10, TRAMP);
	put(r, SP + 0x80, TRAMP);
	add_uret(r, SP + 0x10, 0x5000);
	assert_int_equal(ustack_uret__restore(r, WORDS * 8), 1);
	assert_int_equal(get(r, SP + 0x80), TRAMP);
	put(r, SP + 0x10, TRAMP);
	r->uret_tramp = 0;
	assert_int_equal(ustack_uret__restore(r, WORDS * 8), 0);
	assert_int_equal(get(r, SP + 0x10), TRAMP);
	free(r);
}

/* a count past the array is clamped; words past the window's length are not read */
static void test_bounds(void **state)
{
	struct rec_ustack *r = capture(USTACK_ARCH_X86_64, SP + 4);	/* unaligned sp */
	__u32 i;

	for (i = 0; i < USTACK_MAX_URETS; i++)
		add_uret(r, SP + 0x1000, 0xa000);
	r->uret_cnt = 1000;
	put(r, SP + 0x10, TRAMP);	/* aligned address, window offset 12 */
	put(r, SP + 0x20, TRAMP);
	assert_int_equal(ustack_uret__restore(r, 0x18), 1);	/* 0x20's word ends past it */
	assert_int_equal(get(r, SP + 0x10), 0xa000);
	assert_int_equal(get(r, SP + 0x20), TRAMP);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_slots),
		cmocka_unit_test(test_arm64_records_and_lr),
		cmocka_unit_test(test_x86_no_lr),
		cmocka_unit_test(test_chained),
		cmocka_unit_test(test_unknown_left),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
