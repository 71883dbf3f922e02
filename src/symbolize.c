// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "quiet_thread.h"
#include "opts.h"
#include "ksyms.h"
#include "prog_ksym.h"
#include "symbolize.h"
#include "mono_clock.h"

struct symbolize {
	struct symbolize_opts opts;
	struct usyms *usyms;	/* created with the first process */
	struct ksyms *own_ksyms;
	bool load_failed;
	bool degraded;
	bool cut;		/* a lookup was cut short: the rest go without, each marked */
	bool prefetching;	/* @loader is reading kallsyms: join it before use */
	int load_errno;
	long load_ms;		/* the read's */
	pthread_t loader;
	__u64 text_start, text_end;	/* the kernel's own text; 0, 0: early_ksyms unusable */
	/* kernel symbols known without kallsyms (our own programs): symbolize__add_ksym() */
	struct prog_ksym *own;
	size_t own_cnt;
};

/* An unsized (last) symbol can't plausibly cover more than this. */
#define MAX_UNSIZED_FUNC 0x10000

static void *load_ksyms(void *arg)
{
	struct symbolize *s = arg;
	long t0 = now_ms();

	/* the early table answers for the kernel's own text: leave that out */
	if (s->text_end)
		s->own_ksyms = ksyms__load_funcs_except(s->opts.kallsyms_path, s->text_start,
							s->text_end);
	else
		s->own_ksyms = ksyms__load(s->opts.kallsyms_path);
	s->load_errno = s->own_ksyms ? 0 : errno;
	s->load_ms = now_ms() - t0;
	return NULL;
}

/* -vv, on the thread that prints: whether this run paid for the read, and what it took */
static void say_loaded(const struct symbolize *s, const char *when)
{
	if (s->own_ksyms)
		log_msg(s->opts.print, LOG_DEBUG, "Symbols: %s read in %ld ms, %zu symbols%s, %s.\n",
			s->opts.kallsyms_path ?: "/proc/kallsyms", s->load_ms,
			ksyms__cnt(s->own_ksyms), s->text_end ? " beyond the kernel's own text" : "",
			when);
}

static const struct ksyms *ksyms(struct symbolize *s)
{
	if (s->prefetching) {
		pthread_join(s->loader, NULL);
		s->prefetching = false;
		say_loaded(s, "ahead of the first stack that needed them");
		errno = s->load_errno;
	} else if (!s->opts.ksyms && !s->load_failed) {
		load_ksyms(s);
		say_loaded(s, "when a stack first needed them");
		errno = s->load_errno;
	}
	if (s->opts.ksyms || s->load_failed)
		return s->opts.ksyms;
	if (!s->own_ksyms) {
		s->load_failed = true;
		log_msg(s->opts.print, LOG_WARN, "Failed to load %s: %s\n",
			s->opts.kallsyms_path ?: "/proc/kallsyms", strerror(errno));
	}
	s->opts.ksyms = s->own_ksyms;
	return s->opts.ksyms;
}

struct symbolize *symbolize__new(const struct symbolize_opts *opts)
{
	struct symbolize *s;

	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	if (OPTS_COPY(&s->opts, opts)) {
		free(s);
		return errno = EINVAL, NULL;
	}
	/* both stay 0 without usable bounds: symbolization reads kallsyms whole */
	if (s->opts.early_ksyms)
		ksyms__text_bounds(s->opts.early_ksyms, &s->text_start, &s->text_end);
	return s;
}

bool symbolize__early_text(const struct symbolize *s)
{
	return s && s->text_end;
}

/*
 * The symbol table to look @addr up in: the early one for the kernel's own text, else
 * the fresh one (read now if not yet, or joined if being read).
 */
static const struct ksyms *ksyms_for(struct symbolize *s, __u64 addr)
{
	if (addr >= s->text_start && addr < s->text_end)
		return s->opts.early_ksyms;
	return ksyms(s);
}

/*
 * Reading kallsyms takes most of a second on a busy or emulated machine; the first sample
 * would wait for it. Read it on a helper thread now (after attaching, so BPF programs and
 * trampolines are in it), while the run waits for its first event.
 */
int symbolize__prefetch(struct symbolize *s)
{
	int err;

	if (s->opts.ksyms || s->load_failed || s->prefetching || s->own_ksyms)
		return 0;
	/* Ctrl-C stays with the thread that polls */
	err = quiet_thread__start(&s->loader, load_ksyms, s);
	if (err)
		return -err;	/* the first lookup loads it then */
	s->prefetching = true;
	return 0;
}

void symbolize__free(struct symbolize *s)
{
	if (!s)
		return;
	if (s->prefetching) {
		pthread_join(s->loader, NULL);
		say_loaded(s, "needed by no stack");
	}
	ksyms__free(s->own_ksyms);
	usyms__free(s->usyms);
	free(s->own);
	free(s);
}

int symbolize__add_ksym(struct symbolize *s, const struct prog_ksym *k)
{
	struct prog_ksym *own;

	own = realloc(s->own, (s->own_cnt + 1) * sizeof(*own));
	if (!own)
		return -ENOMEM;
	s->own = own;
	own[s->own_cnt++] = *k;
	return 0;
}

/* The known symbol covering @addr, or NULL: a handful, searched in turn. */
static const struct prog_ksym *own_ksym(const struct symbolize *s, __u64 addr)
{
	size_t i;

	for (i = 0; i < s->own_cnt; i++)
		if (addr >= s->own[i].addr && addr - s->own[i].addr < s->own[i].size)
			return &s->own[i];
	return NULL;
}

/* The user-space part, made on first use; NULL with errno set if it can't be. */
static struct usyms *get_usyms(struct symbolize *s)
{
	struct usyms_opts uo = {
		.sz = sizeof(uo),
		.sidecar = s->opts.sidecar,
		.sidecar_path = s->opts.sidecar_path,
		.debug_root = s->opts.debug_root,
		.proc_root = s->opts.proc_root,
		.print = s->opts.print,
	};

	if (!s->usyms)
		s->usyms = usyms__new(&uo);
	return s->usyms;
}

int symbolize__add_process(struct symbolize *s, __u32 pid, const struct user_mapping *maps,
			   size_t cnt)
{
	if (!get_usyms(s))
		return -errno;
	return usyms__add_process(s->usyms, pid, maps, cnt);
}

int symbolize__hold_file(struct symbolize *s, __u32 pid, const struct user_mapping *m)
{
	if (!get_usyms(s))
		return -errno;
	return usyms__hold_file(s->usyms, pid, m);
}

static bool sym_sym(void *ctx, const struct addr_space *as, __u64 addr, struct sym_hit *hit)
{
	struct symbolize *s = ctx;
	const struct prog_ksym *own;
	const struct ksyms *ks;
	const struct ksym *k;

	if (as->kind == ADDR_SPACE_USER)
		return s->usyms && usyms__sym(s->usyms, as->pid, addr, hit);
	if ((own = own_ksym(s, addr))) {
		hit->name = own->name;
		hit->start = own->addr;
		hit->size = own->size;
		hit->image.path = "bpf";	/* kallsyms' [bpf] */
		return true;
	}
	ks = ksyms_for(s, addr);
	k = ks ? ksyms__map_addr(ks, addr) : NULL;

	/* past a function's end lies padding or something without a symbol */
	if (!k || addr - k->addr >= (k->size ?: MAX_UNSIZED_FUNC))
		return false;
	hit->name = k->name;
	hit->start = k->addr;
	hit->size = k->size;
	hit->image.path = k->module ?: "vmlinux";
	return true;
}

static int sym_src(void *ctx, const struct addr_space *as, __u64 addr,
		   struct src_frame *frames, int max, const char **note)
{
	struct symbolize *s = ctx;
	const struct ksyms *ks;
	bool inlines = s->opts.inlines;
	const struct ksym *k;
	int n;

	if (as->kind == ADDR_SPACE_USER) {
		if (s->opts.no_user_lines)
			return 0;
		n = s->usyms ? usyms__src(s->usyms, as->pid, addr, frames, max, note) : 0;
		if (n == -EINTR)
			return n;
		inlines = s->opts.user_inlines;
		goto found;
	}
	/* no source lines for a BPF program, whose symbol needs no kallsyms either */
	if (!s->opts.src.lookup || own_ksym(s, addr) || !(ks = ksyms_for(s, addr)))
		return 0;
	/* DWARF covers vmlinux only; module addresses never have link-time twins there */
	k = ksyms__map_addr(ks, addr);
	if (!k || k->module)
		return 0;
	if (s->degraded)
		goto degraded;
	if (s->cut)
		return -EINTR;
	n = s->opts.src.lookup(s->opts.src.ctx, addr - s->opts.kaslr_offset, frames, max);
	/*
	 * Cut short on purpose: the run's caller asked to hurry (a second Ctrl-C while the
	 * samples received before a stop are symbolized). What is left goes without source
	 * lines rather than wait for each, and every location says so (SRC_NOTE_CUT):
	 * a frame is never silently poorer.
	 */
	if (n == -EINTR) {
		s->cut = true;
		return -EINTR;
	}
	if (n < 0) {
		s->degraded = true;
		log_msg(s->opts.print, LOG_WARN, "WARNING: source-line symbolization failed (%d); "
			"continuing with kallsyms only.\n", n);
		goto degraded;
	}
found:
	if (n > max)
		n = max;
	if (!inlines && n > 1) {
		/* without inlines, the one line shown is where the code really is */
		frames[0] = frames[n - 1];
		n = 1;
	}
	return n;
degraded:
	if (note)
		*note = "source-line symbolizer failed";
	return 0;
}

/* A traced user function's start: its binary by path, not a process's mappings. */
static int sym_image_src(void *ctx, const char *path, __u64 file_off,
			 struct src_frame *frames, int max, const char **note)
{
	struct symbolize *s = ctx;
	int n;

	if (s->opts.no_user_lines || !get_usyms(s))
		return 0;
	n = usyms__image_src(s->usyms, path, file_off, frames, max, note);
	if (n > max)
		n = max;
	if (!s->opts.user_inlines && n > 1) {
		frames[0] = frames[n - 1];
		n = 1;
	}
	return n;
}

struct usyms *symbolize__usyms(struct symbolize *s)
{
	return s->usyms;
}

struct sym_resolver symbolize__resolver(struct symbolize *s)
{
	return (struct sym_resolver){
		.sym = sym_sym, .src = sym_src, .image_src = sym_image_src, .ctx = s,
	};
}

bool symbolize__degraded(const struct symbolize *s)
{
	return s->degraded;
}
