// SPDX-License-Identifier: BSD-2-Clause
/* Kernel feature detection and calibration; see kernel_features.h. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "detach_child.h"
#include "quiet_thread.h"
#include "kernel_features.h"
#include "kprobe_session.h"
#include "session_prog.h"
#include "calib_feat.skel.h"
#include "uprobe_link.h"

/* The uprobe's target: retsnoop's own code, called once with the probe attached. */
__attribute__((noinline, used)) void kernel_features__uprobe_trigger(void)
{
	/* an empty function could be folded into another: keep a body of its own */
	__asm__ __volatile__("" ::: "memory");
}

/*
 * The trigger's file offset in our own binary, from our mappings: works on a stripped
 * retsnoop too (no symbol lookup).
 */
static long self_offset(const void *addr)
{
	unsigned long start, end, pgoff, a = (unsigned long)addr;
	char line[512];
	long off = -ENOENT;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %lx", &start, &end, &pgoff) != 3)
			continue;
		if (a >= start && a < end) {
			off = a - start + pgoff;
			break;
		}
	}
	fclose(f);
	return off;
}

/*
 * The calibration object. Only its task storage probe is decided at load (5.10 has no task
 * storage maps: the object must not ask for one); the BTF's offsets go to .bss just before
 * the trigger, so that loading and attaching need no BTF and can overlap its reading.
 */
static struct calib_feat *open_calib(bool try_task_storage)
{
	struct calib_feat *skel = calib_feat__open();

	if (!skel)
		return NULL;
	skel->rodata->detect_tid = syscall(SYS_gettid);
	skel->rodata->try_task_storage = try_task_storage;
	if (!try_task_storage)
		bpf_map__set_autocreate(skel->maps.storage_probe, false);
	return skel;
}

/*
 * Open and load, with or without the task storage probe: the map type says whether the
 * kernel has task storage (5.11+); should the verifier still refuse the helper in a
 * probe, the object is loaded again without it (the BTF then says no as well).
 */
static struct calib_feat *load_calib(bool user, int *err)
{
	bool try_ts = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) > 0;
	struct calib_feat *skel;

	for (;;) {
		skel = open_calib(try_ts);
		if (!skel) {
			*err = -errno;
			return NULL;
		}
		bpf_program__set_autoload(skel->progs.calib_uentry, user);
		bpf_program__set_autoload(skel->progs.calib_entry, !user);
		bpf_program__set_autoload(skel->progs.calib_exit, !user);
		*err = calib_feat__load(skel);
		if (!*err)
			return skel;
		calib_feat__destroy(skel);
		if (!try_ts)
			return NULL;
		try_ts = false;
	}
}

/* The BTF's answers into @f: from @btf, or from the vmlinux BTF read here when NULL. */
static int btf_facts(struct kernel_features *f, const struct btf *btf)
{
	struct btf *own = NULL;
	int err;

	memset(f, 0, sizeof(*f));
	if (!btf) {
		own = btf__load_vmlinux_btf();
		if (!own)
			return -errno;
		btf = own;
	}
	err = kernel_features__from_btf(f, btf);
	btf__free(own);
	return err;
}

/* The offsets the probes read with, from the BTF's answers, before they fire. */
static void set_offsets(struct calib_feat *skel, const struct kernel_features *f)
{
	skel->bss->task_stack_off = f->task_stack_off;
	skel->bss->tk_addr_off = f->trace_kprobe_addr_off;
}

static void copy_out(const struct calib_feat *skel, struct kernel_features *f);

/* The uprobe link probes: uprobe.multi, uprobe session */
#define UPROBE_LINK_PROBES	2

struct kernel_calib {
	struct calib_feat *skel;
	int err;		/* of the load or attach; 0: the probes are attached */
	/* the uprobe link probes' links, released with the probes (-1: none) */
	int link_fds[UPROBE_LINK_PROBES];
};

static struct kernel_calib *calib_new(void)
{
	struct kernel_calib *c = calloc(1, sizeof(*c));
	int i;

	for (i = 0; c && i < UPROBE_LINK_PROBES; i++)
		c->link_fds[i] = -1;
	return c;
}

static bool detect_uprobe_link(int attach_type, int *link_fd);

/* Both uprobe link kinds into @f, their links left in @c for the release. */
static void detect_uprobe_links(struct kernel_calib *c, struct kernel_features *f)
{
	f->has_uprobe_multi = detect_uprobe_link(BPF_TRACE_UPROBE_MULTI, &c->link_fds[0]);
	f->has_uprobe_session = detect_uprobe_link(UPROBE_SESSION_ATTACH_TYPE, &c->link_fds[1]);
}

static bool stopped(const volatile sig_atomic_t *stop)
{
	return stop && *stop;
}

struct kernel_calib *kernel_features__begin(const volatile sig_atomic_t *stop)
{
	struct kernel_calib *c = calib_new();

	if (!c)
		return NULL;
	c->skel = load_calib(false, &c->err);
	if (c->err)
		return c;
	if (stopped(stop)) {
		c->err = -EINTR;
		return c;
	}
	c->skel->links.calib_entry = bpf_program__attach(c->skel->progs.calib_entry);
	if (!c->skel->links.calib_entry) {
		c->err = -errno;
		return c;
	}
	if (stopped(stop)) {
		c->err = -EINTR;
		return c;
	}
	c->skel->links.calib_exit = bpf_program__attach(c->skel->progs.calib_exit);
	if (!c->skel->links.calib_exit)
		c->err = -errno;
	return c;
}

int kernel_features__end(struct kernel_calib *c, struct kernel_features *f,
			 const struct btf *vmlinux_btf, bool uprobe_links)
{
	struct calib_feat *skel;
	int err;

	if (!c)
		return -ENOMEM;
	if (c->err)
		return c->err;
	err = btf_facts(f, vmlinux_btf);
	if (err)
		return err;
	skel = c->skel;
	set_offsets(skel, f);
	/*
	 * Straight to the syscall: libc may route nanosleep() through clock_nanosleep().
	 * NULL arguments make it fail with EFAULT at once, after both probes fired.
	 */
	syscall(SYS_nanosleep, NULL, NULL);

	if (!skel->bss->entry_hit || !skel->bss->exit_hit)
		return -ENODATA;
	copy_out(skel, f);
	/*
	 * A link each, whose release waits for RCU grace periods (36 ms each on a 6.18
	 * host): only for runs that attach uprobes, released with the probes
	 */
	if (uprobe_links)
		detect_uprobe_links(c, f);
	f->has_kprobe_session = f->has_kprobe_multi &&
				session_prog__kprobe_probe(f->session_kfunc_id);
	/* named in the BTF (7.0+), and this architecture's JIT builds its trampolines */
	f->has_fsession = f->has_fsession && f->has_fentry &&
			  session_prog__fsession_probe(f->session_kfunc_id);
	/* named in the BTF, and linked on this architecture (arm64 in 7.2 refuses) */
	f->has_fsession_multi = f->has_fsession_multi && f->has_fsession &&
				session_prog__fsession_multi_probe(f->session_kfunc_id);
	return 0;
}

static void *release_calib(void *arg)
{
	struct kernel_calib *c = arg;
	int i;

	for (i = 0; i < UPROBE_LINK_PROBES; i++)
		if (c->link_fds[i] >= 0)
			close(c->link_fds[i]);
	calib_feat__destroy(c->skel);
	free(c);
	return NULL;
}

bool kernel_features__holds_uprobes(const struct kernel_calib *c)
{
	int i;

	if (!c)
		return false;
	if (c->skel && c->skel->links.calib_uentry)
		return true;
	for (i = 0; i < UPROBE_LINK_PROBES; i++)
		if (c->link_fds[i] >= 0)
			return true;
	return false;
}

/* In the child: its copies are the last references; closing them is the release. */
static void close_copies(struct detach_child *dc, void *ctx)
{
	(void)dc;
	(void)ctx;
	syscall(SYS_close_range, 0, ~0U, 0);
}

/* Reaps the child when it is done; never joined (the process's exit ends the wait). */
static void *reap_child(void *arg)
{
	struct detach_child *dc = arg;

	detach_child__wait(dc, 0, NULL, NULL, NULL);
	detach_child__free(dc);
	return NULL;
}

/*
 * A uprobe's release waits for an RCU tasks trace grace period, a tenth of a second or
 * more, and a process can't exit while one of its threads waits in it: a `-- CMD` run of a
 * boot's first start, done before that, exited only after it (0.23 s against 0.08). A
 * child holding copies of every fd lets them go instead; this process's closes, each only
 * a count going down, are over before it returns, so a later fork (the detach's child)
 * inherits none of them.
 */
static bool release_in_child(struct kernel_calib *c)
{
	struct detach_child *dc = detach_child__start(close_copies, NULL);
	pthread_t thread;

	if (!dc)
		return false;
	release_calib(c);
	detach_child__go(dc);
	if (quiet_thread__start(&thread, reap_child, dc))
		detach_child__free(dc);	/* left unreaped: a zombie until this process ends */
	else
		pthread_detach(thread);
	return true;
}

void kernel_features__release(struct kernel_calib *c)
{
	pthread_t thread;

	if (!c)
		return;
	/*
	 * Only a user-only run's, whose process is small and whose run may be short: a kernel
	 * run's would pay the child's copy-on-write faults over a larger heap, and its attach
	 * outlasts the release anyway.
	 */
	if (c->skel && c->skel->links.calib_uentry && !c->skel->links.calib_entry &&
	    release_in_child(c))
		return;
	/*
	 * Detaching a kprobe waits for RCU grace periods: let a thread of its own wait, the
	 * run need not. At the process's exit the kernel lets go of whatever is left.
	 */
	if (quiet_thread__start(&thread, release_calib, c))
		release_calib(c);
	else
		pthread_detach(thread);
}

int kernel_features__detect(struct kernel_features *f, const struct btf *vmlinux_btf)
{
	struct kernel_calib *c = kernel_features__begin(NULL);
	int err = kernel_features__end(c, f, vmlinux_btf, true);

	/* released here: callers of this one want nothing left behind when it returns */
	if (c)
		release_calib(c);
	return err;
}

/*
 * uprobe.multi links (6.6+), uprobe session links (6.13+): an empty program of that attach
 * type linked to our own trigger. Its program type exists since long before: only the
 * link says yes (an older kernel refuses the attach type with EINVAL).
 */
static bool detect_uprobe_link(int attach_type, int *link_fd)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = attach_type);
	struct uprobe_link_spec spec = { .path = "/proc/self/exe", .cnt = 1 };
	unsigned long off;
	long o = self_offset((const void *)kernel_features__uprobe_trigger);
	int prog, link;

	if (o < 0)
		return false;
	off = o;
	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 2, &po);
	if (prog < 0)
		return false;
	spec.offsets = &off;
	link = uprobe_link__create(prog, attach_type, &spec);
	close(prog);
	if (link < 0)
		return false;
	*link_fd = link;
	return true;
}

int kernel_features__detect_user(struct kernel_features *f, const struct btf *vmlinux_btf,
				 struct kernel_calib **calib)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo);
	struct kernel_calib *c;
	struct calib_feat *skel;
	long off;
	int err;

	*calib = NULL;
	err = btf_facts(f, vmlinux_btf);
	if (err)
		return err;
	c = *calib = calib_new();
	if (!c)
		return -ENOMEM;
	skel = c->skel = load_calib(true, &err);
	if (!skel)
		return err;
	set_offsets(skel, f);
	off = self_offset((const void *)kernel_features__uprobe_trigger);
	if (off < 0)
		return off;
	skel->links.calib_uentry = bpf_program__attach_uprobe_opts(skel->progs.calib_uentry, 0,
								   "/proc/self/exe", off, &uo);
	if (!skel->links.calib_uentry)
		return -errno;
	kernel_features__uprobe_trigger();
	if (!skel->bss->entry_hit)
		return -ENODATA;
	copy_out(skel, f);
	detect_uprobe_links(c, f);
	/* found from BTF, but this path never checked that kernel functions can be probed */
	f->has_kprobe_multi = false;
	return 0;
}

/* What the calibration measured; the rest came from the BTF. */
static void copy_out(const struct calib_feat *skel, struct kernel_features *f)
{
	f->has_task_storage = f->has_task_storage && skel->rodata->try_task_storage &&
			      skel->bss->has_task_storage;
	f->kret_ip_off = skel->bss->kret_ip_off;
	f->user_regs_off = skel->bss->user_regs_off;
}

unsigned long kernel_features__kstack_size(const struct kernel_features *f)
{
	unsigned long size = 4096;

	/* the registers take far less than half the stack: the next power of two is its size */
	if (!f->user_regs_off)
		return 0;
	while (size <= f->user_regs_off && size < (1UL << 20))
		size <<= 1;
	return size > f->user_regs_off ? size : 0;
}

static const char *yes_no(bool v)
{
	return v ? "yes" : "no";
}

void kernel_features__print(const struct kernel_features *f, FILE *out)
{
	fprintf(out, "Feature detection:\n");
	fprintf(out, "\tBPF ringbuf map supported: %s\n", yes_no(f->has_ringbuf));
	fprintf(out, "\tbpf_get_func_ip() supported: %s\n", yes_no(f->has_func_ip));
	fprintf(out, "\tbpf_get_branch_snapshot() supported: %s\n",
		yes_no(f->has_branch_snapshot));
	fprintf(out, "\tBPF cookie supported: %s\n", yes_no(f->has_cookie));
	fprintf(out, "\tBPF cookie supported (raw tracepoint): %s\n",
		yes_no(f->has_rawtp_cookie));
	fprintf(out, "\tmulti-attach kprobe supported: %s\n", yes_no(f->has_kprobe_multi));
	fprintf(out, "Feature calibration:\n");
	fprintf(out, "\tkretprobe IP offset: %d\n", f->kret_ip_off);
	fprintf(out, "\tfexit sleep fix: %s\n", yes_no(f->has_fexit_sleep_fix));
	fprintf(out, "\tfentry re-entry protection: %s\n", yes_no(f->has_fentry_protection));
}

int kernel_features__check_btf(const char *path)
{
	__u16 magic = 0;
	FILE *f = fopen(path ?: "/sys/kernel/btf/vmlinux", "re");
	int err = 0;

	if (!f)
		return -errno;
	if (fread(&magic, sizeof(magic), 1, f) != 1)
		err = ferror(f) ? -EIO : -ENODATA;
	else if (magic != 0xeB9F)
		err = -ENODATA;
	fclose(f);
	return err;
}

bool kernel_features__kprobes_disarmed(const char *path)
{
	char c = '1';
	FILE *f = fopen(path ?: "/sys/kernel/debug/kprobes/enabled", "re");

	if (!f)
		return false;
	if (fread(&c, 1, 1, f) != 1)
		c = '1';
	fclose(f);
	return c == '0';
}
