# libFuzzer targets: tests/fuzz/<name>.c, each built twice from the module sources:
# - $(FUZZ_OUT)/<name>: clang with -fsanitize=fuzzer,address,undefined (make fuzz-build,
#   make fuzz, make fuzz-<name>);
# - $(OUTPUT)/unit/fuzz-replay-<name>: gcc with the unit tests' ASan/UBSan and
#   tests/fuzz/replay_main.c instead of libFuzzer, run by make test-unit over the seed corpus
#   and every crash input kept in tests/fuzz/regressions/<name>/.
# Included before tests/unit/unit.mk (it appends to EXTRA_UNIT_BINS), so targets and
# prerequisites use plain paths, no UNIT_* variables.
#
# FUZZ_TARGETS lists make targets that each run one fuzzer for $(FUZZ_SECONDS) seconds;
# other fragments append theirs (sidecar/fuzz.mk adds fuzz-sidecar). make fuzz runs them one
# after the other and fails if any found something.

FUZZ_NAMES := ksyms ftrace_funcs kernel_notes discovery glob cli capture session proc_maps prune \
	elf_funcs
FUZZ_OUT := $(OUTPUT)/fuzz
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS ?=
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_MOD_OBJS := $(patsubst src/%.c,$(FUZZ_OUT)/mod/%.o,$(MOD_SRCS))
FUZZ_LIB := $(FUZZ_OUT)/libretsnoop-fuzz.a
FUZZ_BINS := $(addprefix $(FUZZ_OUT)/,$(FUZZ_NAMES))
FUZZ_REPLAY_BINS := $(addprefix $(OUTPUT)/unit/fuzz-replay-,$(FUZZ_NAMES))
FUZZ_TARGETS += $(addprefix fuzz-,$(FUZZ_NAMES))

EXTRA_UNIT_BINS += $(FUZZ_REPLAY_BINS)

.PHONY: fuzz fuzz-build $(addprefix fuzz-,$(FUZZ_NAMES))

$(FUZZ_OUT)/mod:
	$(Q)mkdir -p $@

# Coverage instrumentation for the modules, the fuzzer's main only in the final link.
$(FUZZ_OUT)/mod/%.o: src/%.c $(wildcard src/*.h) $(SKELS) $(LIBBPF_TARGET) | $(FUZZ_OUT)/mod
	$(call msg,CC-FUZZ,$@)
	$(Q)$(FUZZ_CC) $(CFLAGS) -O1 -fsanitize=fuzzer-no-link $(FUZZ_SAN) $(INCLUDES) -c $< -o $@

$(FUZZ_LIB): $(FUZZ_MOD_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

$(FUZZ_OUT)/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(FUZZ_LIB)
	$(call msg,FUZZER,$@)
	$(Q)$(FUZZ_CC) $(CFLAGS) -O1 -fsanitize=fuzzer $(FUZZ_SAN) $(INCLUDES) $< $(FUZZ_LIB) \
		$(LIBBPF_LIBS) $(LIBBPF_DEPS) $(JANSSON_LIBS) $(DW_LIBS) $(DEMANGLE_LIBS) -lpthread -o $@

$(OUTPUT)/unit/fuzz-replay-%: tests/fuzz/%.c tests/fuzz/replay_main.c tests/fuzz/fuzz.h \
		tests/unit/unit.h $(OUTPUT)/unit/libretsnoop-san.a
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) -O1 $(UNIT_SAN) $(INCLUDES) -Itests/unit -DFUZZ_NAME='"$*"' \
		$< tests/fuzz/replay_main.c $(OUTPUT)/unit/libretsnoop-san.a \
		$(LIBBPF_LIBS) $(LIBBPF_DEPS) $(JANSSON_LIBS) $(DW_LIBS) $(DEMANGLE_LIBS) -lz -lcmocka -lpthread -o $@

fuzz-build: $(FUZZ_BINS)

# One fuzzer: new inputs go to $(FUZZ_OUT)/corpus/<name> (the checked-in seeds stay as they
# are), crash inputs to $(FUZZ_OUT)/crashes/<name>/.
$(addprefix fuzz-,$(FUZZ_NAMES)): fuzz-%: $(FUZZ_OUT)/%
	$(Q)tests/fuzz/run.sh $< tests/fuzz/corpus/$* $(FUZZ_OUT) $(FUZZ_SECONDS) $(FUZZ_FLAGS)

fuzz: fuzz-build
	$(Q)failed=; for t in $(FUZZ_TARGETS); do \
		$(MAKE) --no-print-directory $$t FUZZ_SECONDS=$(FUZZ_SECONDS) || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: failed:$$failed"; exit 1; fi; \
	echo "fuzz: all targets ran $(FUZZ_SECONDS)s each without findings"

-include sidecar/fuzz.mk
