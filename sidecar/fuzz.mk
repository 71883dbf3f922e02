# libFuzzer targets of the sidecar (sidecar/fuzz/): the request parser (request), whole
# ELF files (elf), the DWARF sections of the test fixture (dwarf) and user-space images
# with a debug file handed over as descriptors (image), built with clang
# -fsanitize=fuzzer,address,undefined. Seeds: tests/fuzz/sidecar-<name>/.
#
#   make fuzz-sidecar [FUZZ_SECONDS=N]   every sidecar fuzzer, N seconds each
#   make fuzz-sidecar-<name>             one of them
#
# Appends fuzz-sidecar to FUZZ_TARGETS for a top-level 'make fuzz'. Included from
# sidecar/sidecar.mk and possibly again from tests/fuzz/fuzz.mk: the guard makes that
# harmless. The crash inputs found are replayed by make test-unit (sidecar.mk,
# tests/sidecar/test_fuzz_replay.c) from tests/sidecar/fuzz-regressions/<name>/.
ifndef SIDECAR_FUZZ_MK
SIDECAR_FUZZ_MK := 1

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS ?=
SIDECAR_FUZZ_NAMES := request elf dwarf image unwind
SIDECAR_FUZZ_OUT := $(OUTPUT)/fuzz-sidecar
SIDECAR_FUZZ_BINS := $(addprefix $(SIDECAR_FUZZ_OUT)/,$(SIDECAR_FUZZ_NAMES))
SIDECAR_FUZZ_SRCS := sidecar/fuzz/common.c $(SIDECAR_LIB_SRCS)
FUZZ_TARGETS += fuzz-sidecar

.PHONY: fuzz-sidecar fuzz-sidecar-build $(addprefix fuzz-sidecar-,$(SIDECAR_FUZZ_NAMES))

$(SIDECAR_FUZZ_OUT)/dir:
	$(Q)mkdir -p $(SIDECAR_FUZZ_OUT) && touch $@

$(SIDECAR_FUZZ_OUT)/%: sidecar/fuzz/%.c sidecar/fuzz/fuzz_sidecar.h $(SIDECAR_FUZZ_SRCS) \
		$(SIDECAR_HDRS) $(SIDECAR_FIXTURE) $(SIDECAR_FIXTURE4) | $(SIDECAR_FUZZ_OUT)/dir
	$(call msg,FUZZER,$@)
	$(Q)$(FUZZ_CC) -g -O1 -std=gnu11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -fno-omit-frame-pointer -DSIDECAR_LIBFUZZER \
		-DSIDECAR_FUZZ_FIXTURE='"$(abspath $(SIDECAR_FIXTURE))"' \
		-DSIDECAR_FUZZ_FIXTURE4='"$(abspath $(SIDECAR_FIXTURE4))"' -Isidecar -Isidecar/fuzz \
		$< $(SIDECAR_FUZZ_SRCS) -ldw -lelf -lz -o $@

fuzz-sidecar-build: $(SIDECAR_FUZZ_BINS)

$(addprefix fuzz-sidecar-,$(SIDECAR_FUZZ_NAMES)): fuzz-sidecar-%: $(SIDECAR_FUZZ_OUT)/%
	$(Q)sidecar/fuzz/run.sh $< tests/fuzz/sidecar-$* $(SIDECAR_FUZZ_OUT) $(FUZZ_SECONDS) $(FUZZ_FLAGS)

fuzz-sidecar: fuzz-sidecar-build
	$(Q)failed=; for t in $(SIDECAR_FUZZ_NAMES); do \
		$(MAKE) --no-print-directory fuzz-sidecar-$$t FUZZ_SECONDS=$(FUZZ_SECONDS) || \
			failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz-sidecar: failed:$$failed"; exit 1; fi

endif
