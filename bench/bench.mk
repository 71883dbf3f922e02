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

bench: $(BENCH_OUT)/consumer_bench $(BENCH_OUT)/syscall_loop
	$(Q)bench/run.sh
