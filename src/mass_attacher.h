/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mass_attacher: attach one pair of entry/exit BPF programs to many kernel functions at
 * once, by kprobe.multi, single kprobes or fentry/fexit clones, and detach them all.
 *
 * Lifecycle: new -> add functions (discovery) -> prepare -> [caller tunes the object] ->
 * load -> attach -> [caller activates its programs] -> free (detaches everything).
 * It knows nothing about what the programs record or how retsnoop prints it.
 */
#ifndef RETSNOOP_MASS_ATTACHER_H
#define RETSNOOP_MASS_ATTACHER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct bpf_object;
struct bpf_program;
struct bpf_map;

enum attach_mode {
	ATTACH_AUTO,		/* kprobe.multi if the kernel has it, else single kprobes */
	ATTACH_KPROBE_MULTI,	/* -M: kprobe.multi, falling back to single kprobes */
	ATTACH_KPROBE_SINGLE,	/* -K */
	ATTACH_FENTRY,		/* -F */
};

#define MA_FEXIT_TMPLS 7	/* fexit templates for 0..6 arguments */

/* The caller's BPF programs and maps the attacher drives. */
struct mass_attacher_progs {
	struct bpf_program *kentry, *kexit;
	struct bpf_program *fentry;
	struct bpf_program *fexit[MA_FEXIT_TMPLS];
	struct bpf_program *fexit_void;
	struct bpf_map *ip_to_id;	/* __u64 ip -> __u32 id, used when cookies can't be */
};

struct mass_attacher_opts {
	size_t sz;			/* sizeof(struct mass_attacher_opts) */
	enum attach_mode mode;
	int verbose;			/* 1: -v, 2: -vv */
	bool has_kprobe_multi;		/* kernel features, from feature detection */
	bool has_cookies;
	bool has_func_ip;
	int kret_ip_off;		/* kretprobes can name their function without the above */
};

/* One function to trace, as discovery found it. */
struct mass_attacher_func {
	const char *name;
	const char *module;		/* NULL for vmlinux */
	__u64 addr;
	int btf_id;			/* 0 without BTF (kprobe modes only) */
	int arg_cnt;
	bool ret_void;
};

struct mass_attacher;

struct mass_attacher *mass_attacher__new(const struct mass_attacher_progs *progs,
					 const struct mass_attacher_opts *opts);
void mass_attacher__free(struct mass_attacher *att);

/* Queue a function; its id is its index. Fails with -E2BIG past the supported count. */
int mass_attacher__add_func(struct mass_attacher *att, const struct mass_attacher_func *f);

/* Choose the mode and set up autoload, attach targets and map sizes before load. */
int mass_attacher__prepare(struct mass_attacher *att);
/* After the caller's bpf_object__load(): fill ip_to_id, load fentry/fexit clones. */
int mass_attacher__load(struct mass_attacher *att);
int mass_attacher__attach(struct mass_attacher *att);
/* Detach everything now (also done by free); returns milliseconds spent. */
long mass_attacher__detach(struct mass_attacher *att);

enum attach_mode mass_attacher__mode(const struct mass_attacher *att);
const char *mass_attacher__mode_name(enum attach_mode mode);
size_t mass_attacher__func_cnt(const struct mass_attacher *att);
const struct mass_attacher_func *mass_attacher__func(const struct mass_attacher *att, __u32 id);
/* True if BPF gets the function id from the cookie (else from ip_to_id). */
bool mass_attacher__uses_cookies(const struct mass_attacher *att);

#endif
