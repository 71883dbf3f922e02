# Benchmarks (not tests): `make bench` writes bench/results/*.txt, each with the command
# that produced it. Timings come from the TCG guest or the host as noted in each file.
BENCH_OUT := $(OUTPUT)/bench

$(BENCH_OUT):
	$(Q)mkdir -p $@

$(BENCH_OUT)/consumer_bench: bench/consumer_bench.c $(MOD_LIB) | $(BENCH_OUT)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(INCLUDES) $< $(MOD_LIB) $(LDLIBS) -o $@

# Guest-side binaries, static like retsnoop in the test guests (RETSNOOP_VM_EXTRA).
$(BENCH_OUT)/syscall_loop: bench/syscall_loop.c $(LIBBPF_TARGET) | $(BENCH_OUT)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) -static $(INCLUDES) $< $(LIBBPF_LIBS) $(LIBBPF_DEPS) -o $@

# Profiling aid: each loaded program's JIT addresses by source line (bench/prog-profile.sh).
$(BENCH_OUT)/prog_lines: bench/prog_lines.c $(LIBBPF_TARGET) | $(BENCH_OUT)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) -static $(INCLUDES) $< $(LIBBPF_LIBS) $(LIBBPF_DEPS) -o $@

$(BENCH_OUT)/stamp: bench/stamp.c | $(BENCH_OUT)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) -static $< -o $@

$(BENCH_OUT)/floor.bpf.o: bench/floor.bpf.c src/$(ARCH)/vmlinux.h $(LIBBPF_TARGET) | $(BENCH_OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BENCH_OUT)/floor.skel.h: $(BENCH_OUT)/floor.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name floor_bpf > $@.tmp && mv $@.tmp $@

# src/kprobe_pmu.c, src/kprobe_session.c and src/tracing_multi.c compiled in: the floor
# opens its kprobes as -K does, its session links as the default mode does where the kernel
# has them, and its tracing multi-link (-Y) as -F does
$(BENCH_OUT)/floor: bench/floor.c src/kprobe_pmu.c src/kprobe_pmu.h src/kprobe_session.c src/kprobe_session.h src/tracing_multi.c src/tracing_multi.h $(BENCH_OUT)/floor.skel.h $(LIBBPF_TARGET)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) -static -I$(BENCH_OUT) $(INCLUDES) $< src/kprobe_pmu.c src/kprobe_session.c src/tracing_multi.c $(LIBBPF_LIBS) $(LIBBPF_DEPS) -o $@

BENCH_GUEST_BINS := $(addprefix $(BENCH_OUT)/,floor stamp syscall_loop prog_lines)

# Everything the benchmarks run, built without running anything.
bench-build: $(BENCH_OUT)/consumer_bench $(BENCH_GUEST_BINS)

bench: bench-consumer bench-sidecar bench-perf bench-prune bench-profile bench-uprobe

# Host: records/s decoded and rendered from the golden captures.
bench-consumer: $(BENCH_OUT)/consumer_bench
	$(Q)bench/run.sh

# The 6.12 guest: per-call cost, start-up, load + attach, peak RSS, against the empty-pair
# floor and PEER_RETSNOOP when set (bench/perf.sh; BENCH_TABLES narrows the tables).
bench-perf: $(BENCH_GUEST_BINS)
	$(Q)bench/perf.sh $(BENCH_TABLES)

# 7.2 and 6.12 guests: start-up of every mode, programs pruned before the load or whole.
bench-prune: $(BENCH_OUT)/stamp
	$(Q)bench/prune-modes.sh

# The 7.2 guest, the host's perf copied in: a traced getpid()'s instructions by kernel
# function and by our programs' source lines (prog-profile.txt), and where the BPF load
# over ~1,000 functions goes (load-profile.txt).
bench-profile: $(BENCH_OUT)/stamp $(BENCH_OUT)/syscall_loop $(BENCH_OUT)/prog_lines
	$(Q)PROFILE_KERNEL=latest bench/prog-profile.sh
	$(Q)bench/load-profile.sh

# The symbolization sidecar against gimli's addr2line, llvm-symbolizer, eu-addr2line and
# binutils addr2line on the Debian 6.12 DWARF vmlinux (downloaded into the kernel cache).
bench-sidecar: $(SIDECAR_BIN) | $(BENCH_OUT)
	$(Q)kdir=$$(tests/vm/fetch-kernel 6.12 --dbg) && \
	gimli=$$(bench/build-gimli-addr2line.sh $(abspath $(BENCH_OUT))) && \
	mkdir -p bench/results && \
	{ echo "# command: make bench-sidecar, i.e. bench/sidecar-bench.py $$kdir/vmlinux $$kdir/System.map --gimli $$gimli"; \
	  echo "# versions: $$(llvm-symbolizer --version | grep -o 'LLVM version [0-9.]*'), $$(eu-addr2line --version | head -1), $$(addr2line --version | head -1), gimli addr2line $$(basename $$(ls -d /usr/share/cargo/registry/addr2line-0.*) | sed 's/addr2line-//') (Debian librust-addr2line-dev)"; \
	  bench/sidecar-bench.py $$kdir/vmlinux $$kdir/System.map --gimli $$gimli; } | tee bench/results/sidecar.txt

.PHONY: bench bench-prune bench-profile bench-build bench-consumer bench-perf bench-sidecar

# User-space tracing on the host (bench/uprobe.sh): the empty uprobe pair floor, and a
# program with 1,000 functions for attach/detach.
$(BENCH_OUT)/ufloor.bpf.o: bench/ufloor.bpf.c src/$(ARCH)/vmlinux.h $(LIBBPF_TARGET) | $(BENCH_OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BENCH_OUT)/ufloor.skel.h: $(BENCH_OUT)/ufloor.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name ufloor_bpf > $@.tmp && mv $@.tmp $@

$(BENCH_OUT)/ufloor: bench/ufloor.c $(BENCH_OUT)/ufloor.skel.h $(MOD_LIB)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) -I$(BENCH_OUT) $(INCLUDES) $< $(MOD_LIB) $(LDLIBS) -o $@

# ufuncs: 1,000 functions uf0..uf999 that main calls once each (attach/detach of 1,000)
$(BENCH_OUT)/ufuncs: | $(BENCH_OUT)
	$(call msg,BINARY,$@)
	$(Q){ for i in $$(seq 0 999); do echo "__attribute__((noipa)) int uf$$i(int x) { return x + $$i; }"; done; \
	  echo 'int main(void) { int s = 0;'; \
	  for i in $$(seq 0 999); do echo "s += uf$$i(s);"; done; echo 'return s == 42; }'; } >$@.c && \
	  $(CC) -O1 $@.c -o $@

bench-uprobe: all uprog $(BENCH_OUT)/ufloor $(BENCH_OUT)/ufuncs
	$(Q)bench/uprobe.sh | tee bench/results/uprobe.txt
	$(Q)$(MAKE) -s STATIC=1 OUTPUT=src/.output-static BIN_DIR=src/.output-static
	$(Q)bench/uprobe-refused.sh | tee bench/results/uprobe-refused.txt
	$(Q)BASE_RS=$(BASE_RETSNOOP) bench/ustart.sh | tee bench/results/ustart.txt
	$(Q)bench/usyscall.sh | tee bench/results/usyscall.txt

.PHONY: bench-uprobe
