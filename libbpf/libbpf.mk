# How retsnoop finds and links libbpf.
#
# Default: the distro's libbpf, found with pkg-config, linked statically (libbpf.a) so the
# binary does not depend on the host's libbpf version.
# LIBBPF_SRC=/path/to/libbpf-checkout: build that checkout's src/ and link it instead.
#
# Sets LIBBPF_CFLAGS, LIBBPF_LIBS (the libbpf archive), LIBBPF_DEPS (its own link deps),
# ELFUTILS_COMPAT_LIB and LIBBPF_TARGET (prerequisites that exist once libbpf is ready).

PKG_CONFIG ?= pkg-config

# libbpf's own dependencies, and the search-tree calls elfutils 0.192's static archives
# lack (libbpf/eu_search.c): an archive after -lelf (and -ldw), which a link takes from
# only when libelf.a or libdw.a left those names undefined. LIBBPF_TARGET includes it, so
# it exists before anything links.
ELFUTILS_COMPAT_LIB := $(OUTPUT)/libeu_search.a
LIBBPF_DEPS := -lelf -lz -lzstd $(ELFUTILS_COMPAT_LIB)

$(ELFUTILS_COMPAT_LIB): libbpf/eu_search.c
	$(call msg,AR,$@)
	$(Q)mkdir -p $(@D) && $(CC) -O2 -Wall -c $< -o $(@:.a=.o) && rm -f $@ && ar rcs $@ $(@:.a=.o)

ifneq ($(LIBBPF_SRC),)
LIBBPF_OUT := $(abspath $(OUTPUT)/libbpf)
LIBBPF_CFLAGS := -I$(LIBBPF_OUT)/include
LIBBPF_LIBS := $(LIBBPF_OUT)/libbpf.a
LIBBPF_TARGET := $(LIBBPF_LIBS) $(ELFUTILS_COMPAT_LIB)
$(LIBBPF_LIBS): $(wildcard $(LIBBPF_SRC)/src/*.[ch] $(LIBBPF_SRC)/src/Makefile)
	$(Q)mkdir -p $(LIBBPF_OUT)/obj
	$(Q)$(MAKE) -C $(LIBBPF_SRC)/src BUILD_STATIC_ONLY=1 OBJDIR=$(LIBBPF_OUT)/obj \
		DESTDIR=$(LIBBPF_OUT) INCLUDEDIR=/include LIBDIR=/ UAPIDIR=/include install >/dev/null
else ifneq ($(filter-out deps help clean,$(or $(MAKECMDGOALS),all)),)
ifeq ($(shell $(PKG_CONFIG) --exists libbpf && echo y),)
$(error libbpf not found by pkg-config; run 'make deps' (or tools/deps.sh) or pass LIBBPF_SRC=/path/to/libbpf)
endif
LIBBPF_VERSION := $(shell $(PKG_CONFIG) --modversion libbpf)
LIBBPF_CFLAGS := $(shell $(PKG_CONFIG) --cflags libbpf)
LIBBPF_LIBS := $(shell $(PKG_CONFIG) --variable=libdir libbpf)/libbpf.a
LIBBPF_TARGET := $(LIBBPF_LIBS) $(ELFUTILS_COMPAT_LIB)
# 1.4 is the floor: 1.1 resolves kprobe.multi globs from kallsyms and fails with EINVAL on
# 6.12, and lacks bpf_kprobe_opts.attach_mode and uprobe.multi.
ifneq ($(shell printf '%s\n' 1.4.0 $(LIBBPF_VERSION) | sort -V | head -1),1.4.0)
$(error libbpf $(LIBBPF_VERSION) is too old, need >= 1.4 (on Debian 12: 'make deps' installs it from bookworm-backports))
endif
endif

