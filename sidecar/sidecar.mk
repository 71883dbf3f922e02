# retsnoop-sidecar: the DWARF symbolizer helper (sidecar/PROTOCOL.md). Always static (the test
# guest has no shared libraries); embedded into retsnoop as a blob that src/addr2line.c runs
# from memory. Included by the top-level Makefile before tests/unit/unit.mk, so only plain
# paths (no UNIT_* variables) may appear in targets and prerequisites here.

SIDECAR_SRCS := $(wildcard sidecar/*.c)
# everything but main(): what tests and fuzz targets link
SIDECAR_LIB_SRCS := $(filter-out sidecar/sidecar.c,$(SIDECAR_SRCS))
SIDECAR_HDRS := $(wildcard sidecar/*.h) src/code_loc.h
# one per build (host, static, cross): a shared path was rebuilt by whichever build came
# last, against that build's libeu_search.a, and left the other's retsnoop out of date
SIDECAR_BIN := $(OUTPUT)/retsnoop-sidecar
SIDECAR_BLOB := $(OUTPUT)/sidecar-blob.o
SIDECAR_CFLAGS := -g -O2 -Wall -Wextra -Wno-unused-parameter -std=gnu11 -D_GNU_SOURCE
SIDECAR_LIBS := -ldw -lelf -lz -llzma -lbz2 -lzstd -ldl -pthread $(ELFUTILS_COMPAT_LIB)
# libdw.a's debuginfod client warns that dlopen needs shared libraries at run time; harmless.
SIDECAR_LD_NOISE := -e debuginfod -e 'statically linked' -e 'dlopen'

EXTRA_OBJS += $(SIDECAR_BLOB)
CLEAN_EXTRA += $(SIDECAR_BIN)

$(SIDECAR_BIN): $(SIDECAR_SRCS) $(SIDECAR_HDRS) $(ELFUTILS_COMPAT_LIB) | $(OUTPUT)
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
SIDECAR_CLIENT_TEST := $(SIDECAR_T)/test_sidecar_client
SIDECAR_WALKERS_TEST := $(SIDECAR_T)/test_sidecar_walkers

EXTRA_UNIT_BINS += $(SIDECAR_TEST) $(SIDECAR_CLIENT_TEST) $(SIDECAR_WALKERS_TEST)

$(SIDECAR_T)/sidecar-dir:
	$(Q)mkdir -p $(SIDECAR_T) && touch $@

$(SIDECAR_SAN_BIN): $(SIDECAR_SRCS) $(SIDECAR_HDRS) | $(SIDECAR_T)/sidecar-dir
	$(call msg,CC-SAN,$@)
	$(Q)$(CC) $(SIDECAR_CFLAGS) -O1 $(UNIT_SAN) $(SIDECAR_SRCS) -ldw -lelf -lz -o $@

# relative source paths on purpose: DWARF then names them as the tests expect
$(SIDECAR_FIXTURE): $(SIDECAR_FIXTURE_SRCS) $(wildcard tests/sidecar/fixture/*.h) | $(SIDECAR_T)/sidecar-dir
	$(call msg,FIXTURE,$@)
	$(Q)$(CC) -g -gdwarf-5 -O2 -fno-omit-frame-pointer $(SIDECAR_FIXTURE_SRCS) -o $@

$(SIDECAR_FIXTURE4): $(SIDECAR_FIXTURE_SRCS) $(wildcard tests/sidecar/fixture/*.h) | $(SIDECAR_T)/sidecar-dir
	$(call msg,FIXTURE,$@)
	$(Q)$(CC) -g -gdwarf-4 -O2 -fno-omit-frame-pointer $(SIDECAR_FIXTURE_SRCS) -o $@

$(SIDECAR_TEST): tests/sidecar/test_sidecar.c tests/sidecar/fixture_util.h tests/unit/unit.h \
		$(SIDECAR_SAN_BIN) $(SIDECAR_FIXTURE) $(SIDECAR_FIXTURE4)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) -O1 $(UNIT_SAN) -Itests/unit \
		-DSIDECAR_SAN='"$(abspath $(SIDECAR_SAN_BIN))"' \
		-DSIDECAR_FIXTURE='"$(abspath $(SIDECAR_FIXTURE))"' \
		-DSIDECAR_FIXTURE4='"$(abspath $(SIDECAR_FIXTURE4))"' \
		-DSIDECAR_FIXTURE_DIR='"$(abspath tests/sidecar/fixture)"' \
		$< -lcmocka -o $@

# The client (src/addr2line.c) with the sidecar embedded in the test binary.
$(SIDECAR_CLIENT_TEST): tests/sidecar/test_client.c tests/sidecar/fixture_util.h tests/unit/unit.h \
		$(OUTPUT)/unit/libretsnoop-san.a $(SIDECAR_BLOB) $(SIDECAR_SAN_BIN) $(SIDECAR_FIXTURE) \
		tests/sidecar/slow-sidecar.sh
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) -O1 $(UNIT_SAN) $(INCLUDES) -Itests/unit \
		-DSIDECAR_SAN='"$(abspath $(SIDECAR_SAN_BIN))"' \
		-DSIDECAR_FIXTURE='"$(abspath $(SIDECAR_FIXTURE))"' \
		-DSIDECAR_FIXTURE_DIR='"$(abspath tests/sidecar/fixture)"' \
		-DSIDECAR_SLOW='"$(abspath tests/sidecar/slow-sidecar.sh)"' \
		$< $(SIDECAR_BLOB) $(OUTPUT)/unit/libretsnoop-san.a \
		$(LIBBPF_LIBS) $(LIBBPF_DEPS) $(DEMANGLE_LIBS) -lcmocka -lpthread -o $@

# The own DIE scanner against libdw's walker, in-process on the sanitized symbolizer sources.
$(SIDECAR_WALKERS_TEST): tests/sidecar/test_walkers.c tests/unit/unit.h $(SIDECAR_LIB_SRCS) \
		$(SIDECAR_HDRS) $(SIDECAR_FIXTURE) $(SIDECAR_FIXTURE4)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(SIDECAR_CFLAGS) -O1 $(UNIT_SAN) -Isidecar -Itests/unit \
		-DSIDECAR_FIXTURE='"$(abspath $(SIDECAR_FIXTURE))"' \
		-DSIDECAR_FIXTURE4='"$(abspath $(SIDECAR_FIXTURE4))"' \
		$< $(SIDECAR_LIB_SRCS) -ldw -lelf -lz -lcmocka -o $@

# User-space symbolization over real ELF files built at test time: the symbols object
# (libretsnoop) with the production sidecar embedded, as retsnoop runs it.
SIDECAR_UPROG := $(SIDECAR_T)/uprog
SIDECAR_UPROG_SRCS := $(wildcard tests/sidecar/uprog/*.[ch]) tests/sidecar/uprog/build.sh
SIDECAR_IMAGES_TEST := $(SIDECAR_T)/test_images
EXTRA_UNIT_BINS += $(SIDECAR_IMAGES_TEST)

$(SIDECAR_UPROG)/stamp: $(SIDECAR_UPROG_SRCS) | $(SIDECAR_T)/sidecar-dir
	$(call msg,FIXTURE,$(SIDECAR_UPROG))
	$(Q)tests/sidecar/uprog/build.sh $(abspath $(SIDECAR_UPROG)) "$(CC)" \
		$(abspath tests/sidecar/uprog) && touch $@

$(SIDECAR_IMAGES_TEST): tests/sidecar/test_images.c tests/sidecar/elf_vaddr.h tests/unit/unit.h \
		$(OUTPUT)/unit/libretsnoop-san.a $(SIDECAR_BLOB) $(SIDECAR_UPROG)/stamp
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) -O1 $(UNIT_SAN) $(INCLUDES) -Itests/unit \
		-DUPROG_DIR='"$(abspath $(SIDECAR_UPROG))"' \
		$< $(SIDECAR_BLOB) $(OUTPUT)/unit/libretsnoop-san.a \
		$(LIBBPF_LIBS) $(LIBBPF_DEPS) $(JANSSON_LIBS) $(DEMANGLE_LIBS) -lcmocka -lpthread -o $@

# The image requests in process, on the sanitized sidecar sources.
SIDECAR_SERVER_IMAGES_TEST := $(SIDECAR_T)/test_server_images
EXTRA_UNIT_BINS += $(SIDECAR_SERVER_IMAGES_TEST)

$(SIDECAR_SERVER_IMAGES_TEST): tests/sidecar/test_server_images.c tests/unit/unit.h \
		$(SIDECAR_LIB_SRCS) $(SIDECAR_HDRS) $(SIDECAR_UPROG)/stamp
	$(call msg,TEST,$@)
	$(Q)$(CC) $(SIDECAR_CFLAGS) -O1 $(UNIT_SAN) -Isidecar -Itests/unit \
		-DUPROG_DIR='"$(abspath $(SIDECAR_UPROG))"' \
		$< $(SIDECAR_LIB_SRCS) -ldw -lelf -lz -lcmocka -o $@

# Replays the sidecar fuzzers' seed corpora and the crash inputs they found (sanitized gcc
# build, no libFuzzer): a crash once found stays fixed.
SIDECAR_FUZZ_REPLAY := $(SIDECAR_T)/test_sidecar_fuzz_replay
EXTRA_UNIT_BINS += $(SIDECAR_FUZZ_REPLAY)

$(SIDECAR_FUZZ_REPLAY): tests/sidecar/test_fuzz_replay.c tests/unit/unit.h $(wildcard sidecar/fuzz/*.[ch]) \
		$(SIDECAR_LIB_SRCS) $(SIDECAR_HDRS) $(SIDECAR_FIXTURE) $(SIDECAR_FIXTURE4)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(SIDECAR_CFLAGS) -O1 $(UNIT_SAN) -Isidecar -Isidecar/fuzz -Itests/unit \
		-DSIDECAR_FUZZ_FIXTURE='"$(abspath $(SIDECAR_FIXTURE))"' \
		-DSIDECAR_FUZZ_FIXTURE4='"$(abspath $(SIDECAR_FIXTURE4))"' \
		-DSIDECAR_FUZZ_SEEDS='"$(abspath tests/fuzz)"' \
		-DSIDECAR_FUZZ_REGRESSIONS='"$(abspath tests/sidecar/fuzz-regressions)"' \
		$< $(filter-out %/run.sh,$(wildcard sidecar/fuzz/*.c)) $(SIDECAR_LIB_SRCS) \
		-ldw -lelf -lz -lcmocka -o $@

-include sidecar/fuzz.mk

# The unwinder on real captures of tests/userprog (ptrace at its openat, tests/userprog/snap.h),
# in-process on the sanitized sidecar sources, addr2line as the oracle.
SIDECAR_UNWIND_TEST := $(SIDECAR_T)/test_sidecar_unwind
EXTRA_UNIT_BINS += $(SIDECAR_UNWIND_TEST)

$(SIDECAR_UNWIND_TEST): tests/sidecar/test_unwind.c tests/userprog/snap.h tests/unit/unit.h \
		$(SIDECAR_LIB_SRCS) $(SIDECAR_HDRS) src/proc_maps.c src/ustack_req.c $(USERPROG_BINS) \
		| $(SIDECAR_T)/sidecar-dir
	$(call msg,TEST,$@)
	$(Q)$(CC) $(SIDECAR_CFLAGS) -O1 $(UNIT_SAN) -Isidecar -Isrc -Itests/unit $(INCLUDES) \
		-DUSERPROG_DIR='"$(abspath $(USERPROG_OUT))"' \
		$< $(SIDECAR_LIB_SRCS) src/proc_maps.c src/ustack_req.c -ldw -lelf -lz -lcmocka -o $@

# src/ustack.c (maps snapshots, the sidecar's unwind request) on real captures, with the
# sanitized sidecar.
SIDECAR_USTACK_TEST := $(SIDECAR_T)/test_ustack
EXTRA_UNIT_BINS += $(SIDECAR_USTACK_TEST)

$(SIDECAR_USTACK_TEST): tests/sidecar/test_ustack.c tests/sidecar/elf_vaddr.h tests/userprog/snap.h tests/unit/unit.h \
		$(OUTPUT)/unit/libretsnoop-san.a $(SIDECAR_SAN_BIN) $(USERPROG_BINS)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) -O1 $(UNIT_SAN) $(INCLUDES) -Itests/unit \
		-DSIDECAR_SAN='"$(abspath $(SIDECAR_SAN_BIN))"' \
		-DUSERPROG_DIR='"$(abspath $(USERPROG_OUT))"' \
		$< $(OUTPUT)/unit/libretsnoop-san.a $(LIBBPF_LIBS) $(LIBBPF_DEPS) $(DEMANGLE_LIBS) -lcmocka -lpthread -o $@
