# retsnoop-sidecar: the DWARF symbolizer helper (sidecar/PROTOCOL.md). Always static (the test
# guest has no shared libraries); embedded into retsnoop as a blob that src/addr2line.c runs
# from memory. Included by the top-level Makefile before tests/unit/unit.mk, so only plain
# paths (no UNIT_* variables) may appear in targets and prerequisites here.

SIDECAR_SRCS := $(wildcard sidecar/*.c)
SIDECAR_HDRS := $(wildcard sidecar/*.h)
SIDECAR_BIN ?= sidecar/retsnoop-sidecar
SIDECAR_BLOB := $(OUTPUT)/sidecar-blob.o
SIDECAR_CFLAGS := -g -O2 -Wall -Wextra -Wno-unused-parameter -std=gnu11 -D_GNU_SOURCE
SIDECAR_LIBS := -ldw -lelf -lz -llzma -lbz2 -lzstd -ldl -pthread
# libdw.a's debuginfod client warns that dlopen needs shared libraries at run time; harmless.
SIDECAR_LD_NOISE := -e debuginfod -e 'statically linked' -e 'dlopen'

EXTRA_OBJS += $(SIDECAR_BLOB)
CLEAN_EXTRA += $(SIDECAR_BIN)

$(SIDECAR_BIN): $(SIDECAR_SRCS) $(SIDECAR_HDRS)
	$(call msg,SIDECAR,$@)
	$(Q)$(CC) $(SIDECAR_CFLAGS) -static $(SIDECAR_SRCS) $(SIDECAR_LIBS) -o $@ 2>$@.log; \
		rc=$$?; grep -v $(SIDECAR_LD_NOISE) $@.log >&2; rm -f $@.log; exit $$rc

$(SIDECAR_BLOB): sidecar/blob.S $(SIDECAR_BIN) | $(OUTPUT)
	$(call msg,BLOB,$@)
	$(Q)$(CC) -c -DSIDECAR_BIN_PATH='"$(abspath $(SIDECAR_BIN))"' $< -o $@

# Unit tests: the sidecar under ASan/UBSan (dynamic), spoken to directly and through
# src/addr2line.c, on a fixture compiled at test time with known inlined calls.
SIDECAR_T := $(OUTPUT)/unit
SIDECAR_SAN_BIN := $(SIDECAR_T)/retsnoop-sidecar-san
SIDECAR_FIXTURE := $(SIDECAR_T)/sidecar-fixture
SIDECAR_FIXTURE4 := $(SIDECAR_T)/sidecar-fixture-dwarf4
SIDECAR_FIXTURE_SRCS := $(wildcard tests/sidecar/fixture/*.c)
SIDECAR_TEST := $(SIDECAR_T)/test_sidecar

EXTRA_UNIT_BINS += $(SIDECAR_TEST)

$(SIDECAR_T)/sidecar-dir:
	$(Q)mkdir -p $(SIDECAR_T) && touch $@

$(SIDECAR_SAN_BIN): $(SIDECAR_SRCS) $(SIDECAR_HDRS) | $(SIDECAR_T)/sidecar-dir
	$(call msg,CC-SAN,$@)
	$(Q)$(CC) $(SIDECAR_CFLAGS) -O1 $(UNIT_SAN) $(SIDECAR_SRCS) -ldw -lelf -o $@

# relative source paths on purpose: DWARF then names them as the tests expect
$(SIDECAR_FIXTURE): $(SIDECAR_FIXTURE_SRCS) $(wildcard tests/sidecar/fixture/*.h) | $(SIDECAR_T)/sidecar-dir
	$(call msg,FIXTURE,$@)
	$(Q)$(CC) -g -gdwarf-5 -O2 -fno-omit-frame-pointer $(SIDECAR_FIXTURE_SRCS) -o $@

$(SIDECAR_FIXTURE4): $(SIDECAR_FIXTURE_SRCS) $(wildcard tests/sidecar/fixture/*.h) | $(SIDECAR_T)/sidecar-dir
	$(call msg,FIXTURE,$@)
	$(Q)$(CC) -g -gdwarf-4 -O2 -fno-omit-frame-pointer $(SIDECAR_FIXTURE_SRCS) -o $@

$(SIDECAR_TEST): tests/sidecar/test_sidecar.c tests/unit/unit.h $(OUTPUT)/unit/libretsnoop-san.a \
		$(SIDECAR_BLOB) $(SIDECAR_SAN_BIN) $(SIDECAR_FIXTURE) $(SIDECAR_FIXTURE4)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) -O1 $(UNIT_SAN) $(INCLUDES) -Itests/unit \
		-DSIDECAR_SAN='"$(abspath $(SIDECAR_SAN_BIN))"' \
		-DSIDECAR_FIXTURE='"$(abspath $(SIDECAR_FIXTURE))"' \
		-DSIDECAR_FIXTURE4='"$(abspath $(SIDECAR_FIXTURE4))"' \
		-DSIDECAR_FIXTURE_DIR='"$(abspath tests/sidecar/fixture)"' \
		$< $(SIDECAR_BLOB) $(OUTPUT)/unit/libretsnoop-san.a \
		$(LIBBPF_LIBS) $(LIBBPF_DEPS) -lcmocka -lpthread -o $@
