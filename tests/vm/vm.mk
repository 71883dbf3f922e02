# VM scenarios: tests/vm/scenarios/*.sh on real Debian kernels (see tests/vm/README.md).
# make test (test-vm) keeps to 15 minutes on 2 cores: every scenario on 6.12 (but the slow
# ones below), and on 6.1
# and 5.10 the ones whose answers depend on what those kernels lack (no kprobe.multi; 5.10:
# no bpf_get_func_ip(), so calibrated kretprobes, and no fentry), on latest its stacks.
# make test-kernels runs every scenario on every kernel (error-hunts, drops, environment,
# trace-lbr ... on 6.1 and 5.10 too). KERNELS=... runs every scenario on the kernels
# given. VM_QUICK=1 lets a scenario drop repeats that make test-kernels covers (inject: the
# non-default modes; inband: the README's ip example on a narrow hunt, not a second
# whole-kernel one).
# (interim runs on 6.12 in make test, on 6.1 too in make test-kernels: 15 minutes)
# What no kernel changes the answer of runs once, on 6.12, through VM_ONCE (lib.sh vm_once):
# the checks inside a scenario that are the same code on every kernel (stack-trace's
# -x/-X/-S/-n/-N/-p/-L filters, args' layouts, --json and --config-help, command's exit
# statuses, bad input and -o FILE). make test-kernels runs them everywhere. The guest set-up
# checks (tracefs, BTF, bpffs, job control) ride in features' boot on every kernel.
# command: the life of `-- CMD` (small globs) on 6.1 too; its whole-kernel hunt needs
# kprobe.multi and runs on 6.12 in make test-kernels only (VM_QUICK drops it: ~3 minutes)
# missed-exits: -K's kretprobes on 6.1 and 5.10 too (21 s, 7 s; 5.10: the table's claims)
# session-table: asked for on 6.1, the default on latest, and on 5.10 with its slots claimed
# in a hash map (no compare-and-swap there; 7 s)
# uprobe-session on 6.1 (Debian 12's kernel): its verifier adds up the stack of every
# call chain, global functions' too, and refused kentry with -A and user functions (21 s)
QUICK_6.1 := features simfail-errnos stack-trace args inject command missed-exits session-table uprobe-session
# irq-calls: interrupts' calls told apart by their stack: 5.10's kretprobes and its
# interrupt entry, latest's sessions on the function-graph tracer, 6.12 every probe kind
# (11-25 s each; 6.1's -F and -K are 6.12's programs on an older verifier)
# kernel-builds: 5.10 lays a module out in one core_layout (6.4+: a region per kind), which
# a kept module's symbols must follow (66 s)
QUICK_5.10 := features simfail-errnos stack-trace attach-modes missed-exits kernel-builds session-table prune irq-calls
# the newest kernel: its stacks (kprobe.multi on the function-graph tracer, compared with
# every other mode); its other scenarios (6 more minutes) in make test-kernels
QUICK_latest := stack-trace session-table prune hunt-origin irq-calls
# 6.12: every scenario but the slow ones, which only make test-kernels runs: signals (a
# signal in every phase, each run attaching and releasing a few hundred functions: 2 minutes
# even in its VM_QUICK subset, 5 in full)
SLOW_6.12 := signals
QUICK_6.12 := $(filter-out $(SLOW_6.12),$(basename $(notdir $(wildcard tests/vm/scenarios/*.sh))))

ifdef KERNELS
test-vm:
	$(Q)tests/vm/run-scenarios $(KERNELS)
else
# Two lanes side by side, each with its own VM lock (RETSNOOP_VM_LANE) and its output
# printed after the other's: 6.12's list, and 5.10's, 6.1's, latest's and the rest of
# 6.12's (LANE2_6.12) one after the other. A guest leaves most of a core idle (grace
# periods, boots, sleeps): one lane at a time, make test took 980 s beside a second
# CPU-bound guest; two, 913 s with 6.12's whole list the longer lane (889 s against 647:
# environment moved over evens them). bench/results/vm-scenario-times.txt has the runs.
# VM_LANES=1: one lane, each kernel's list in one go.
LANE2_6.12 := environment
test-vm:
	$(Q)rc=0; export VM_ONCE=6.12; \
	others() { \
		SCENARIOS='$(QUICK_5.10)' tests/vm/run-scenarios 5.10 || r=1; \
		SCENARIOS='$(QUICK_6.1)' tests/vm/run-scenarios 6.1 || r=1; \
		SCENARIOS='$(QUICK_latest)' tests/vm/run-scenarios latest || r=1; \
		return $${r:-0}; \
	}; \
	if [ "$${VM_LANES:-2}" = 1 ]; then \
		others || rc=1; \
		VM_QUICK=1 SCENARIOS='$(QUICK_6.12)' tests/vm/run-scenarios 6.12 || rc=1; \
	else \
		out2=$$(mktemp); \
		(export RETSNOOP_VM_LANE=2; others || r=1; \
		 VM_QUICK=1 SCENARIOS='$(LANE2_6.12)' tests/vm/run-scenarios 6.12 || r=1; \
		 exit $${r:-0}) >"$$out2" 2>&1 & pid2=$$!; \
		VM_QUICK=1 SCENARIOS='$(filter-out $(LANE2_6.12),$(QUICK_6.12))' tests/vm/run-scenarios 6.12 || rc=1; \
		wait $$pid2 || rc=1; \
		cat "$$out2"; rm -f "$$out2"; \
	fi; \
	exit $$rc
endif

# The full stress load (make test runs 15 s of it), and arm64 guests too: cross-built
# retsnoop on qemu-system-aarch64 (tools/deps.sh arm64 sets up what they need, as root;
# else it prints the command and stops here).
ARM64_KERNELS ?= 6.12 latest

test-kernels:
	$(Q)tools/deps.sh arm64
	$(Q)STRESS_SECONDS=60 tests/vm/run-scenarios 5.10 6.1 6.12 latest $(addprefix arm64:,$(ARM64_KERNELS))

# errtrig: real kernel errors outside BPF for the guests' error hunts (a test helper,
# built next to retsnoop and simfail; the guests get the static build).
$(BIN_DIR)/errtrig: tests/vm/errtrig.c
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@
CLEAN_EXTRA += src/errtrig

# errtrig32: an i386 program failing an open() (a 32-bit command's compat syscalls; x86
# guests only): no libc, so -m32 needs no 32-bit C library installed.
$(BIN_DIR)/errtrig32: tests/vm/errtrig32.c
	$(call msg,BINARY,$@)
	$(Q)$(CC) -m32 -O1 -fno-omit-frame-pointer -nostdlib -static -fno-pic -fno-stack-protector $< -o $@
CLEAN_EXTRA += src/errtrig32

# capexec: run a command as an unprivileged user with exactly some capabilities (guests'
# privilege checks).
$(BIN_DIR)/capexec: tests/vm/capexec.c
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@
CLEAN_EXTRA += src/capexec

# ttyintr: run a command on a pseudo-terminal and type Ctrl-C there on SIGUSR1 (guests'
# signal checks: a terminal's SIGINT, which kill(1) can't send).
$(BIN_DIR)/ttyintr: tests/vm/ttyintr.c
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@
CLEAN_EXTRA += src/ttyintr
