# retsnoop build. `make` builds src/retsnoop and src/simfail; `make STATIC=1` makes both
# fully static (the test guest has no shared libraries). `make help` lists the targets.

HOST_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ARCH := $(HOST_ARCH)

# Cross build, `make ARCH=arm64` on x86-64: Debian's cross gcc, the target's libraries
# through multiarch (tools/deps.sh arm64 installs both), always static; objects and
# binaries (retsnoop, simfail, errtrig, the sidecar) in src/.output-<arch>/.
ifneq ($(ARCH),$(HOST_ARCH))
CROSS := $(if $(filter arm64,$(ARCH)),aarch64-linux-gnu,$(if $(filter x86,$(ARCH)),x86_64-linux-gnu))
$(if $(CROSS),,$(error unknown ARCH '$(ARCH)': use x86 or arm64))
ifeq ($(origin CC),default)
CC := $(CROSS)-gcc
endif
# the test programs' copies (tests/userprog): the target's binutils
OBJCOPY := $(CROSS)-objcopy
STRIP := $(CROSS)-strip
PKG_CONFIG := PKG_CONFIG_LIBDIR=/usr/lib/$(CROSS)/pkgconfig:/usr/share/pkgconfig pkg-config
OUTPUT ?= src/.output-$(ARCH)
BIN_DIR ?= $(OUTPUT)
override STATIC := 1
ifneq ($(filter test test-unit test-uprobe bench,$(MAKECMDGOALS)),)
$(error the tests and benchmarks run on the host's arch; for arm64 guests: tests/vm/run --arch arm64)
endif
endif

OUTPUT ?= src/.output
# Where the binaries go; the test VM builds a static copy with BIN_DIR=OUTPUT=src/.output-static.
BIN_DIR ?= src
CC ?= cc
OBJCOPY ?= objcopy
STRIP ?= strip
CLANG ?= clang
BPFTOOL ?= bpftool
LLVM_OBJCOPY ?= llvm-objcopy
V ?= 0
Q := $(if $(filter 1,$(V)),,@)
# progress lines, unless V=1 (full commands) or make -s (silent)
SILENT := $(findstring s,$(firstword -$(MAKEFLAGS)))
msg = $(if $(filter 1,$(V))$(SILENT),,@printf '  %-8s %s\n' "$(1)" "$(2)";)

include libbpf/libbpf.mk

CFLAGS ?= -g -O2
CFLAGS += -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -std=gnu11 -D_GNU_SOURCE
INCLUDES := -Isrc -I$(OUTPUT) $(LIBBPF_CFLAGS)
BPF_CFLAGS := -g -O2 -Wall -target bpf -D__TARGET_ARCH_$(ARCH) -Isrc $(LIBBPF_CFLAGS)
# jansson (JSON lines output), linked statically like libbpf
JANSSON_LIBS := $(shell $(PKG_CONFIG) --variable=libdir jansson 2>/dev/null)/libjansson.a
# libdw: user-space functions' return types and source files (src/user_dwarf.c)
DW_LIBS := $(shell $(PKG_CONFIG) --libs $(if $(filter 1,$(STATIC)),--static) libdw 2>/dev/null || echo -ldw)
# libiberty (static only): C++ and Rust symbol names demangled (src/demangle.c)
DEMANGLE_LIBS := -liberty
LDLIBS := $(LIBBPF_LIBS) $(LIBBPF_DEPS) $(JANSSON_LIBS) $(DW_LIBS) $(DEMANGLE_LIBS) -lz -lpthread
ifeq ($(STATIC),1)
LDFLAGS += -static
endif

# Every src/*.bpf.c becomes an embedded skeleton, src/.output/<name>.skel.h.
BPF_SRCS := $(wildcard src/*.bpf.c)
# retsnoop_lite: retsnoop.bpf.c without its optional records (RETSNOOP_LITE, retsnoop_state.bpf.h)
SKELS := $(patsubst src/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS)) $(OUTPUT)/retsnoop_lite.skel.h

# simfail*.c make simfail; retsnoop.c holds retsnoop's main(); every other src/*.c is a
# retsnoop module, collected into a library that the unit tests link against too.
SIMFAIL_SRCS := $(filter-out %.bpf.c,$(wildcard src/simfail*.c))
MOD_SRCS := $(filter-out src/retsnoop.c $(SIMFAIL_SRCS) $(BPF_SRCS),$(wildcard src/*.c))
MOD_OBJS := $(patsubst src/%.c,$(OUTPUT)/%.o,$(MOD_SRCS))
MOD_LIB := $(OUTPUT)/libretsnoop.a
EXTRA_OBJS :=

.PHONY: all clean deps test test-build test-unit test-vm test-kernels bench help vmlinux-h
.DEFAULT_GOAL := all
# Keep intermediate BPF objects (the benchmarks and debugging want them).
.SECONDARY:

# Sub-makefiles own their parts: the sidecar, unit tests, VM scenarios and benchmarks.
# userprog first: the sidecar's unit tests name its binaries as prerequisites
include tests/userprog/userprog.mk
-include sidecar/sidecar.mk
include tests/fuzz/fuzz.mk
include tests/uprobe/uprobe.mk
include tests/unit/unit.mk
include tests/vm/vm.mk
include install.mk
-include bench/bench.mk

all: $(BIN_DIR)/retsnoop $(BIN_DIR)/simfail

$(OUTPUT) $(OUTPUT)/bpf:
	$(Q)mkdir -p $@

$(OUTPUT)/bpf/%.bpf.o: src/%.bpf.c src/$(ARCH)/vmlinux.h $(wildcard src/*.h) $(LIBBPF_TARGET) | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/bpf/retsnoop_lite.bpf.o: src/retsnoop.bpf.c src/$(ARCH)/vmlinux.h $(wildcard src/*.h) $(LIBBPF_TARGET) | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DRETSNOOP_LITE -c $< -o $@

# The skeleton embeds the object without its DWARF (.BTF and .BTF.ext stay: libbpf and the
# kernel read those) and without clang's basic-block labels (LBB*: 2,785 of the lite
# object's 2,919 symbols, named by no relocation): opening the lite object in libbpf took
# 8.9 M instructions with them, 3.9 M without (host callgrind, three opens). The object
# file itself keeps both, for llvm-objdump -S and llvm-dwarfdump.
$(OUTPUT)/%.skel.h: $(OUTPUT)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(LLVM_OBJCOPY) --strip-debug --wildcard --strip-symbol='LBB*' $< $@.o && \
		$(BPFTOOL) gen skeleton $@.o name $* > $@.tmp && mv $@.tmp $@ && rm -f $@.o

$(OUTPUT)/%.o: src/%.c $(wildcard src/*.h) $(SKELS) $(LIBBPF_TARGET) | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(INCLUDES) -c $< -o $@

$(MOD_LIB): $(MOD_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BIN_DIR)/retsnoop: $(OUTPUT)/retsnoop.o $(MOD_LIB) $(EXTRA_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BIN_DIR)/simfail: $(patsubst src/%.c,$(OUTPUT)/%.o,$(SIMFAIL_SRCS)) $(MOD_LIB)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# src/<arch>/vmlinux.h is committed; regenerate it from a Debian kernel's BTF (never the
# build host's). src/vmlinux.h picks the one of the arch the BPF objects are built for.
vmlinux-h:
	tools/gen-vmlinux-h.sh --arch $(if $(filter x86,$(ARCH)),amd64,$(ARCH)) src/$(ARCH)/vmlinux.h

deps:
	tools/deps.sh all

# tests/run-all.sh builds (test-build first) with as many jobs as cores, or in this make's
# jobserver
test:
	+$(Q)tests/run-all.sh

# what make test's host checks and VM scenarios build, built before they run side by side
test-build: all $(UNIT_BINS) $(UPROG_BINS) $(UPROG_STATIC) $(USERPROG_BINS) $(COMPLETION)

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUTPUT) src/.output-static src/.output-arm64 src/retsnoop src/simfail $(CLEAN_EXTRA)

help:
	@echo 'make [STATIC=1] [LIBBPF_SRC=path] [V=1]   build src/retsnoop and src/simfail'
	@echo 'make ARCH=arm64      cross-build static arm64 ones into src/.output-arm64/ (tools/deps.sh arm64)'
	@echo 'make deps            install build and test dependencies (Debian/Ubuntu, as root)'
	@echo 'make test            unit tests (ASan/UBSan), ship and uprobe checks beside the VM scenarios on 5.10, 6.1, 6.12 and latest'
	@echo 'make test-unit       unit tests only'
	@echo 'make test-build      build what make test runs (TEST_SERIAL=1 make test: host checks, then the VM)'
	@echo 'make test-vm         VM scenarios only (all on 6.12, a subset on 6.1 and 5.10; KERNELS="...": all there)'
	@echo 'make test-kernels    VM scenarios on 5.10, 6.1, 6.12 and latest, and on arm64 6.12 and latest'
	@echo 'make bench           benchmarks (results under bench/results/)'
	@echo 'make install         install (PREFIX=/usr/local DESTDIR= BINDIR= MANDIR=, see install.mk)'
	@echo 'make uninstall       remove what make install installed (same variables)'
	@echo 'make test-ship       install file list, man page and bash completion checks'
	@echo 'make test-uprobe     user-space functions traced natively on the host (uprobes; SKIP without)'
	@echo 'make deb             Debian package under src/.output/deb/ (make deb-check: test it)'
	@echo 'make fuzz            every libFuzzer target for FUZZ_SECONDS (default 60) each'
	@echo 'make fuzz-build      build the fuzzers (clang) without running them'
	@echo 'make vmlinux-h [ARCH=arm64]   regenerate src/<arch>/vmlinux.h from a Debian kernel BTF'
