// SPDX-License-Identifier: BSD-2-Clause
/*
 * Unwinding captured user stacks with libdwfl (unwind.h). The process is described to
 * libdwfl as a maps text (it lays the modules out and finds each one's load bias), and the
 * thread as our own Dwfl_Thread_Callbacks: one thread, its registers from the capture,
 * its memory the captured stack window only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "unwind.h"

#define DEFAULT_MAX_FRAMES	128
/* how far past its ELF's entry point a return address may lie and still be in the entry code */
#define ENTRY_CODE_MAX		512
#define X86_64_REGS		21
#define ARM64_REGS		34

/*
 * The unwinder keeps the last process's Dwfl: its modules (opened, their CFI and symbol
 * tables read) serve every later capture of the same process with the same mappings,
 * which is most of them. The callbacks' argument is the unwinder itself, pointing at the
 * capture being unwound.
 */
struct mod_src;

struct unwinder {
	struct unwind_opts opts;
	Dwfl *dwfl;
	char *maps_text;		/* what dwfl was built from, with pid and arch */
	size_t maps_len;
	int pid;
	enum unwind_arch arch;
	/* the current run */
	const struct unwind_input *in;
	struct unwind_frame *frames;
	size_t cnt, cap;
	/* the window ran out: said instead of libdwfl's less helpful message */
	char mem_err[200];
	/* a frame interrupted by a signal was reached: its stack may not be the window's */
	bool past_signal;
	char stop[256];
	/*
	 * A walk of frame records through code with no file (walk_records()), which libdwfl
	 * resumes from at the first return address into a file's code: its registers there
	 */
	bool again, resume, resumed;
	uint64_t resume_pc;
	Dwarf_Word resume_regs[32];
	struct mod_src *srcs;		/* one per module of dwfl */
	size_t src_cnt;
	int *ids;			/* the image ids dwfl was built with */
	size_t id_cnt;
};


/* What find_elf() needs of a module: set as its userdata after reporting (mod_bind()). */
struct mod_src {
	struct unwinder *u;
	size_t map_idx;		/* the module's first mapping, in every input this dwfl serves */
};

/*
 * Each module's file comes from the client's image (or, without open_image, its path);
 * nothing else is looked at (no /proc, no vdso memory).
 */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	struct mod_src *src = *userdata;
	struct stat st;
	int fd;

	*elfp = NULL;
	/* files are opened lazily, always while a capture is being unwound */
	if (!src || !src->u->in || src->map_idx >= src->u->in->map_cnt || !name || name[0] != '/')
		return -1;
	if (src->u->opts.open_image)
		fd = src->u->opts.open_image(src->u->opts.ctx, &src->u->in->maps[src->map_idx]);
	else	/* O_NONBLOCK: a FIFO's open must not wait for a writer */
		fd = open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	/* a device (/dev/zero maps too) or a FIFO is no binary, and may never end */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	*file_name = strdup(name);
	return fd;
}

static char *debuginfo_path;

static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = find_elf,
	/* .gnu_debuglink files and /usr/lib/debug/.build-id/ */
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwinder *p = arg;

	if (*thread_argp)
		return 0;
	*thread_argp = p;
	return p->in->pid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct unwinder *p = arg;

	*thread_argp = p;
	return tid == p->in->pid;
}

static const struct unwind_map *map_of(const struct unwind_input *in, uint64_t addr);

/* Whether a word at @off of the window touches a page that was not read (a hole). */
static bool in_hole(const struct unwind_input *in, uint64_t off)
{
	uint64_t first = ((in->sp & (UNWIND_PAGE - 1)) + off) / UNWIND_PAGE;
	uint64_t last = ((in->sp & (UNWIND_PAGE - 1)) + off + sizeof(Dwarf_Word) - 1) / UNWIND_PAGE;

	return (first < 32 && (in->holes >> first & 1)) || (last < 32 && (in->holes >> last & 1));
}

/* Only the captured window exists: the thread's memory as it was when it entered the kernel. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwinder *p = arg;
	const struct unwind_input *in = p->in;
	uint64_t off = addr - in->sp;

	if (addr < in->sp || off > in->stack_len || in->stack_len - off < sizeof(*result)) {
		const struct unwind_map *st = map_of(in, in->sp);

		if (p->mem_err[0])
			return false;
		/*
		 * Past a signal frame, outside the window's mapping: the handler ran on a stack
		 * of its own (sigaltstack), which is what the window holds, not the stack of
		 * the code it interrupted
		 */
		if (p->past_signal && (!st || addr < st->start || addr >= st->end)) {
			snprintf(p->mem_err, sizeof(p->mem_err),
				 "the interrupted code's stack, at %#llx, was not captured: the "
				 "signal handler ran on a stack of its own (sigaltstack)",
				 (unsigned long long)addr);
			return false;
		}
		if (addr < in->sp)
			return false;
		/* beyond the thread's stack mapping: a frame pointer that is not one */
		if (st && addr >= st->end)
			snprintf(p->mem_err, sizeof(p->mem_err),
				 "a frame pointer led to %#llx, outside the thread's stack",
				 (unsigned long long)addr);
		else
			snprintf(p->mem_err, sizeof(p->mem_err),
				 "stack at sp+%#llx is beyond the %zu bytes captured",
				 (unsigned long long)off, in->stack_len);
		return false;
	}
	if (in_hole(in, off)) {
		if (!p->mem_err[0])
			snprintf(p->mem_err, sizeof(p->mem_err),
				 "stack at sp+%#llx was not in memory when captured (a page not "
				 "touched yet, or swapped out)", (unsigned long long)off);
		return false;
	}
	memcpy(result, in->stack + off, sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *p = arg;
	const uint64_t *r = p->in->regs;
	Dwarf_Word regs[33];

	if (p->resume) {
		/* x86-64's return address column (16) is its pc; arm64's pc has no number */
		if (p->in->arch == UNWIND_ARCH_X86_64) {
			memcpy(regs, p->resume_regs, 16 * sizeof(*regs));
			regs[16] = p->resume_pc;
			return dwfl_thread_state_registers(thread, 0, 17, regs);
		}
		if (!dwfl_thread_state_registers(thread, 0, 32, p->resume_regs))
			return false;
		dwfl_thread_state_register_pc(thread, p->resume_pc);
		return true;
	}
	switch (p->in->arch) {
	case UNWIND_ARCH_X86_64:
		/* DWARF numbering: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip */
		regs[0] = r[10];
		regs[1] = r[12];
		regs[2] = r[11];
		regs[3] = r[5];
		regs[4] = r[13];
		regs[5] = r[14];
		regs[6] = r[4];
		regs[7] = r[19];
		for (int i = 0; i < 8; i++)	/* r8 (pt_regs 9) down to r15 (pt_regs 0) */
			regs[8 + i] = r[9 - i];
		regs[16] = r[16];
		return dwfl_thread_state_registers(thread, 0, 17, regs);
	case UNWIND_ARCH_ARM64:
		/* x0-x30, sp; pc has no DWARF number */
		for (int i = 0; i < 32; i++)
			regs[i] = r[i];
		if (!dwfl_thread_state_registers(thread, 0, 32, regs))
			return false;
		dwfl_thread_state_register_pc(thread, r[32]);
		return true;
	}
	return false;
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* Whether any mapping of @path is executable: a file with code, a module to describe. */
static bool file_has_code(const struct unwind_input *in, const char *path)
{
	size_t i;

	for (i = 0; i < in->map_cnt; i++) {
		if (in->maps[i].exec && in->maps[i].path && !strcmp(in->maps[i].path, path))
			return true;
	}
	return false;
}

/*
 * The maps as libdwfl reads them; paths go through as they are (no " (deleted)"). Files
 * with no code mapped (ld.so.cache, locale-archive) are left out: libdwfl makes a module
 * of each file, from its first mapping's start to its last one's end, and in maps made of
 * the kernel's records (a process that exited: no munmap() is recorded) a data file the
 * loader let go long ago may still frame code mapped since in its place (a JIT's).
 */
static int maps_text(const struct unwind_input *in, char **text, size_t *len)
{
	FILE *f = open_memstream(text, len);
	size_t i;

	if (!f)
		return -ENOMEM;
	for (i = 0; i < in->map_cnt; i++) {
		const struct unwind_map *m = &in->maps[i];

		/* anonymous mappings describe no module; newlines would split a line */
		if (!m->path || m->path[0] != '/' || strchr(m->path, '\n') ||
		    !file_has_code(in, m->path))
			continue;
		fprintf(f, "%llx-%llx r%cxp %llx %x:%x %llu %s\n", (unsigned long long)m->start,
			(unsigned long long)m->end, m->exec ? 'x' : '-',
			(unsigned long long)m->pgoff, m->dev_major, m->dev_minor,
			(unsigned long long)m->inode, m->path);
	}
	if (fclose(f))
		return -ENOMEM;
	return 0;
}

static const struct unwind_map *map_of(const struct unwind_input *in, uint64_t addr)
{
	size_t i;

	for (i = 0; i < in->map_cnt; i++) {
		if (addr >= in->maps[i].start && addr < in->maps[i].end)
			return &in->maps[i];
	}
	return NULL;
}

static void describe(struct unwinder *p, struct unwind_frame *f)
{
	/* a return address: the call is the instruction before it */
	uint64_t addr = f->activation ? f->pc : f->pc - 1;
	const struct unwind_map *m = map_of(p->in, f->pc);
	Dwfl_Module *mod = dwfl_addrmodule(p->dwfl, addr);
	const unsigned char *bits;
	GElf_Addr bid_vaddr, bias = 0;
	GElf_Off off;
	GElf_Sym sym;
	Dwfl_Line *line;
	const char *name;
	int n, i;

	if (m)
		f->file_off = f->pc - m->start + m->pgoff;
	/* code with no file (a JIT's), whatever module's range it lies in */
	if (!mod || (m && !m->path))
		return;
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &f->module, NULL);
	if (!f->module)
		f->module = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	/* first: the build ID note is read with the ELF file */
	if (dwfl_module_getelf(mod, &bias))
		f->vaddr = f->pc - bias;
	n = dwfl_module_build_id(mod, &bits, &bid_vaddr);
	for (i = 0; i < n && i < 20; i++)
		snprintf(f->build_id + 2 * i, 3, "%02x", bits[i]);
	if (!p->opts.symbolize)
		return;
	name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	if (name) {
		f->sym = name;
		f->sym_off = f->pc - (addr - off);
	}
	if (!dwfl_module_getdwarf(mod, &bias)) {
		f->no_lines = dwfl_errmsg(-1);
		return;
	}
	line = dwfl_module_getsrc(mod, addr);
	if (!line) {
		f->no_lines = "no line-table row covers the address";
		return;
	}
	f->file = dwfl_lineinfo(line, NULL, &f->line, &f->col, NULL, NULL);
}

/* Whether the module's .eh_frame or .debug_frame describes the code at @addr. */
static bool has_cfi(Dwfl_Module *mod, Dwarf_Addr addr)
{
	Dwarf_Frame *frame;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;

	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, addr - bias, &frame)) {
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, addr - bias, &frame))
			return false;
	}
	free(frame);
	return true;
}

/* "busybox+0x122e8f", or the bare address of a frame no file covers */
static void frame_name(const struct unwind_frame *f, char *buf, size_t sz)
{
	const char *base;

	if (!f->module) {
		snprintf(buf, sz, "%#llx", (unsigned long long)f->pc);
		return;
	}
	base = strrchr(f->module, '/') ? strrchr(f->module, '/') + 1 : f->module;
	snprintf(buf, sz, "%.96s+%#llx", base, (unsigned long long)f->file_off);
}

/* Whether a frame below @f was found without unwind information (a frame-pointer guess). */
static bool guessed_below(struct unwinder *p, const struct unwind_frame *f)
{
	Dwarf_Addr addr = f->activation ? f->pc : f->pc - 1;
	Dwfl_Module *mod = dwfl_addrmodule(p->dwfl, addr);

	return !mod || !has_cfi(mod, addr);
}

/*
 * Whether @f is a return address into the code at its file's ELF entry point that no unwind
 * information covers: the process's first frame. The kernel starts a process there with
 * nothing above it, so a stack that ends there is whole. glibc's _start says so in its CFI
 * (an undefined return address, which libdwfl takes as the end), but the dynamic linker's
 * own entry code, where a process still being linked (its libraries' searches, their
 * constructors) started, has no CFI at all: its stacks were called incomplete.
 * Every byte from the entry point to @f must lack CFI, so a function of its own after the
 * entry code never passes for it.
 */
static bool at_entry(struct unwinder *p, const struct unwind_frame *f)
{
	Dwarf_Addr addr = f->activation ? f->pc : f->pc - 1, bias, entry, a;
	Dwfl_Module *mod = dwfl_addrmodule(p->dwfl, addr);
	GElf_Ehdr ehdr;
	Elf *elf;

	if (!mod)
		return false;
	elf = dwfl_module_getelf(mod, &bias);
	if (!elf || !gelf_getehdr(elf, &ehdr) || !ehdr.e_entry)
		return false;
	entry = ehdr.e_entry + bias;
	if (addr < entry || addr - entry >= ENTRY_CODE_MAX)
		return false;
	for (a = entry; a <= addr; a++) {
		if (has_cfi(mod, a))
			return false;
	}
	return true;
}

/*
 * A return address must point into the process's code. Without unwind information for
 * the frame below, libdwfl follows the frame pointer, and in code built without one
 * (Debian's busybox, most -O2 code) that reads whatever the register held: environment
 * strings, zero, a pointer into data. Such a "caller" is no frame: the stack ends there.
 */
static bool is_code(const struct unwind_input *in, Dwarf_Addr ret_addr)
{
	const struct unwind_map *m = ret_addr ? map_of(in, ret_addr - 1) : NULL;

	return m && m->exec;
}

static void say_not_code(struct unwinder *p, Dwarf_Addr pc)
{
	const struct unwind_frame *last = &p->frames[p->cnt - 1];
	char name[128];

	frame_name(last, name, sizeof(name));
	if (guessed_below(p, last))
		snprintf(p->stop, sizeof(p->stop), "no unwind information for %s, and its frame "
			 "pointer leads to 0x%llx, which is not code", name, (unsigned long long)pc);
	else
		snprintf(p->stop, sizeof(p->stop), "the return address unwound for %s's caller, "
			 "%#llx, is not code", name, (unsigned long long)pc);
}

/* In anonymous executable memory: code with no file, a JIT's (a JVM's, V8's) */
static bool jit_code(const struct unwind_input *in, uint64_t addr)
{
	const struct unwind_map *m = map_of(in, addr);

	return m && !m->path && m->exec;
}

static struct unwind_frame *add_frame(struct unwinder *p, Dwarf_Addr pc, bool act, bool guessed)
{
	struct unwind_frame *f;

	if (p->cnt == p->opts.max_frames) {
		snprintf(p->stop, sizeof(p->stop), "more than %zu frames", p->opts.max_frames);
		return NULL;
	}
	if (p->cnt == p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 16;
		void *tmp = realloc(p->frames, ncap * sizeof(*p->frames));

		if (!tmp) {
			snprintf(p->stop, sizeof(p->stop), "out of memory");
			return NULL;
		}
		p->frames = tmp;
		p->cap = ncap;
	}
	f = &p->frames[p->cnt++];
	memset(f, 0, sizeof(*f));
	f->pc = pc;
	f->activation = act;
	f->guessed = guessed;
	describe(p, f);
	/* reading the error clears it: a symbolization failure is not the unwinder's */
	dwfl_errno();
	return f;
}

/*
 * @state's frame runs code with no file (a JIT's), which has no unwind information, but
 * JITs keep frame records: the frame pointer register holds the address of the caller's
 * frame pointer, saved with the return address above it (x86-64's push %rbp, arm64's
 * stp x29, x30), and the caller's stack pointer is 16 bytes above. Followed from record to
 * record while the return addresses stay in such code; at the first one into a file's
 * code libdwfl resumes, from there (unwinder__run()). Not libdwfl's own frame-pointer
 * guess: on arm64 it takes the link register for the caller, which in a frame below others
 * is the frame's own return address (the JIT frame came twice, and the stack pointer
 * guessed after it lost the frames above main).
 */
static int walk_records(struct unwinder *p, Dwfl_Frame *state)
{
	unsigned sp_reg = p->in->arch == UNWIND_ARCH_X86_64 ? 7 : 31;
	unsigned fp_reg = p->in->arch == UNWIND_ARCH_X86_64 ? 6 : 29;
	unsigned i, nregs = p->in->arch == UNWIND_ARCH_X86_64 ? 16 : 32;
	Dwarf_Word fp, ret, next;

	for (i = 0; i < nregs; i++) {
		/* a register libdwfl can't tell here is none a caller's CFI should need */
		if (dwfl_frame_reg(state, i, &p->resume_regs[i]))
			p->resume_regs[i] = 0;
	}
	fp = p->resume_regs[fp_reg];
	for (;;) {
		if (!memory_read(NULL, fp + 8, &ret, p) || !memory_read(NULL, fp, &next, p)) {
			if (p->mem_err[0])
				snprintf(p->stop, sizeof(p->stop), "%s", p->mem_err);
			else
				snprintf(p->stop, sizeof(p->stop), "no frame record in code with no "
					 "file: its frame pointer, %#llx, is below the stack",
					 (unsigned long long)fp);
			return DWARF_CB_ABORT;
		}
		if (!is_code(p->in, ret)) {
			say_not_code(p, ret);
			return DWARF_CB_ABORT;
		}
		if (!jit_code(p->in, ret))
			break;
		/* callers' records lie above: one that doesn't is no frame record */
		if (next <= fp) {
			snprintf(p->stop, sizeof(p->stop), "the frame record at %#llx in code with "
				 "no file leads back down the stack", (unsigned long long)fp);
			return DWARF_CB_ABORT;
		}
		if (!add_frame(p, ret, false, true))
			return DWARF_CB_ABORT;
		fp = next;
	}
	/*
	 * libdwfl takes a walk's first pc as where the thread stopped and looks its CFI up
	 * there, not at the call before it: the same function's unless the call is its last
	 * instruction (a call that never returns, which a JIT's caller doesn't make)
	 */
	p->resume_regs[sp_reg] = fp + 16;
	p->resume_regs[fp_reg] = next;
	p->resume_pc = ret;
	p->again = true;
	return DWARF_CB_ABORT;
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct unwinder *p = arg;
	struct unwind_frame *f;
	Dwarf_Addr pc;
	bool act, guessed;

	if (!dwfl_frame_pc(state, &pc, &act))
		return -1;
	/* a resumed walk's first frame is a return address, not where the thread stopped */
	if (p->resumed) {
		act = false;
		p->resumed = false;
	}
	guessed = !act && p->cnt > 0 && guessed_below(p, &p->frames[p->cnt - 1]);
	/* libdwfl's frame-pointer guess beyond the process's first frame is no frame */
	if (guessed && at_entry(p, &p->frames[p->cnt - 1]))
		return DWARF_CB_ABORT;
	if (!act && p->cnt > 0 && !is_code(p->in, pc)) {
		say_not_code(p, pc);
		return DWARF_CB_ABORT;
	}
	f = add_frame(p, pc, act, guessed);
	if (!f)
		return DWARF_CB_ABORT;
	/* an outer frame where the thread stopped: the one a signal interrupted */
	if (act && p->cnt > 1)
		p->past_signal = true;
	return jit_code(p->in, pc) ? walk_records(p, state) : DWARF_CB_OK;
}

static int check_input(const struct unwind_input *in)
{
	size_t i;

	if (!in || !in->regs || (in->stack_len && !in->stack) || (in->map_cnt && !in->maps))
		return -EINVAL;
	if (in->pid <= 0)
		return -EINVAL;
	if ((in->arch == UNWIND_ARCH_X86_64 && in->reg_cnt < X86_64_REGS) ||
	    (in->arch == UNWIND_ARCH_ARM64 && in->reg_cnt < ARM64_REGS) ||
	    (in->arch != UNWIND_ARCH_X86_64 && in->arch != UNWIND_ARCH_ARM64))
		return -EINVAL;
	if (in->stack_len > UINT64_MAX - in->sp)
		return -EINVAL;
	for (i = 0; i < in->map_cnt; i++) {
		if (in->maps[i].start >= in->maps[i].end)
			return -EINVAL;
	}
	return 0;
}

/* The Dwfl for @in's process: the last one if its mappings are the same. */
/* Each module's find_elf() source: the first mapping of its file. */
static int bind_module(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
		       void *arg)
{
	struct unwinder *u = arg;
	struct mod_src *src;
	size_t i;

	for (i = 0; i < u->in->map_cnt; i++) {
		if (u->in->maps[i].path && !strcmp(u->in->maps[i].path, name))
			break;
	}
	if (i == u->in->map_cnt || u->src_cnt == u->in->map_cnt)
		return DWARF_CB_OK;
	src = &u->srcs[u->src_cnt++];
	src->u = u;
	src->map_idx = i;
	*userdata = src;
	return DWARF_CB_OK;
}

/* The image ids are part of what a kept Dwfl was built from. */
static bool same_ids(const struct unwinder *u, const struct unwind_input *in)
{
	size_t i;

	for (i = 0; i < in->map_cnt; i++) {
		if (u->ids[i] != in->maps[i].image_id)
			return false;
	}
	return true;
}

static int get_dwfl(struct unwinder *u, const struct unwind_input *in)
{
	char *text = NULL;
	size_t len = 0, i;
	FILE *f;
	int err;

	err = maps_text(in, &text, &len);
	if (err)
		return err;
	if (u->dwfl && u->pid == in->pid && u->arch == in->arch && u->maps_len == len &&
	    !memcmp(u->maps_text, text, len) && u->id_cnt == in->map_cnt && same_ids(u, in)) {
		free(text);
		return 0;
	}
	if (u->dwfl)
		dwfl_end(u->dwfl);
	u->dwfl = NULL;
	free(u->srcs);
	free(u->ids);
	u->src_cnt = u->id_cnt = 0;
	u->srcs = calloc(in->map_cnt ?: 1, sizeof(*u->srcs));
	u->ids = calloc(in->map_cnt ?: 1, sizeof(*u->ids));
	if (!u->srcs || !u->ids) {
		free(text);
		return -ENOMEM;
	}
	for (i = 0; i < in->map_cnt; i++)
		u->ids[i] = in->maps[i].image_id;
	u->id_cnt = in->map_cnt;
	free(u->maps_text);
	u->maps_text = text;
	u->maps_len = len;
	u->pid = in->pid;
	u->arch = in->arch;
	u->dwfl = dwfl_begin(&dwfl_cbs);
	if (!u->dwfl)
		return -ENOMEM;
	f = fmemopen(text, len ?: 1, "r");
	if (!f)
		return -ENOMEM;
	dwfl_report_begin(u->dwfl);
	/* a file that can't be opened only leaves its frames without a module */
	err = dwfl_linux_proc_maps_report(u->dwfl, f);
	fclose(f);
	if (dwfl_report_end(u->dwfl, NULL, NULL))
		return -ENOMEM;
	dwfl_getmodules(u->dwfl, bind_module, u, 0);
	/* the architecture comes from a module: with none, nothing can be unwound */
	if (err || !dwfl_attach_state(u->dwfl, NULL, in->pid, &thread_cbs, u)) {
		snprintf(u->stop, sizeof(u->stop), "no binary of the process could be read (%s)",
			 dwfl_errmsg(-1));
		/* not kept: the next capture tries again */
		dwfl_end(u->dwfl);
		u->dwfl = NULL;
		return -ENOENT;
	}
	return 0;
}

int unwinder__new(const struct unwind_opts *opts, struct unwinder **out)
{
	struct unwinder *u;
	size_t i;

	*out = NULL;
	if (opts && opts->sz < sizeof(size_t))
		return -EINVAL;
	for (i = sizeof(u->opts); opts && i < opts->sz; i++) {
		if (((const char *)opts)[i])
			return -EINVAL;
	}
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	if (opts)
		memcpy(&u->opts, opts, opts->sz < sizeof(u->opts) ? opts->sz : sizeof(u->opts));
	u->opts.sz = sizeof(u->opts);
	if (!u->opts.max_frames)
		u->opts.max_frames = DEFAULT_MAX_FRAMES;
	*out = u;
	return 0;
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	free(u->maps_text);
	free(u->frames);
	free(u->srcs);
	free(u->ids);
	free(u);
}

static void say_stop(struct unwinder *u, int err)
{
	const struct unwind_frame *last = u->cnt ? &u->frames[u->cnt - 1] : NULL;
	char name[128];

	if (u->stop[0])
		return;
	/* the process's first frame: whatever libdwfl tried beyond it (an error, a read) */
	if (last && last->module && at_entry(u, last))
		return;
	/* a read beyond the window ends libdwfl's unwinding, with or without an error */
	if (u->mem_err[0]) {
		snprintf(u->stop, sizeof(u->stop), "%s", u->mem_err);
	} else if (last && last->module && guessed_below(u, last)) {
		/*
		 * Also when libdwfl saw the end: without CFI it takes a zero frame pointer for
		 * the outermost frame, which in code built without frame pointers is just a
		 * register that held 0 (the test program's open_config, main's two frames on).
		 */
		frame_name(last, name, sizeof(name));
		snprintf(u->stop, sizeof(u->stop), "no unwind information for %s (no .eh_frame "
			 "or .debug_frame entry covers it) and no frame pointer to follow", name);
	} else if (!err) {
		return;
	} else if (last && last->module) {
		frame_name(last, name, sizeof(name));
		snprintf(u->stop, sizeof(u->stop), "no caller found for %s: %s", name,
			 dwfl_errmsg(err));
	} else {
		snprintf(u->stop, sizeof(u->stop), "%s", dwfl_errmsg(err));
	}
}

int unwinder__run(struct unwinder *u, const struct unwind_input *in, struct unwind_result *res)
{
	int err, ret;

	memset(res, 0, sizeof(*res));
	err = check_input(in);
	if (err)
		return err;
	u->in = in;
	u->cnt = 0;
	u->mem_err[0] = u->stop[0] = '\0';
	u->past_signal = false;
	err = get_dwfl(u, in);
	if (err == -ENOMEM)
		return err;
	if (!err) {
		dwfl_errno();
		u->again = u->resume = false;
		ret = dwfl_getthread_frames(u->dwfl, in->pid, on_frame, u);
		/* past code with no file: on from its callers' frame (walk_records()) */
		while (u->again && !u->stop[0]) {
			u->again = false;
			u->resume = u->resumed = true;
			dwfl_errno();
			ret = dwfl_getthread_frames(u->dwfl, in->pid, on_frame, u);
		}
		u->resume = u->resumed = false;
		/* -1 without an error: libdwfl's way of saying it reached the outermost frame */
		say_stop(u, ret == -1 ? dwfl_errno() : 0);
	}
	u->in = NULL;
	res->frames = u->frames;
	res->cnt = u->cnt;
	res->stop = u->stop[0] ? u->stop : NULL;
	return 0;
}
