// SPDX-License-Identifier: BSD-2-Clause
/* The kprobe.multi ip -> function id table: what user space places, BPF's lookup finds. */
#include <errno.h>
#include <stdlib.h>
#include "unit.h"
#include "ip_slot_table.h"

static void test_bits(void **state)
{
	assert_int_equal(ip_slots__bits(0), 1);
	assert_int_equal(ip_slots__bits(1), 1);
	assert_int_equal(ip_slots__bits(2), 2);
	assert_int_equal(ip_slots__bits(3), 3);		/* at most half full */
	assert_int_equal(ip_slots__bits(1000), 11);
	assert_int_equal(ip_slots__bits((size_t)1 << 30), IP_SLOTS_MAX_BITS);
}

/* Kernel-text-like addresses, 16-byte aligned and close together: the real pattern. */
static void test_kernel_like_set(void **state)
{
	const size_t cnt = 60000;
	__u32 bits = ip_slots__bits(cnt), id, placed = 0, i;
	struct ip_slot *tab = calloc((size_t)1 << bits, sizeof(*tab));
	__u64 base = 0xffffffff81000000ULL;

	assert_non_null(tab);
	for (i = 0; i < cnt; i++) {
		int s = ip_slots__place(tab, bits, base + i * 48, i);

		assert_true(s >= 0 || s == -ENOSPC);
		placed += s >= 0;
	}
	/* nearly all find a slot; the rest take the cookie */
	assert_true(placed > cnt * 95 / 100);
	for (i = 0; i < cnt; i++) {
		int err = ip_slots__find(tab, bits, base + i * 48, &id);

		assert_true(err == 0 || err == -ENOENT);
		if (!err)
			assert_int_equal(id, i);	/* a hit is never another function */
	}
	/* addresses not traced are not found */
	assert_int_equal(ip_slots__find(tab, bits, base + 8, &id), -ENOENT);
	assert_int_equal(ip_slots__find(tab, bits, base - 48, &id), -ENOENT);
	free(tab);
}

static void test_duplicates_and_full(void **state)
{
	struct ip_slot tab[2] = {};
	__u32 id = 99;

	assert_true(ip_slots__place(tab, 1, 0x1000, 7) >= 0);
	assert_int_equal(ip_slots__place(tab, 1, 0x1000, 8), -EEXIST);	/* the first id stays */
	assert_int_equal(ip_slots__find(tab, 1, 0x1000, &id), 0);
	assert_int_equal(id, 7);
	assert_int_equal(ip_slots__place(tab, 1, 0, 1), -EINVAL);	/* 0 marks a free slot */
	assert_true(ip_slots__place(tab, 1, 0x2000, 9) >= 0);
	assert_int_equal(ip_slots__place(tab, 1, 0x3000, 10), -ENOSPC);
	assert_int_equal(ip_slots__find(tab, 1, 0x3000, &id), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bits),
		cmocka_unit_test(test_kernel_like_set),
		cmocka_unit_test(test_duplicates_and_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
