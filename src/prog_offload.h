/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One program of a BPF object verified on a thread of its own while libbpf loads the rest
 * of the object, one program after the other, on the caller's: the verifier is most of a
 * load (a run of user functions only: 71 of its 79 ms on the 6.18 host, in three programs).
 *
 * From a libbpf prepare-load hook, prog_offload__start() copies what libbpf is about to
 * load (the relocated instructions and the load attributes, BTF records included), starts
 * loading that copy on a helper thread and hands libbpf a two-instruction stub instead,
 * which loads at once. After the object's load, prog_offload__finish() waits for the
 * thread and puts the program in the stub's place under the same descriptor (dup3()):
 * everything that uses the program through libbpf (attach, its fd) gets the real one.
 * Like a library module it prints nothing.
 */
#ifndef RETSNOOP_PROG_OFFLOAD_H
#define RETSNOOP_PROG_OFFLOAD_H

#include <stddef.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

struct prog_offload;

struct prog_offload_opts {
	size_t sz;		/* sizeof(struct prog_offload_opts) */
	const char *license;	/* the object's license section; NULL: "GPL" */
};

/*
 * In @prog's prepare-load hook, with the attributes @o libbpf will load it with (and
 * @prog's expected attach type, which libbpf 1.4 puts in them only after the hook): start
 * its load on a thread, and make @prog and @o a stub's. NULL with errno set when nothing
 * was changed (libbpf then loads the program as usual): EINVAL for attributes it doesn't
 * copy (an fd array, a log buffer), ENOMEM, or the thread's start's.
 */
struct prog_offload *prog_offload__start(struct bpf_program *prog, struct bpf_prog_load_opts *o,
					 const struct prog_offload_opts *opts);

/*
 * After the object's load returned 0: wait for the thread; on success @prog's descriptor
 * is the loaded program's from now on. 0, or the load's negative errno (the verifier's
 * refusal: prog_offload__log() then has its log).
 */
int prog_offload__finish(struct prog_offload *po);

/* The verifier's log of a failed load (loaded again to get it); "" if none. */
const char *prog_offload__log(struct prog_offload *po);

/* The program offloaded. */
const struct bpf_program *prog_offload__prog(const struct prog_offload *po);

/* Waits for the thread, if still running; NULL is a no-op. */
void prog_offload__free(struct prog_offload *po);

#endif
