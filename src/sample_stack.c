// SPDX-License-Identifier: BSD-2-Clause
/*
 * The stack view's frames: the traced chain [0, max_depth) merged with the kernel stack
 * captured where the error originated, outermost first, each frame once.
 *
 * A traced function normally has its own frame in the kernel stack (a return address
 * inside it) and both become one line. Some have none: the deepest ones had returned when
 * the stack was taken, and wrappers that tail-call (__x64_sys_perf_event_open, inet_bind,
 * __x64_sys_mmap -> ksys_mmap_pgoff) left no frame. Pairing traced and kernel frames by
 * name as a longest common subsequence keeps every pairing that exists; the unpaired
 * traced frames go where they ran: after the kernel frames of their callers, before the
 * next pair -- and before the function they tail-called, when that one left a frame
 * (__x64_sys_prctl jumps to an untraced __do_sys_prctl, whose frame sits between
 * do_syscall_64's and the traced callee's: the wrapper goes above it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "result_fmt.h"
#include "errnos.h"
#include "sample_internal.h"

struct kframe {
	__u64 addr;
	const char *name;	/* NULL if no symbol covers addr */
	__u64 start;
	bool filtered;		/* retsnoop's own machinery */
	bool dropped;		/* fexit's duplicate caller frame */
};

/* Frames of retsnoop's own machinery that say nothing about the traced code. */
static bool is_bpf_internal(const char *name)
{
	const char *p;
	bool digit = false;

	if (!name)
		return false;
	if (strncmp(name, "bpf_trampoline_", 15) == 0) {
		p = name + 15;
		if (!*p)
			return false;
		for (; *p; p++)
			if (*p < '0' || *p > '9')
				return false;
		return true;
	}
	if (strcmp(name, "bpf_get_stack_raw_tp") == 0)
		return true;
	/* bpf_prog_<tag>_<name>, the tag being hex with at least one decimal digit */
	if (strncmp(name, "bpf_prog_", 9) == 0) {
		for (p = name + 9; *p && *p != '_'; p++) {
			if (*p >= '0' && *p <= '9')
				digit = true;
			else if (!(*p >= 'a' && *p <= 'f'))
				return false;
		}
		return *p == '_' && p > name + 9 && digit;
	}
	return false;
}

/*
 * Frames of the probe machinery a stack taken by unwinding the current task starts with
 * (innermost first): the BPF helper, the probe's handlers, the return trampoline.
 */
static bool is_probe_machinery(const char *name)
{
	static const char *const names[] = {
		"return_to_handler", "ftrace_return_to_handler", "function_graph_enter_regs",
		"arch_rethook_trampoline", "arch_rethook_trampoline_callback",
		"kretprobe_trampoline", "__kretprobe_trampoline", "trampoline_handler",
		"bpf_get_stack", "bpf_get_task_stack",
	};
	static const char *const prefixes[] = {
		"__bpf_get_stack", "__bpf_get_task_stack", "fprobe_", "kprobe_multi_link_",
		"rethook_", "bpf_trace_run",
	};
	size_t i;

	if (!name)
		return false;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return is_bpf_internal(name);
}

/*
 * Offsets in a function where its entry's call into a BPF trampoline returns to. x86: a
 * 5-byte call at the start (behind a 4-byte IBT endbr64: 9); arm64: "mov x9, lr; bl"
 * (behind a 4-byte BTI landing pad: 12).
 */
static bool is_tramp_call_ret(__u64 off)
{
#if defined(__aarch64__)
	return off == 8 || off == 12;
#else
	return off == 5 || off == 9;
#endif
}

/* Kernel stack outermost first, resolved, retsnoop's own frames marked. */
static int collect_kframes(const struct call_stack *cs, const struct sample_build_opts *o,
			   struct kframe *kf)
{
	const struct addr_space kernel = ADDR_SPACE_KERNEL_INIT;
	int n = 0, i, cnt = cs->kstack_sz > 0 ? cs->kstack_sz / 8 : 0;

	if (cnt > MAX_KSTACK_DEPTH)
		cnt = MAX_KSTACK_DEPTH;
	for (i = cnt - 1; i >= 0; i--) {
		struct kframe *k = &kf[n++];
		struct sym_hit hit = {};

		memset(k, 0, sizeof(*k));
		k->addr = cs->kstack[i];
		if (o->syms.sym && o->syms.sym(o->syms.ctx, &kernel, k->addr, &hit)) {
			k->name = hit.name;
			k->start = hit.start;
		}
		k->filtered = is_bpf_internal(k->name);
	}
	/* the innermost run of probe machinery (stacks unwound from the task) */
	for (i = n - 1; i >= 0 && is_probe_machinery(kf[i].name); i--)
		kf[i].filtered = true;
	/*
	 * fexit leaves "F+R, bpf_trampoline_N, F+X", F+R being where the trampoline call at
	 * F's entry returns to: only F+X is real.
	 */
	for (i = 0; i + 2 < n; i++) {
		__u64 off = kf[i].addr - kf[i].start;

		if (kf[i].name && kf[i + 2].name && is_tramp_call_ret(off) &&
		    strcmp(kf[i].name, kf[i + 2].name) == 0 && kf[i + 1].filtered)
			kf[i].dropped = kf[i].filtered = true;
	}
	/*
	 * In F's own fexit program the stack ends "F+R, bpf_trampoline_N, bpf_prog_...": F has
	 * returned into its trampoline, so F+R is no frame of F's. Without this the deepest
	 * call kept a kernel frame under -F only, unlike every other mode.
	 */
	for (i = n - 1; i >= 0 && kf[i].filtered; i--)
		;
	if (i >= 0 && i + 1 < n && kf[i].name && is_tramp_call_ret(kf[i].addr - kf[i].start) &&
	    kf[i + 1].name && strncmp(kf[i + 1].name, "bpf_trampoline_", 15) == 0)
		kf[i].dropped = kf[i].filtered = true;
	return n;
}

/*
 * @suffix ends the name of a part GCC split out of a function: ".cold" (".cold.N" before
 * GCC 8), its unlikely paths. They run in the function's own frame (jumped to, never
 * called), so a call made there returns into the cold part: the frame is still the
 * function's. ".part.N", ".constprop.N" and ".isra.N" are functions of their own.
 */
static bool is_cold_part(const char *suffix)
{
	if (strncmp(suffix, ".cold", 5) != 0)
		return false;
	suffix += 5;
	if (*suffix == '\0')
		return true;
	if (*suffix++ != '.' || !*suffix)
		return false;
	while (*suffix >= '0' && *suffix <= '9')
		suffix++;
	return *suffix == '\0';
}

/* Kernel frame @k is a frame of traced function @fname: in its code, or in its cold part. */
static bool pairs(const struct kframe *k, const char *fname)
{
	size_t len = strlen(fname);

	if (!k->name || k->filtered || strncmp(k->name, fname, len) != 0)
		return false;
	return k->name[len] == '\0' || is_cold_part(k->name + len);
}

/*
 * Pair traced frames [0, n) with kernel frames [0, m) in order, as many as possible:
 * kpair[i] = the kernel frame of traced frame i, or -1.
 */
static int pair_frames(const struct sample *s, const struct call_stack *cs, int n,
		       const struct kframe *kf, int m, int *kpair)
{
	/* lcs[i][j]: most pairs among traced [i, n) and kernel [j, m) */
	unsigned char (*lcs)[MAX_KSTACK_DEPTH + 1];
	int i, j;

	lcs = calloc(n + 1, sizeof(*lcs));
	if (!lcs)
		return -ENOMEM;
	for (i = n - 1; i >= 0; i--) {
		const char *fname = sample__func(s, sample__func_id(s, cs->func_ids[i]))->name;

		for (j = m - 1; j >= 0; j--) {
			int best = lcs[i + 1][j] > lcs[i][j + 1] ? lcs[i + 1][j] : lcs[i][j + 1];

			if (pairs(&kf[j], fname) && lcs[i + 1][j + 1] + 1 > best)
				best = lcs[i + 1][j + 1] + 1;
			lcs[i][j] = best;
		}
	}
	/* earliest pairings first: an unpaired traced frame goes as deep as it can */
	for (i = 0, j = 0; i < n; ) {
		const char *fname = sample__func(s, sample__func_id(s, cs->func_ids[i]))->name;

		if (j < m && pairs(&kf[j], fname) && lcs[i][j] == lcs[i + 1][j + 1] + 1) {
			kpair[i++] = j++;
		} else if (j < m && lcs[i][j + 1] == lcs[i][j]) {
			j++;
		} else {
			kpair[i++] = -1;
		}
	}
	free(lcs);
	return 0;
}

/*
 * What a wrapper's name and its tail-call target's share, and how deep a layer the name
 * is: the syscall wrappers' layers (__x64_sys_X -> __se_sys_X -> __do_sys_X, ksys_X_...,
 * __sys_X), "do_" and leading underscores (inet_bind -> __inet_bind) set aside.
 */
static const char *name_stem(const char *name, int *layer)
{
	static const struct { const char *prefix; int layer; } layers[] = {
		{ "x64_sys_", 0 }, { "ia32_sys_", 0 }, { "arm64_sys_", 0 }, { "se_sys_", 1 },
		{ "do_sys_", 2 }, { "ksys_", 2 }, { "sys_", 1 }, { "do_", 1 },
	};
	int under = 0;
	size_t i, len;

	while (*name == '_') {
		name++;
		under++;
	}
	*layer = under;
	for (i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
		len = strlen(layers[i].prefix);
		if (strncmp(name, layers[i].prefix, len) == 0) {
			name += len;
			/* the arch wrappers are the outermost layer, underscores or not */
			*layer = layers[i].layer ? layers[i].layer + under : 0;
			break;
		}
	}
	while (*name == '_')
		name++;
	return name;
}

/*
 * @name can be what @wrapper jumped to: the same stem (or a longer one: mmap ->
 * mmap_pgoff), one layer deeper -- never a caller of it (do_foo is not foo's target).
 */
static bool tail_target(const char *wrapper, const char *name)
{
	int wl, nl;
	const char *a = name_stem(wrapper, &wl), *b = name_stem(name, &nl);
	size_t len = strlen(a);

	return nl > wl && len && strncmp(a, b, len) == 0 && (b[len] == '\0' || b[len] == '_');
}

/*
 * Traced frame @fname has no kernel frame, yet a deeper traced call ran inside it while
 * the stack was taken (each is taken when the deepest call returns, or at a probe hit
 * with every caller running): it was on the stack, so it tail-called. The first of kernel frames [from, to) that is its target
 * by name, or @to (the target was the deeper traced function itself, or is unknown).
 */
static int tail_call_split(const char *fname, const struct kframe *kf, int from, int to)
{
	int t;

	for (t = from; t < to; t++)
		if (kf[t].name && !kf[t].filtered && tail_target(fname, kf[t].name))
			return t;
	return to;
}

static struct sample_frame *next_frame(struct sample *s)
{
	return &s->frames[s->frame_cnt++];
}

static int add_kernel_frame(struct sample *s, const struct sample_build_opts *o,
			    const struct kframe *k)
{
	struct sample_frame *f = next_frame(s);

	f->has_kframe = true;
	f->filtered = k->filtered;
	f->func_id = -1;
	return sample__resolve(s, o, &ADDR_SPACE_KERNEL_INIT, &f->loc, k->addr,
			       k->filtered ? SRC_NONE : SRC_AT_CALL);
}

static int add_traced_frame(struct sample *s, const struct sample_build_opts *o,
			    const struct call_stack *cs, int i, const struct kframe *k)
{
	struct sample_frame *f = next_frame(s);
	const struct func *fn = sample__func(s, sample__func_id(s, cs->func_ids[i]));

	f->func_id = sample__func_id(s, cs->func_ids[i]);
	f->seq_id = cs->seq_ids[i];
	f->running = (__u32)i < cs->depth;
	f->stitched = i < MAX_FSTACK_DEPTH && (cs->stitched >> i & 1);
	if (!f->running && (cs->func_lat[i] & LAT_NO_RETURN)) {
		f->no_return = true;
		f->dur_ns = cs->func_lat[i] & ~LAT_NO_RETURN;
		f->res = cs->func_res[i];
		f->exit_cut = s->exited && (f->res & NORET_EXIT);
	} else if (!f->running) {
		f->dur_ns = cs->func_lat[i];
		f->res = cs->func_res[i];
		f->failed = result__is_err(f->res, fn->flags);
	}
	s->deepest = s->frame_cnt - 1;
	if (fn->flags & FUNC_USER) {
		/* where it is: the image and the function's file offset (no address: uprobes
		 * don't report it) */
		f->loc.as = (struct addr_space){ .kind = ADDR_SPACE_USER, .pid = s->pid };
		f->loc.image.path = fn->image;
		f->loc.image.file_off = fn->image_off;
		f->loc.sym = fn->name;
		f->loc.sym_size = fn->size;
		if (f->failed && cs->sys_err && (__u32)i <= cs->sys_err_level)
			f->sys_err = cs->sys_err;
		/* the function's own line, as a kernel function without a frame gets */
		return sample__resolve_image(s, o, &f->loc);
	}
	if (k) {
		f->has_kframe = true;
		return sample__resolve(s, o, &ADDR_SPACE_KERNEL_INIT, &f->loc, k->addr, SRC_AT_CALL);
	}
	/* no frame of its own: at least say where the function is */
	if (!fn->addr)
		return 0;
	return sample__resolve(s, o, &ADDR_SPACE_KERNEL_INIT, &f->loc, fn->addr, SRC_AT_ADDR);
}

static bool is_user(const struct sample *s, const struct call_stack *cs, int i)
{
	return sample__func(s, sample__func_id(s, cs->func_ids[i]))->flags & FUNC_USER;
}

/*
 * Say why a stack with traced kernel functions came without a single kernel frame: the
 * frames' places are then only the traced functions' starts, and the user must not take
 * the short stack for the whole chain.
 */
static int note_missing_kstack(struct sample *s, const struct call_stack *cs, int n,
			       const struct kframe *kf, int m)
{
	char buf[96];
	int i;

	for (i = 0; i < n && is_user(s, cs, i); i++)
		;
	if (i == n)
		return 0;		/* user functions only: no kernel stack is taken */
	for (i = 0; i < m && kf[i].filtered; i++)
		;
	if (i < m)
		return 0;
	/* 0 bytes: never taken (no traced call returned yet), not a failure */
	if (cs->kstack_sz == 0)
		return 0;
	if (cs->kstack_sz < 0)
		snprintf(buf, sizeof(buf), "the kernel could not take it (-%s)",
			 errno__name(-cs->kstack_sz) ?: "?");
	else
		snprintf(buf, sizeof(buf), "the kernel's unwinder stopped inside the probe");
	s->kstack_note = sample_pool__strdup(s->pool, buf);
	return s->kstack_note ? 0 : -ENOMEM;
}

int sample__build_stack(struct sample *s, const struct rec_session_end *e,
			const struct sample_build_opts *o)
{
	const struct call_stack *cs = &e->stack;
	int n = cs->max_depth < MAX_FSTACK_DEPTH ? cs->max_depth : MAX_FSTACK_DEPTH;
	struct kframe kf[MAX_KSTACK_DEPTH];
	int kpair[MAX_FSTACK_DEPTH];
	int m, i, j = 0, err;

	s->deepest = -1;
	m = collect_kframes(cs, o, kf);
	err = note_missing_kstack(s, cs, n, kf, m);
	if (!err)
		err = pair_frames(s, cs, n, kf, m, kpair);
	if (err)
		return err;
	s->frames = sample_pool__alloc(s->pool, (n + m + 1) * sizeof(*s->frames));
	if (!s->frames)
		return -ENOMEM;
	for (i = 0; i <= n; i++) {
		/* kernel frames up to this traced frame's own (or all that are left) */
		int upto = i == n ? m : kpair[i] >= 0 ? kpair[i] : -1;

		/* user-space frames are the callers of every kernel frame: above them all */
		if (i < n && upto < 0 && is_user(s, cs, i)) {
			err = add_traced_frame(s, o, cs, i, NULL);
			if (err)
				return err;
			continue;
		}

		if (upto < 0) {
			/* unpaired: kernel frames before the next pairing are its callers */
			int k;

			for (k = i + 1; k < n && kpair[k] < 0; k++)
				;
			upto = k < n ? kpair[k] : m;
			/* not the deepest: it was on the stack when it was taken */
			if (i + 1 < n)
				upto = tail_call_split(sample__func(s, sample__func_id(s,
						cs->func_ids[i]))->name, kf, j, upto);
		}
		for (; j < upto; j++) {
			if (kf[j].filtered && !o->view.unfiltered)
				continue;
			if ((err = add_kernel_frame(s, o, &kf[j])))
				return err;
		}
		if (i == n)
			break;
		err = add_traced_frame(s, o, cs, i, kpair[i] >= 0 ? &kf[j++] : NULL);
		if (err)
			return err;
	}
	return 0;
}
