// SPDX-License-Identifier: BSD-2-Clause
/*
 * The ring buffer reader (ringbuf_reader.c): records in order, one that wraps around the
 * end of the data area read in one piece, discarded ones skipped, a busy one waited for,
 * a callback's error returned with its record consumed. First on a ring laid out in
 * memory, then on a real BPF ring buffer filled by a BPF program (the host kernel).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include "unit.h"
#include "ringbuf_reader.h"

#define DATA_SZ 64

struct fake_ring {
	unsigned long cons, prod;
	__u8 data[DATA_SZ];
};

struct seen {
	int cnt;
	size_t len[16];
	__u8 bytes[16][40];
	int fail_at;		/* the callback fails on this record (1-based), 0: never */
};

static int on_sample(void *ctx, void *data, size_t size)
{
	struct seen *s = ctx;

	assert_true(s->cnt < 16 && size <= sizeof(s->bytes[0]));
	s->len[s->cnt] = size;
	memcpy(s->bytes[s->cnt], data, size);
	s->cnt++;
	return s->cnt == s->fail_at ? -E2BIG : 0;
}

/* Reserve a record of @len bytes filled with @fill at the producer position, as BPF does. */
static unsigned long produce(struct fake_ring *r, __u32 len, __u8 fill, __u32 flags)
{
	unsigned long pos = r->prod, i;
	__u32 hdr = len | flags;

	memcpy(&r->data[pos & (DATA_SZ - 1)], &hdr, sizeof(hdr));
	for (i = 0; i < len; i++)
		r->data[(pos + 8 + i) & (DATA_SZ - 1)] = fill;
	r->prod += (len + 8 + 7) & ~7ul;
	return pos;
}

static void commit(struct fake_ring *r, unsigned long pos)
{
	__u32 *hdr = (__u32 *)&r->data[pos & (DATA_SZ - 1)];

	*hdr &= ~BPF_RINGBUF_BUSY_BIT;
}

static void check_fill(const struct seen *s, int i, size_t len, __u8 fill)
{
	size_t j;

	assert_int_equal(s->len[i], len);
	for (j = 0; j < len; j++)
		assert_int_equal(s->bytes[i][j], fill);
}

static void test_wrap_and_discard(void **state)
{
	struct fake_ring r = { 0 };
	struct seen s = { 0 };
	struct ringbuf_reader *rd;

	rd = ringbuf_reader__new_mem(&r.cons, &r.prod, r.data, DATA_SZ, on_sample, &s);
	assert_non_null(rd);
	produce(&r, 20, 0xaa, 0);			/* [0, 32) */
	produce(&r, 4, 0xbb, BPF_RINGBUF_DISCARD_BIT);	/* [32, 48) */
	assert_int_equal(ringbuf_reader__consume(rd), 1);
	assert_int_equal(r.cons, 48);
	/* [48, 80): its 20 bytes start at 56 and go on at 0 */
	produce(&r, 20, 0xcc, 0);
	produce(&r, 1, 0xdd, 0);			/* [80, 96) */
	assert_int_equal(ringbuf_reader__consume(rd), 2);
	assert_int_equal(r.cons, 96);
	assert_int_equal(s.cnt, 3);
	check_fill(&s, 0, 20, 0xaa);
	check_fill(&s, 1, 20, 0xcc);
	check_fill(&s, 2, 1, 0xdd);
	/* nothing new: nothing read */
	assert_int_equal(ringbuf_reader__poll(rd, 0), 0);
	ringbuf_reader__free(rd);
}

static void test_busy_waits(void **state)
{
	struct fake_ring r = { 0 };
	struct seen s = { 0 };
	struct ringbuf_reader *rd;
	unsigned long busy;

	rd = ringbuf_reader__new_mem(&r.cons, &r.prod, r.data, DATA_SZ, on_sample, &s);
	assert_non_null(rd);
	produce(&r, 8, 0x11, 0);
	busy = produce(&r, 8, 0x22, BPF_RINGBUF_BUSY_BIT);
	produce(&r, 8, 0x33, 0);
	/* the committed record after a busy one waits for it: order is kept */
	assert_int_equal(ringbuf_reader__consume(rd), 1);
	assert_int_equal(r.cons, busy);
	commit(&r, busy);
	assert_int_equal(ringbuf_reader__consume(rd), 2);
	assert_int_equal(r.cons, r.prod);
	check_fill(&s, 1, 8, 0x22);
	check_fill(&s, 2, 8, 0x33);
	ringbuf_reader__free(rd);
}

static void test_callback_error(void **state)
{
	struct fake_ring r = { 0 };
	struct seen s = { .fail_at = 1 };
	struct ringbuf_reader *rd;

	rd = ringbuf_reader__new_mem(&r.cons, &r.prod, r.data, DATA_SZ, on_sample, &s);
	assert_non_null(rd);
	produce(&r, 8, 0x44, 0);
	produce(&r, 8, 0x55, 0);
	assert_int_equal(ringbuf_reader__consume(rd), -E2BIG);
	/* the record it failed on is consumed, the next one is still there */
	assert_int_equal(r.cons, 16);
	assert_int_equal(ringbuf_reader__consume(rd), 1);
	assert_int_equal(s.cnt, 2);
	check_fill(&s, 1, 8, 0x55);
	assert_null(ringbuf_reader__new_mem(&r.cons, &r.prod, r.data, 48, on_sample, &s));
	/* a reader of memory has nothing to wait on */
	assert_int_equal(ringbuf_reader__wake_once_on(rd, 0), -EINVAL);
	assert_int_equal(ringbuf_reader__wake_on(rd, 0), -EINVAL);
	ringbuf_reader__free(rd);
}

/* BPF instructions, spelled out: the test builds its program without clang */
static struct bpf_insn insn(__u8 code, __u8 dst, __u8 src, __s16 off, __s32 imm)
{
	struct bpf_insn i = { .code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm };

	return i;
}

#define REC_LEN 40	/* 48 bytes with its header: some records straddle a page's end */

/* A socket filter that writes REC_LEN bytes, k + 1 in byte k, to @map_fd. */
static int load_writer_prog(int map_fd)
{
	struct bpf_insn prog[REC_LEN + 16];
	int n = 0, k;

	for (k = 0; k < REC_LEN; k++)
		prog[n++] = insn(BPF_ST | BPF_MEM | BPF_B, BPF_REG_10, 0, -REC_LEN + k, k + 1);
	/* r1 = map (ld_imm64, pseudo map fd) */
	prog[n++] = insn(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd);
	prog[n++] = insn(0, 0, 0, 0, 0);
	prog[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0);
	prog[n++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -REC_LEN);
	prog[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, REC_LEN);
	prog[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_4, 0, 0, 0);
	prog[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ringbuf_output);
	prog[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	prog[n++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "rb_writer", "GPL", prog, n, NULL);
}

static int count_and_check(void *ctx, void *data, size_t size)
{
	const __u8 *b = data;
	size_t k;

	assert_int_equal(size, REC_LEN);
	for (k = 0; k < REC_LEN; k++)
		assert_int_equal(b[k], k + 1);
	(*(int *)ctx)++;
	return 0;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* A poll that returns long before its 10 s: something woke it. */
static void assert_woken(struct ringbuf_reader *rd)
{
	long long t0 = mono_ms();

	assert_int_equal(ringbuf_reader__poll(rd, 10000), 0);
	assert_true(mono_ms() - t0 < 10000);
}

/* A poll that waits its whole 50 ms: nothing woke it. */
static void assert_waits(struct ringbuf_reader *rd)
{
	long long t0 = mono_ms();

	assert_int_equal(ringbuf_reader__poll(rd, 50), 0);
	assert_true(mono_ms() - t0 >= 50);
}

/*
 * A descriptor made readable wakes a poll with no record (it would wait 10 s else), once:
 * left readable, it wakes no later poll, which waits its whole timeout (a lower bound the
 * kernel keeps: epoll_wait() returns early only for an event or a signal).
 */
static void check_wake_once(struct ringbuf_reader *rd)
{
	__u64 one = 1;
	int efd = eventfd(0, EFD_CLOEXEC);

	assert_true(efd >= 0);
	assert_int_equal(ringbuf_reader__wake_once_on(rd, efd), 0);
	assert_int_equal(write(efd, &one, sizeof(one)), sizeof(one));
	assert_woken(rd);
	assert_waits(rd);
	assert_int_equal(ringbuf_reader__wake_once_on(rd, -1), -EINVAL);
	close(efd);
}

/*
 * A descriptor given to wake_on() wakes every poll while it is readable, not once: a pipe
 * with a byte in it, twice (the byte read in between, when a poll waits its whole
 * timeout). Hung up (its write end closed), it wakes one poll and is dropped: ready for
 * good, it would turn each later poll into a spin; the next poll waits its timeout.
 */
static void check_wake_on(struct ringbuf_reader *rd, int map_fd)
{
	int p[2], round;
	char c = 'x';

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(ringbuf_reader__wake_on(rd, p[0]), 0);
	for (round = 0; round < 2; round++) {
		assert_int_equal(write(p[1], &c, 1), 1);
		assert_woken(rd);
		assert_int_equal(read(p[0], &c, 1), 1);
		assert_waits(rd);
	}
	close(p[1]);
	assert_woken(rd);
	assert_waits(rd);
	close(p[0]);
	assert_int_equal(ringbuf_reader__wake_on(rd, -1), -EINVAL);
	/* the ring's own descriptor is waited on already */
	assert_int_equal(ringbuf_reader__wake_on(rd, map_fd), -EINVAL);
}

static void test_real_map(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	__u8 pkt[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = pkt, .data_size_in = sizeof(pkt));
	struct ringbuf_reader *rd;
	int map_fd, prog_fd, got = 0, i, round;

	map_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "rb_test", 0, 0, page, NULL);
	if (map_fd < 0 && (errno == EPERM || errno == EACCES))
		skip();	/* no BPF here: reported as skipped, never as passed */
	assert_true(map_fd >= 0);
	prog_fd = load_writer_prog(map_fd);
	if (prog_fd < 0 && (errno == EPERM || errno == EACCES)) {
		close(map_fd);
		skip();
	}
	assert_true(prog_fd >= 0);
	rd = ringbuf_reader__new(map_fd, count_and_check, &got, NULL);
	assert_non_null(rd);
	/* several laps of a one-page ring: 48-byte records straddle its end now and then */
	for (round = 0; round < 10; round++) {
		for (i = 0; i < 50; i++)
			assert_int_equal(bpf_prog_test_run_opts(prog_fd, &run), 0);
		assert_int_equal(ringbuf_reader__poll(rd, 100), 50);
	}
	assert_int_equal(got, 500);
	assert_int_equal(ringbuf_reader__poll(rd, 0), 0);
	check_wake_once(rd);
	check_wake_on(rd, map_fd);
	ringbuf_reader__free(rd);
	/* not a ring buffer: refused */
	assert_null(ringbuf_reader__new(prog_fd, count_and_check, &got, NULL));
	close(prog_fd);
	close(map_fd);
}

#define VAL_SZ 12288	/* the largest record: three times the window below */

/* byte @k of every record: its data comes from the start of one map value */
static __u8 pattern(size_t k)
{
	return (k * 7 + 1) & 0xff;
}

/*
 * A socket filter that writes the first 4 * skb->len bytes of @val_fd's only value to the
 * ring @map_fd: records of any size up to VAL_SZ, from one program.
 */
static int load_sized_writer(int map_fd, int val_fd)
{
	struct bpf_insn prog[] = {
		insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_3, BPF_REG_1, 0, 0),
		insn(BPF_ALU64 | BPF_LSH | BPF_K, BPF_REG_3, 0, 0, 2),
		insn(BPF_JMP | BPF_JGT | BPF_K, BPF_REG_3, 0, 6, VAL_SZ),
		insn(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd),
		insn(0, 0, 0, 0, 0),
		/* r2 = the address of the value's first byte */
		insn(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_2, BPF_PSEUDO_MAP_VALUE, 0, val_fd),
		insn(0, 0, 0, 0, 0),
		insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_4, 0, 0, 0),
		insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ringbuf_output),
		insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	/* skb->len is the context's first field (struct __sk_buff) */
	return bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "rb_sized", "GPL", prog,
			     sizeof(prog) / sizeof(prog[0]), NULL);
}

struct sized {
	int cnt;
	size_t want[8];		/* the sizes written since the last poll */
};

static int check_sized(void *ctx, void *data, size_t size)
{
	struct sized *s = ctx;
	const __u8 *b = data;
	size_t k;

	assert_true(s->cnt < 8);
	assert_int_equal(size, s->want[s->cnt]);
	for (k = 0; k < size; k++)
		if (b[k] != pattern(k))
			fail_msg("record %d byte %zu: %u, not %u", s->cnt, k, b[k], pattern(k));
	s->cnt++;
	return 0;
}

/* Bytes of this process's mappings of BPF maps (a ring buffer's, here): /proc/self/maps. */
static size_t bpf_map_mappings(void)
{
	unsigned long lo, hi;
	size_t total = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "bpf-map") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			total += hi - lo;
	fclose(f);
	return total;
}

/*
 * A 64 kB ring read through a one-page window: records from 56 bytes to three pages,
 * wrapping around the end of the area now and then, each read whole and in order; what
 * the reader maps stays the window (or the one record larger than it) and its two pages.
 */
static void test_real_map_window(void **state)
{
	LIBBPF_OPTS(ringbuf_reader_opts, ro);
	long page = sysconf(_SC_PAGESIZE);
	static __u8 val[VAL_SZ], pkt[VAL_SZ / 4];
	LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = pkt);
	struct sized s = { 0 };
	struct ringbuf_reader *rd;
	int map_fd, val_fd, prog_fd, round, i;
	__u32 zero = 0, seed = 1;
	size_t k, most = 0;

	map_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "rb_window", 0, 0, 16 * page, NULL);
	if (map_fd < 0 && (errno == EPERM || errno == EACCES))
		skip();	/* no BPF here: reported as skipped, never as passed */
	assert_true(map_fd >= 0);
	val_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rb_val", 4, VAL_SZ, 1, NULL);
	assert_true(val_fd >= 0);
	for (k = 0; k < VAL_SZ; k++)
		val[k] = pattern(k);
	assert_int_equal(bpf_map_update_elem(val_fd, &zero, val, 0), 0);
	prog_fd = load_sized_writer(map_fd, val_fd);
	/* EACCES is the verifier's refusal: a failure, not a skip */
	if (prog_fd < 0 && errno == EPERM) {
		close(val_fd);
		close(map_fd);
		skip();
	}
	assert_true(prog_fd >= 0);
	ro.window_sz = page;
	rd = ringbuf_reader__new(map_fd, check_sized, &s, &ro);
	assert_non_null(rd);
	assert_int_equal(bpf_map_mappings(), 2 * page);
	for (round = 0; round < 200; round++) {
		s.cnt = 0;
		/* three records of up to 12 kB each fit the 64 kB ring */
		for (i = 0; i < 3; i++) {
			seed = seed * 1103515245 + 12345;
			run.data_size_in = 15 + (seed >> 8) % (VAL_SZ / 4 - 15 + 1);
			/* the last run's output size, handed back: no output is asked for */
			run.data_size_out = 0;
			/* the test run's skb: the packet past its 14-byte Ethernet header */
			s.want[i] = 4 * (run.data_size_in - 14);
			if (s.want[i] > most)
				most = s.want[i];
			assert_int_equal(bpf_prog_test_run_opts(prog_fd, &run), 0);
		}
		assert_int_equal(ringbuf_reader__poll(rd, 100), 3);
		assert_int_equal(s.cnt, 3);
		/* the window, widened for a record larger than it, and the two position pages */
		assert_true(bpf_map_mappings() <= 2 * page + ((most + 8 + 2 * page - 1) & ~(page - 1)));
	}
	assert_true(most > (size_t)page);
	/* 200 x 3 records of 6 kB on average: the window moved at least once per lap */
	assert_true(ringbuf_reader__window_maps(rd) >= (uint64_t)(200 * 3 * 6000 / (16 * page)));
	assert_int_equal(ringbuf_reader__poll(rd, 0), 0);
	ringbuf_reader__free(rd);
	assert_int_equal(bpf_map_mappings(), 0);
	/* opts from a newer caller with a field this build doesn't know set: refused */
	{
		char big[sizeof(ro) + 8] = { 0 };
		size_t sz = sizeof(big);

		memcpy(big, &sz, sizeof(sz));
		big[sizeof(ro)] = 1;
		errno = 0;
		assert_null(ringbuf_reader__new(map_fd, check_sized, &s, (void *)big));
		assert_int_equal(errno, EINVAL);
	}
	close(prog_fd);
	close(val_fd);
	close(map_fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrap_and_discard),
		cmocka_unit_test(test_busy_waits),
		cmocka_unit_test(test_callback_error),
		cmocka_unit_test(test_real_map),
		cmocka_unit_test(test_real_map_window),
	};

	return cmocka_run_group_tests_name("ringbuf_reader", tests, NULL, NULL);
}
