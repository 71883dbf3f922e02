// SPDX-License-Identifier: BSD-2-Clause
/*
 * The stack view, one table: each case is a recorded session (the seed README's example,
 * varied) built into a sample and checked twice -- on the model (which frames, in which
 * order, with which markers and results) and on the rendered text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "records.h"
#include "sample_harness.h"

struct fake_sym {
	const char *name;
	__u64 start, size;
	int nsrc;
	struct src_frame src[3];	/* for the one call site of this function we use */
};

static const struct fake_sym syms[] = {
	{ "entry_SYSCALL_64_after_hwframe", 0x1000, 0x100, 1,
	  { { "entry_SYSCALL_64_after_hwframe", "arch/x86/entry/entry_64.S", 120, 0 } } },
	{ "do_syscall_64", 0x2000, 0x100, 2,
	  { { "do_syscall_64", "arch/x86/entry/common.c", 80, 7 },
	    { "do_syscall_x64", "arch/x86/entry/common.c", 50, 12 } } },
	{ "__x64_sys_bpf", 0x3000, 0x100, 1, { { "__x64_sys_bpf", "kernel/bpf/syscall.c", 5067, 1 } } },
	{ "__sys_bpf", 0x4000, 0x1000, 3,
	  { { "__sys_bpf", "kernel/bpf/syscall.c", 4947, 9 },
	    { "map_create", "kernel/bpf/syscall.c", 1106, 8 },
	    { "find_and_alloc_map", "kernel/bpf/syscall.c", 132, 5 } } },
	{ "bpf_trampoline_6442537193", 0x9000, 0x100, 0, {} },
	{ "map_create", 0x5000, 0x200, 0, {} },
	{ "bpf_prog_3a7c5a2d1b4e6f80_fexit3", 0xa000, 0x100, 0, {} },
	/* the prctl case: a wrapper that tail-calls an untraced function */
	{ "__x64_sys_prctl", 0x6000, 0x40, 1, { { "__x64_sys_prctl", "kernel/sys.c", 2469, 1 } } },
	{ "__do_sys_prctl", 0x7000, 0x800, 1, { { "__do_sys_prctl", "kernel/sys.c", 2502, 10 } } },
	{ "security_task_prctl", 0x8000, 0x100, 1,
	  { { "security_task_prctl", "security/security.c", 3179, 9 } } },
	/* foo calls do_foo, which tail-calls foo_impl */
	{ "foo", 0xb000, 0x100, 0, {} },
	{ "foo_impl", 0xc000, 0x100, 0, {} },
	/* __sys_bpf's unlikely paths, split out by GCC; and a clone of it, a function of its own */
	{ "__sys_bpf.cold", 0xd000, 0x100, 0, {} },
	{ "__sys_bpf.constprop.0", 0xe000, 0x100, 0, {} },
};

/* fake_src answers -EINTR (a lookup cut short) for addresses inside this symbol */
static const char *cut_sym;

static const struct fake_sym *find(__u64 addr)
{
	size_t i;

	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (addr >= syms[i].start && addr < syms[i].start + syms[i].size)
			return &syms[i];
	return NULL;
}

static bool fake_ksym(void *ctx, const struct addr_space *as, __u64 addr, struct sym_hit *hit)
{
	const struct fake_sym *s = find(addr);

	if (!s)
		return false;
	hit->name = s->name;
	hit->start = s->start;
	hit->size = s->size;
	return true;
}

static int fake_src(void *ctx, const struct addr_space *as, __u64 addr, struct src_frame *fr,
		    int max, const char **note)
{
	const struct fake_sym *s = find(addr);
	int i;

	if (!s)
		return 0;
	if (cut_sym && strcmp(s->name, cut_sym) == 0)
		return -EINTR;
	for (i = 0; i < s->nsrc && i < max; i++)
		fr[i] = s->src[i];
	return s->nsrc;
}

/* the source-line symbolizer gone (the sidecar crashed): every lookup says so */
static int failed_src(void *ctx, const struct addr_space *as, __u64 addr, struct src_frame *fr,
		      int max, const char **note)
{
	*note = "source-line symbolizer failed";
	return 0;
}

static const struct func funcs[] = {
	{ .name = "__x64_sys_bpf", .addr = 0x3000 },
	{ .name = "__sys_bpf", .addr = 0x4000, .flags = FUNC_NEEDS_SIGN_EXT },
	{ .name = "array_map_alloc", .flags = FUNC_RET_PTR },
	{ .name = "bpf_map_alloc_percpu", .flags = FUNC_RET_PTR },
	{ .name = "__x64_sys_prctl", .addr = 0x6000, .flags = FUNC_NEEDS_SIGN_EXT },
	{ .name = "security_task_prctl", .addr = 0x8000 },
	{ .name = "do_foo" },
};

#define FUNC_CNT (sizeof(funcs) / sizeof(funcs[0]))
#define MAX_CASE_FRAMES 12

/*
 * A case: the seed session (__x64_sys_bpf -ENOMEM -> __sys_bpf -ENOMEM -> array_map_alloc
 * ERR_PTR(-ENOMEM) -> bpf_map_alloc_percpu NULL) unless @func_ids says otherwise.
 */
struct stack_case {
	const char *name;
	__u64 kstack[MAX_CASE_FRAMES];	/* innermost first, as bpf_get_stack() returns it */
	int kcnt;
	int kerr;			/* bpf_get_stack()'s negative errno instead of kstack */
	int nfuncs;			/* traced frames; 0: the seed's 4 */
	int func_ids[MAX_CASE_FRAMES];
	__s64 res[MAX_CASE_FRAMES];
	__u64 lat[MAX_CASE_FRAMES];
	int depth;			/* frames still running */
	__u64 stitched;
	__u16 flags;			/* enum session_end_flags */
	bool not_err;			/* a -S success sample */
	bool with_src;
	bool src_failed;		/* the symbolizer is gone (failed_src) */
	const char *cut_sym;		/* its source lookups are cut short */
	bool unfiltered, emit_addrs, dec_offs;
	/* the model: one line per frame, see describe() */
	const char *model;
	const char *text;
};

/* exit(3) by the thread itself: NORET_EXIT_OWN, the wait status 3 << 8 */
#define EXIT3	(NORET_EXIT | NORET_EXIT_OWN | 0x300)
#define EXIT_CASE_TEXT \
"   --- the thread exited with status 3: no return seen ---\n" \
"       - [no return]  __x64_sys_bpf\n" \
"       - [no return]  __sys_bpf\n" \
"!   50us [-ENOMEM]    array_map_alloc\n" \
"^    2us [NULL]       bpf_map_alloc_percpu\n"
#define EXIT_JMP_MODEL \
"# exited: the process was killed by signal 9 (Killed)\n" \
"N x __x64_sys_bpf 4294967305\n" \
"N n do_foo 0\n" \
"N ! array_map_alloc -12\n"
#define EXIT_JMP_TEXT \
"   --- the process was killed by signal 9 (Killed): no return seen ---\n" \
"       - [no return]  __x64_sys_bpf\n" \
"   --- the kernel skipped its exit probe: no return seen ---\n" \
"       - [no return]  do_foo\n" \
"!   50us [-ENOMEM]    array_map_alloc\n"

/* The model of the seed's syscall entry frames, kallsyms only (see describe()). */
#define SEED_ENTRY_MODEL \
"K entry_SYSCALL_64_after_hwframe+0x63\n" \
"K do_syscall_64+0x35\n"

static const struct stack_case cases[] = {
{
	.name = "seed layout: the NULL of the deepest call was replaced by -ENOMEM",
	.kstack = { 0x438b, 0x301a, 0x2035, 0x1063 }, .kcnt = 4,
	.stitched = ~0ULL << 3, .with_src = true,
	.model =
"K entry_SYSCALL_64_after_hwframe+0x63 src=1\n"
"K do_syscall_64+0x35 src=2\n"
"T __x64_sys_bpf+0x1a -12 src=1\n"
"T __sys_bpf+0x38b 4294967284 src=3\n"
"N ! array_map_alloc -12\n"
"N ^* bpf_map_alloc_percpu 0\n",
	.text =
"                    entry_SYSCALL_64_after_hwframe+0x63  (arch/x86/entry/entry_64.S:120:0)\n"
"                    do_syscall_64+0x35                   (arch/x86/entry/common.c:80:7)\n"
"                    . do_syscall_x64                     (arch/x86/entry/common.c:50:12)\n"
"    73us [-ENOMEM]  __x64_sys_bpf+0x1a                   (kernel/bpf/syscall.c:5067:1)\n"
"    70us [-ENOMEM]  __sys_bpf+0x38b                      (kernel/bpf/syscall.c:4947:9)\n"
"                    . map_create                         (kernel/bpf/syscall.c:1106:8)\n"
"                    . find_and_alloc_map                 (kernel/bpf/syscall.c:132:5)\n"
"!   50us [-ENOMEM]  array_map_alloc\n"
"^*   2us [NULL]     bpf_map_alloc_percpu\n",
}, {
	.name = "kallsyms only",
	.kstack = { 0x438b, 0x301a, 0x2035, 0x1063 }, .kcnt = 4,
	.model =
SEED_ENTRY_MODEL
"T __x64_sys_bpf+0x1a -12\n"
"T __sys_bpf+0x38b 4294967284\n"
"N ! array_map_alloc -12\n"
"N ^ bpf_map_alloc_percpu 0\n",
	.text =
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    do_syscall_64+0x35\n"
"    73us [-ENOMEM]  __x64_sys_bpf+0x1a\n"
"    70us [-ENOMEM]  __sys_bpf+0x38b\n"
"!   50us [-ENOMEM]  array_map_alloc\n"
"^    2us [NULL]     bpf_map_alloc_percpu\n",
}, {
	.name = "one error all the way down: the deepest frame is the origin",
	.kstack = { 0x438b, 0x301a, 0x2035, 0x1063 }, .kcnt = 4,
	.nfuncs = 3, .func_ids = { 0, 1, 2 }, .res = { -22, -22, -22 }, .lat = { 9000, 8000, 10 },
	.model =
SEED_ENTRY_MODEL
"T __x64_sys_bpf+0x1a -22\n"
"T __sys_bpf+0x38b -22\n"
"N ! array_map_alloc -22\n",
	.text =
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    do_syscall_64+0x35\n"
"     9us [-EINVAL]  __x64_sys_bpf+0x1a\n"
"     8us [-EINVAL]  __sys_bpf+0x38b\n"
"!    0us [-EINVAL]  array_map_alloc\n",
}, {
	.name = "a caller with its own kernel frame made the error: the '!' is on it",
	.kstack = { 0x438b, 0x301a, 0x2035, 0x1063 }, .kcnt = 4,
	.nfuncs = 4, .func_ids = { 0, 1, 2, 3 }, .res = { -7, -7, -12, 0 },
	.lat = { 9000, 8000, 50, 2 },
	.model =
SEED_ENTRY_MODEL
"T __x64_sys_bpf+0x1a -7\n"
"T ! __sys_bpf+0x38b -7\n"
"N ^ array_map_alloc -12\n"
"N ^ bpf_map_alloc_percpu 0\n",
	.text =
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    do_syscall_64+0x35\n"
"     9us [-E2BIG]   __x64_sys_bpf+0x1a\n"
"!    8us [-E2BIG]   __sys_bpf+0x38b\n"
"^    0us [-ENOMEM]  array_map_alloc\n"
"^    0us [NULL]     bpf_map_alloc_percpu\n",
}, {
	.name = "a -S success sample has no origin and nothing replaced",
	.kstack = { 0x438b, 0x301a, 0x2035, 0x1063 }, .kcnt = 4, .not_err = true,
	.nfuncs = 3, .func_ids = { 0, 1, 2 }, .res = { 3, 3, 0xffff888000001000LL },
	.lat = { 9000, 8000, 10 },
	.model =
SEED_ENTRY_MODEL
"T __x64_sys_bpf+0x1a 3\n"
"T __sys_bpf+0x38b 3\n"
"N array_map_alloc -131391639515136\n",
	.text =
"                               entry_SYSCALL_64_after_hwframe+0x63\n"
"                               do_syscall_64+0x35\n"
"     9us [3]                   __x64_sys_bpf+0x1a\n"
"     8us [3]                   __sys_bpf+0x38b\n"
"     0us [0xffff888000001000]  array_map_alloc\n",
}, {
	.name = "BPF machinery frames are filtered",
	/* fexit pattern around __sys_bpf (IBT: F+0x9), around __x64_sys_bpf (F+0x5), a BPF prog */
	.kstack = { 0xa010, 0x438b, 0x9010, 0x4009, 0x301a, 0x9020, 0x3005, 0x2035, 0x1063 },
	.kcnt = 9,
	.model =
SEED_ENTRY_MODEL
"T __x64_sys_bpf+0x1a -12\n"
"T __sys_bpf+0x38b 4294967284\n"
"N ! array_map_alloc -12\n"
"N ^ bpf_map_alloc_percpu 0\n",
	.text =
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    do_syscall_64+0x35\n"
"    73us [-ENOMEM]  __x64_sys_bpf+0x1a\n"
"    70us [-ENOMEM]  __sys_bpf+0x38b\n"
"!   50us [-ENOMEM]  array_map_alloc\n"
"^    2us [NULL]     bpf_map_alloc_percpu\n",
}, {
	.name = "an untraced caller sits above __sys_bpf's callee",
	.kstack = { 0x5010, 0x438b, 0x301a, 0x2035, 0x1063 }, .kcnt = 5,
	.model =
SEED_ENTRY_MODEL
"T __x64_sys_bpf+0x1a -12\n"
"T __sys_bpf+0x38b 4294967284\n"
"K map_create+0x10\n"
"N ! array_map_alloc -12\n"
"N ^ bpf_map_alloc_percpu 0\n",
	.text =
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    do_syscall_64+0x35\n"
"    73us [-ENOMEM]  __x64_sys_bpf+0x1a\n"
"    70us [-ENOMEM]  __sys_bpf+0x38b\n"
"                    map_create+0x10\n"
"!   50us [-ENOMEM]  array_map_alloc\n"
"^    2us [NULL]     bpf_map_alloc_percpu\n",
}, {
	.name = "unfinished frames: the error followed is the outermost returned one's",
	.depth = 1,
	.model =
"N r __x64_sys_bpf\n"
"N __sys_bpf 4294967284\n"
"N ! array_map_alloc -12\n"
"N ^ bpf_map_alloc_percpu 0\n",
	.text =
"     ... [...]      __x64_sys_bpf\n"
"    70us [-ENOMEM]  __sys_bpf\n"
"!   50us [-ENOMEM]  array_map_alloc\n"
"^    2us [NULL]     bpf_map_alloc_percpu\n",
}, {
	.name = "a wrapper that tail-called its traced callee goes where it ran, once",
	/* __x64_sys_bpf left no frame: do_syscall_64 returns straight into __sys_bpf's caller */
	.kstack = { 0x438b, 0x2035, 0x1063 }, .kcnt = 3,
	.model =
SEED_ENTRY_MODEL
"N __x64_sys_bpf -12\n"
"T __sys_bpf+0x38b 4294967284\n"
"N ! array_map_alloc -12\n"
"N ^ bpf_map_alloc_percpu 0\n",
	.text =
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    do_syscall_64+0x35\n"
"    73us [-ENOMEM]  __x64_sys_bpf\n"
"    70us [-ENOMEM]  __sys_bpf+0x38b\n"
"!   50us [-ENOMEM]  array_map_alloc\n"
"^    2us [NULL]     bpf_map_alloc_percpu\n",
}, {
	/*
	 * The prctl case of issue 23: __x64_sys_prctl jumps to the untraced __do_sys_prctl,
	 * which made -EINVAL after security_task_prctl's -ENOSYS. Taken when
	 * security_task_prctl returned: its caller's frame is the last one.
	 */
	.name = "a wrapper that tail-called an untraced function sits above it",
	.kstack = { 0x7043, 0x2087, 0x1076 }, .kcnt = 3,
	.nfuncs = 2, .func_ids = { 4, 5 }, .res = { -22, -38 }, .lat = { 30000, 3000 },
	.model =
"K entry_SYSCALL_64_after_hwframe+0x76\n"
"K do_syscall_64+0x87\n"
"N ! __x64_sys_prctl -22\n"
"K __do_sys_prctl+0x43\n"
"N ^ security_task_prctl -38\n",
	.text =
"                    entry_SYSCALL_64_after_hwframe+0x76\n"
"                    do_syscall_64+0x87\n"
"!   30us [-EINVAL]  __x64_sys_prctl\n"
"                    __do_sys_prctl+0x43\n"
"^    3us [-ENOSYS]  security_task_prctl\n",
}, {
	.name = "the same, the stack taken deeper: the wrapper still sits above its target",
	.kstack = { 0x805e, 0x7043, 0x2087, 0x1076 }, .kcnt = 4,
	.nfuncs = 2, .func_ids = { 4, 5 }, .res = { -22, -38 }, .lat = { 30000, 3000 },
	.model =
"K entry_SYSCALL_64_after_hwframe+0x76\n"
"K do_syscall_64+0x87\n"
"N ! __x64_sys_prctl -22\n"
"K __do_sys_prctl+0x43\n"
"T ^ security_task_prctl+0x5e -38\n",
	.text =
"                    entry_SYSCALL_64_after_hwframe+0x76\n"
"                    do_syscall_64+0x87\n"
"!   30us [-EINVAL]  __x64_sys_prctl\n"
"                    __do_sys_prctl+0x43\n"
"^    3us [-ENOSYS]  security_task_prctl+0x5e\n",
}, {
	/* foo shares do_foo's stem but is a layer above it: its caller, not its target */
	.name = "a wrapper's caller is never taken for its tail-call target",
	.kstack = { 0xc020, 0xb010, 0x1063 }, .kcnt = 3,
	.nfuncs = 2, .func_ids = { 6, 5 }, .res = { -22, -22 }, .lat = { 30000, 3000 },
	.model =
"K entry_SYSCALL_64_after_hwframe+0x63\n"
"K foo+0x10\n"
"K foo_impl+0x20\n"
"N do_foo -22\n"
"N ! security_task_prctl -22\n",
	.text =
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    foo+0x10\n"
"                    foo_impl+0x20\n"
"    30us [-EINVAL]  do_foo\n"
"!    3us [-EINVAL]  security_task_prctl\n",
}, {
	/*
	 * 7.2's io_uring_setup() called io_prepare_config() from its cold part: the return
	 * address is in "io_uring_setup.cold", a frame of the traced io_uring_setup, not a
	 * caller above every traced frame
	 */
	.name = "a frame in a traced function's cold part is that function's frame",
	.kstack = { 0xd017, 0x301a, 0x2035, 0x1063 }, .kcnt = 4,
	.model =
SEED_ENTRY_MODEL
"T __x64_sys_bpf+0x1a -12\n"
"T __sys_bpf.cold+0x17 4294967284\n"
"N ! array_map_alloc -12\n"
"N ^ bpf_map_alloc_percpu 0\n",
	.text =
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    do_syscall_64+0x35\n"
"    73us [-ENOMEM]  __x64_sys_bpf+0x1a\n"
"    70us [-ENOMEM]  __sys_bpf.cold+0x17\n"
"!   50us [-ENOMEM]  array_map_alloc\n"
"^    2us [NULL]     bpf_map_alloc_percpu\n",
}, {
	.name = "a clone of a traced function (.constprop.0) is no frame of it",
	.kstack = { 0xe017, 0x301a, 0x2035, 0x1063 }, .kcnt = 4,
	.model =
SEED_ENTRY_MODEL
"T __x64_sys_bpf+0x1a -12\n"
"K __sys_bpf.constprop.0+0x17\n"
"N __sys_bpf 4294967284\n"
"N ! array_map_alloc -12\n"
"N ^ bpf_map_alloc_percpu 0\n",
	.text =
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    do_syscall_64+0x35\n"
"    73us [-ENOMEM]  __x64_sys_bpf+0x1a\n"
"                    __sys_bpf.constprop.0+0x17\n"
"    70us [-ENOMEM]  __sys_bpf\n"
"!   50us [-ENOMEM]  array_map_alloc\n"
"^    2us [NULL]     bpf_map_alloc_percpu\n",
}, {
	.name = "recursion: two traced frames of one name pair with its two kernel frames",
	.kstack = { 0x4400, 0x438b, 0x2035, 0x1063 }, .kcnt = 4,
	.nfuncs = 3, .func_ids = { 0, 1, 1 }, .res = { -12, -12, -12 },
	.lat = { 73123, 70999, 50000 },
	.model =
SEED_ENTRY_MODEL
"N __x64_sys_bpf -12\n"
"T __sys_bpf+0x38b -12\n"
"T ! __sys_bpf+0x400 -12\n",
	.text =
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    do_syscall_64+0x35\n"
"    73us [-ENOMEM]  __x64_sys_bpf\n"
"    70us [-ENOMEM]  __sys_bpf+0x38b\n"
"!   50us [-ENOMEM]  __sys_bpf+0x400\n",
}, {
	/* "F+0x9, bpf_trampoline_N, prog": F returned into its trampoline, no frame of its */
	.name = "the deepest call's own fexit program took the stack",
	.kstack = { 0xa010, 0x9010, 0x4009, 0x301a, 0x2035, 0x1063 }, .kcnt = 6,
	.nfuncs = 2, .func_ids = { 0, 1 }, .res = { -12, -12 }, .lat = { 73123, 70999 },
	.model =
SEED_ENTRY_MODEL
"T __x64_sys_bpf+0x1a -12\n"
"N ! __sys_bpf -12\n",
	.text =
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    do_syscall_64+0x35\n"
"    73us [-ENOMEM]  __x64_sys_bpf+0x1a\n"
"!   70us [-ENOMEM]  __sys_bpf\n",
}, {
	.name = "a kprobe's stack: nothing of BPF's inside __sys_bpf+0x9, a real frame",
	.kstack = { 0x4009, 0x301a, 0x2035, 0x1063 }, .kcnt = 4,
	.nfuncs = 2, .func_ids = { 0, 1 }, .res = { -12, -12 }, .lat = { 73123, 70999 },
	.model =
SEED_ENTRY_MODEL
"T __x64_sys_bpf+0x1a -12\n"
"T ! __sys_bpf+0x9 -12\n",
	.text =
"                    entry_SYSCALL_64_after_hwframe+0x63\n"
"                    do_syscall_64+0x35\n"
"    73us [-ENOMEM]  __x64_sys_bpf+0x1a\n"
"!   70us [-ENOMEM]  __sys_bpf+0x9\n",
}, {
	.name = "-C stacks.unfiltered/emit-addrs/dec-offs reach the output",
	.kstack = { 0xa010, 0x438b, 0x9010, 0x4009, 0x301a, 0x2035, 0x1063 }, .kcnt = 7,
	.unfiltered = true, .emit_addrs = true, .dec_offs = true,
	.model =
SEED_ENTRY_MODEL
"T __x64_sys_bpf+0x1a -12\n"
"K ~ __sys_bpf+0x9\n"
"K ~ bpf_trampoline_6442537193+0x10\n"
"T __sys_bpf+0x38b 4294967284\n"
"K ~ bpf_prog_3a7c5a2d1b4e6f80_fexit3+0x10\n"
"N ! array_map_alloc -12\n"
"N ^ bpf_map_alloc_percpu 0\n",
	.text =
"                     0000000000001063 entry_SYSCALL_64_after_hwframe+99\n"
"                     0000000000002035 do_syscall_64+53\n"
"    73us [-ENOMEM]   000000000000301a __x64_sys_bpf+26\n"
"                    ~0000000000004009 __sys_bpf+9\n"
"                    ~0000000000009010 bpf_trampoline_6442537193+16\n"
"    70us [-ENOMEM]   000000000000438b __sys_bpf+907\n"
"                    ~000000000000a010 bpf_prog_3a7c5a2d1b4e6f80_fexit3+16\n"
"!   50us [-ENOMEM]                    array_map_alloc\n"
"^    2us [NULL]                       bpf_map_alloc_percpu\n",
}, {
	/* every frame keeps its symbol, and where its line would be it says why there is none */
	.name = "the source-line symbolizer gone: each frame says so",
	.kstack = { 0x438b, 0x301a, 0x2035, 0x1063 }, .kcnt = 4, .src_failed = true,
	.model =
"K entry_SYSCALL_64_after_hwframe+0x63 (source-line symbolizer failed)\n"
"K do_syscall_64+0x35 (source-line symbolizer failed)\n"
"T __x64_sys_bpf+0x1a -12 (source-line symbolizer failed)\n"
"T __sys_bpf+0x38b 4294967284 (source-line symbolizer failed)\n"
"N ! array_map_alloc -12\n"
"N ^ bpf_map_alloc_percpu 0\n",
	.text =
"                    entry_SYSCALL_64_after_hwframe+0x63  (source-line symbolizer failed)\n"
"                    do_syscall_64+0x35                   (source-line symbolizer failed)\n"
"    73us [-ENOMEM]  __x64_sys_bpf+0x1a                   (source-line symbolizer failed)\n"
"    70us [-ENOMEM]  __sys_bpf+0x38b                      (source-line symbolizer failed)\n"
"!   50us [-ENOMEM]  array_map_alloc\n"
"^    2us [NULL]     bpf_map_alloc_percpu\n",
}, {
	/* a second Ctrl-C while symbolizing: never a silently poorer frame */
	.name = "a source lookup cut short says so, in the model and the text",
	.kstack = { 0x438b, 0x301a, 0x2035, 0x1063 }, .kcnt = 4,
	.with_src = true, .cut_sym = "__sys_bpf",
	.model =
"K entry_SYSCALL_64_after_hwframe+0x63 src=1\n"
"K do_syscall_64+0x35 src=2\n"
"T __x64_sys_bpf+0x1a -12 src=1\n"
"T __sys_bpf+0x38b 4294967284 (source lookup cut short)\n"
"N ! array_map_alloc -12\n"
"N ^ bpf_map_alloc_percpu 0\n",
	.text =
"                    entry_SYSCALL_64_after_hwframe+0x63  (arch/x86/entry/entry_64.S:120:0)\n"
"                    do_syscall_64+0x35                   (arch/x86/entry/common.c:80:7)\n"
"                    . do_syscall_x64                     (arch/x86/entry/common.c:50:12)\n"
"    73us [-ENOMEM]  __x64_sys_bpf+0x1a                   (kernel/bpf/syscall.c:5067:1)\n"
"    70us [-ENOMEM]  __sys_bpf+0x38b                      (source lookup cut short)\n"
"!   50us [-ENOMEM]  array_map_alloc\n"
"^    2us [NULL]     bpf_map_alloc_percpu\n",
}, {
	.name = "the kernel could not take the stack: said above the traced frames",
	.kerr = -EFAULT,
	.nfuncs = 2, .func_ids = { 4, 5 }, .res = { -22, -38 }, .lat = { 9000, 10 },
	.model =
"# the kernel could not take it (-EFAULT)\n"
"N ! __x64_sys_prctl -22\n"
"N ^ security_task_prctl -38\n",
	.text =
"   [no kernel stack: the kernel could not take it (-EFAULT)]\n"
"!    9us [-EINVAL]  __x64_sys_prctl\n"
"^    0us [-ENOSYS]  security_task_prctl\n",
}, {
	.name = "the unwinder stopped in the probe: only its machinery, all hidden",
	.kstack = { 0xa010, 0x9010 }, .kcnt = 2,
	.nfuncs = 2, .func_ids = { 4, 5 }, .res = { -22, -38 }, .lat = { 9000, 10 },
	.model =
"# the kernel's unwinder stopped inside the probe\n"
"N ! __x64_sys_prctl -22\n"
"N ^ security_task_prctl -38\n",
	.text =
"   [no kernel stack: the kernel's unwinder stopped inside the probe]\n"
"!    9us [-EINVAL]  __x64_sys_prctl\n"
"^    0us [-ENOSYS]  security_task_prctl\n",
}, {
	/*
	 * exit(3) inside the session (exit_cut.bpf.h): the frames still running never
	 * returned, for that reason, above the chain that failed last
	 */
	.name = "the thread exited inside the session: a rule with its status, no-return frames",
	.flags = SESS_F_EXITED,
	.nfuncs = 4, .func_ids = { 0, 1, 2, 3 },
	.res = { EXIT3, EXIT3, -12, 0 },
	.lat = { LAT_NO_RETURN | 90000, LAT_NO_RETURN | 80000, 50000, 2500 },
	.model =
"# exited: the thread exited with status 3\n"
"N x __x64_sys_bpf 12884902656\n"
"N x __sys_bpf 12884902656\n"
"N ! array_map_alloc -12\n"
"N ^ bpf_map_alloc_percpu 0\n",
	.text = EXIT_CASE_TEXT,
}, {
	/*
	 * a frame that never returned for another reason under one the exit cut: each run
	 * of them has its own rule
	 */
	.name = "exit-cut frames above one left otherwise: two rules, each its own reason",
	.flags = SESS_F_EXITED,
	.nfuncs = 3, .func_ids = { 0, 6, 2 },
	.res = { NORET_EXIT | 9, 0, -12 },
	.lat = { LAT_NO_RETURN | 90000, LAT_NO_RETURN | 80000, 50000 },
	.model = EXIT_JMP_MODEL,
	.text = EXIT_JMP_TEXT,
},
};

static void fill_end(const struct stack_case *c, struct rec_session_end *e)
{
	static const __s64 seed_res[] = { -12, 0xffffffffLL - 11, -12, 0 };
	static const __u64 seed_lat[] = { 73123, 70999, 50000, 2500 };
	struct call_stack *cs = &e->stack;
	int i, n = c->nfuncs ?: 4;

	memset(e, 0, sizeof(*e));
	e->is_err = !c->not_err;
	for (i = 0; i < n; i++) {
		cs->func_ids[i] = c->nfuncs ? c->func_ids[i] : i;
		cs->func_res[i] = c->nfuncs ? c->res[i] : seed_res[i];
		cs->func_lat[i] = c->nfuncs ? c->lat[i] : seed_lat[i];
	}
	cs->max_depth = n;
	cs->depth = c->depth;
	cs->stitched = c->stitched;
	e->flags = c->flags;
	memcpy(cs->kstack, c->kstack, c->kcnt * sizeof(c->kstack[0]));
	cs->kstack_sz = c->kerr ?: (int)(c->kcnt * sizeof(c->kstack[0]));
}

/*
 * One line per frame of the model: K (kernel frame only), T (traced, with its kernel
 * frame) or N (traced, none); then the markers (!, ^, *, r: running, ~: filtered, x: no return, cut by the thread's exit,
 * n: no return, another reason); the
 * symbol+offset or the function; the raw result; the source frame count or, in
 * parentheses, why there is none (code_loc.src_note). First, "# why" when the sample has
 * no kernel frame at all (sample.kstack_note).
 */
static char *describe(const struct sample *s)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (s->kstack_note)
		fprintf(f, "# %s\n", s->kstack_note);
	if (s->exited)
		fprintf(f, "# exited: %s\n", s->exit_why);
	for (i = 0; i < s->frame_cnt; i++) {
		const struct sample_frame *fr = &s->frames[i];
		char marks[8] = "";
		int m = 0;

		if (fr->origin)
			marks[m++] = '!';
		if (fr->replaced)
			marks[m++] = '^';
		if (fr->stitched)
			marks[m++] = '*';
		if (fr->running)
			marks[m++] = 'r';
		if (fr->filtered)
			marks[m++] = '~';
		if (fr->exit_cut)
			marks[m++] = 'x';
		else if (fr->no_return)
			marks[m++] = 'n';
		fprintf(f, "%c%s%s ", fr->func_id < 0 ? 'K' : fr->has_kframe ? 'T' : 'N',
			m ? " " : "", marks);
		if (fr->has_kframe)
			fprintf(f, "%s+0x%llx", fr->loc.sym,
				(unsigned long long)(fr->loc.addr - fr->loc.sym_start));
		else
			fprintf(f, "%s", sample__func(s, fr->func_id)->name);
		if (fr->func_id >= 0 && !fr->running)
			fprintf(f, " %lld", (long long)fr->res);
		if (fr->loc.src_note)
			fprintf(f, " (%s)", fr->loc.src_note);
		else if (fr->has_kframe && fr->loc.src_cnt)
			fprintf(f, " src=%d", fr->loc.src_cnt);
		fprintf(f, "\n");
	}
	fclose(f);
	return buf;
}

static void run_case(const struct stack_case *c)
{
	struct sym_resolver rs = {
		.sym = fake_ksym,
		.src = c->src_failed ? failed_src : c->with_src ? fake_src : NULL,
	};
	struct rec_session_start st = {};
	struct rec_session_end e;
	struct sess_recs r = { .start = &st, .end = &e };
	struct sample_build_opts b = { .sz = sizeof(b), .funcs = funcs, .func_cnt = FUNC_CNT,
				       .syms = rs,
				       .view = { .stack = true, .unfiltered = c->unfiltered,
						 .emit_addrs = c->emit_addrs, .dec_offs = c->dec_offs } };
	struct sample *s;
	char *model, *text;

	cut_sym = c->cut_sym;
	fill_end(c, &e);
	assert_int_equal(sample__build(&r, &b, &s), 0);
	model = describe(s);
	if (strcmp(model, c->model) != 0)
		print_error("case '%s': model\n%s\nwant\n%s\n", c->name, model, c->model);
	assert_string_equal(model, c->model);
	sample__free(s);
	free(model);

	text = harness_render(&r, &b, render_stack);
	if (strcmp(text, c->text) != 0)
		print_error("case '%s': text\n%s\nwant\n%s\n", c->name, text, c->text);
	assert_string_equal(text, c->text);
	free(text);
	cut_sym = NULL;
}

static void test_stack_cases(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stack_cases),
	};

	return cmocka_run_group_tests_name("render_stack", tests, NULL, NULL);
}
