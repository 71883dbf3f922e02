# Benchmarks (not tests): `make bench` writes bench/results/*.txt, each with the command
# that produced it. Timings come from the TCG guest or the host as noted in each file.
BENCH_OUT := $(OUTPUT)/bench

$(BENCH_OUT):
	$(Q)mkdir -p $@

$(BENCH_OUT)/consumer_bench: bench/consumer_bench.c $(MOD_LIB) | $(BENCH_OUT)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(INCLUDES) $< $(MOD_LIB) $(LDLIBS) -o $@

$(BENCH_OUT)/syscall_loop: bench/syscall_loop.c | $(BENCH_OUT)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) -static $(INCLUDES) $< $(LIBBPF_LIBS) $(LIBBPF_DEPS) -o $@

bench: $(BENCH_OUT)/consumer_bench $(BENCH_OUT)/syscall_loop bench-sidecar
	$(Q)bench/run.sh

# The symbolization sidecar against gimli's addr2line, llvm-symbolizer, eu-addr2line and
# binutils addr2line on the Debian 6.12 DWARF vmlinux (downloaded into the kernel cache).
bench-sidecar: $(SIDECAR_BIN) | $(BENCH_OUT)
	$(Q)kdir=$$(tests/vm/fetch-kernel 6.12 --dbg) && \
	gimli=$$(bench/build-gimli-addr2line.sh $(abspath $(BENCH_OUT))) && \
	mkdir -p bench/results && \
	{ echo "# command: make bench-sidecar, i.e. bench/sidecar-bench.py $$kdir/vmlinux $$kdir/System.map --gimli $$gimli"; \
	  echo "# versions: $$(llvm-symbolizer --version | grep -o 'LLVM version [0-9.]*'), $$(eu-addr2line --version | head -1), $$(addr2line --version | head -1), gimli addr2line $$(basename $$(ls -d /usr/share/cargo/registry/addr2line-0.*) | sed 's/addr2line-//') (Debian librust-addr2line-dev)"; \
	  bench/sidecar-bench.py $$kdir/vmlinux $$kdir/System.map --gimli $$gimli; } | tee bench/results/sidecar.txt

.PHONY: bench bench-sidecar
