# Unit tests: tests/unit/test_<module>.c, one per src module, built with ASan/UBSan against
# a sanitized build of the module library and cmocka. tests/unit/run.sh runs them all and
# prints "N passed, N failed" last.

UNIT_OUT := $(OUTPUT)/unit
UNIT_SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(UNIT_OUT)/%,$(UNIT_SRCS)) $(EXTRA_UNIT_BINS)
UNIT_MOD_OBJS := $(patsubst src/%.c,$(UNIT_OUT)/mod/%.o,$(MOD_SRCS))
UNIT_LIB := $(UNIT_OUT)/libretsnoop-san.a

$(UNIT_OUT)/mod:
	$(Q)mkdir -p $@

$(UNIT_OUT)/mod/%.o: src/%.c $(wildcard src/*.h) $(SKELS) $(LIBBPF_TARGET) | $(UNIT_OUT)/mod
	$(call msg,CC-SAN,$@)
	$(Q)$(CC) $(CFLAGS) -O1 $(UNIT_SAN) $(INCLUDES) -c $< -o $@

$(UNIT_LIB): $(UNIT_MOD_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

$(UNIT_OUT)/test_%: tests/unit/test_%.c $(wildcard tests/unit/*.h) $(UNIT_LIB) | $(UNIT_OUT)/mod
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) -O1 $(UNIT_SAN) $(INCLUDES) -Itests/unit $< $(UNIT_LIB) \
		$(UNIT_EXTRA_LIBS) $(LIBBPF_LIBS) $(LIBBPF_DEPS) $(JANSSON_LIBS) $(DW_LIBS) $(DEMANGLE_LIBS) -lz -lcmocka -lpthread -o $@

# host-side checks of the VM tests' oracles, on recorded guest output; every BPF part
# (src/*.bpf.h) compiled alone with the BPF build's flags
UNIT_SCRIPTS := tests/vm/oracle/run.sh tests/unit/bpf_headers.sh

# UPROG_DIR: ELF images built at test time (tests/uprobe/uprobe.mk) for the ELF reader
test-unit: $(UNIT_BINS) $(UPROG_BINS) $(UPROG_STATIC)
	$(Q)UNIT_FIXTURES=tests/unit/fixtures UPROG_DIR=$(UPROG_OUT) \
		BPF_HDR_CC="$(CLANG) $(BPF_CFLAGS)" tests/unit/run.sh $(UNIT_BINS) $(UNIT_SCRIPTS)
