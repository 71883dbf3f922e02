# The -U test program (tests/userprog/main.c), built at test time, -O2 -g, PIE, with its own
# shared library, once with frame pointers (fp/) and once without (nofp/, like Debian's
# stock binaries), plus a stripped copy of the latter (stripped/) and one whose DWARF lives
# only in a separate debug file next to it, named by .gnu_debuglink (dl/, like Debian's
# binaries with their -dbgsym package), and one without any unwind information (nocfi/:
# .eh_frame removed, like the applets of Debian's static busybox). Each directory holds userprog and libucfg.so;
# userprog finds the library next to itself ($ORIGIN).
# Included before sidecar/sidecar.mk and tests/unit/unit.mk (their tests name these
# binaries as prerequisites): plain paths only.

USERPROG_OUT := $(OUTPUT)/userprog
USERPROG_SRCS := tests/userprog/main.c tests/userprog/ucfg.c tests/userprog/ucfg.h
USERPROG_CFLAGS := -O2 -g -Wall
USERPROG_FP := -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
USERPROG_NOFP := -fomit-frame-pointer
USERPROG_DIRS := fp nofp stripped dl nocfi
USERPROG_BINS := $(foreach d,$(USERPROG_DIRS),$(USERPROG_OUT)/$(d)/userprog $(USERPROG_OUT)/$(d)/libucfg.so)

# relative source paths on purpose: DWARF names them as the tests expect
$(USERPROG_OUT)/fp/libucfg.so $(USERPROG_OUT)/nofp/libucfg.so: $(USERPROG_OUT)/%/libucfg.so: $(USERPROG_SRCS)
	$(call msg,USERPROG,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(USERPROG_CFLAGS) $(if $(filter fp,$*),$(USERPROG_FP),$(USERPROG_NOFP)) \
		-fPIC -shared tests/userprog/ucfg.c -o $@

$(USERPROG_OUT)/fp/userprog $(USERPROG_OUT)/nofp/userprog: $(USERPROG_OUT)/%/userprog: $(USERPROG_SRCS) $(USERPROG_OUT)/%/libucfg.so
	$(call msg,USERPROG,$@)
	$(Q)$(CC) $(USERPROG_CFLAGS) $(if $(filter fp,$*),$(USERPROG_FP),$(USERPROG_NOFP)) \
		-fPIE -pie tests/userprog/main.c -L$(@D) -lucfg -Wl,-rpath,'$$ORIGIN' -o $@

$(USERPROG_OUT)/stripped/%: $(USERPROG_OUT)/nofp/%
	$(call msg,STRIP,$@)
	$(Q)mkdir -p $(@D) && $(STRIP) -o $@ $<

# symbols kept, DWARF moved out: only the debug file can give lines (its CRC is in the link)
$(USERPROG_OUT)/dl/%: $(USERPROG_OUT)/nofp/%
	$(call msg,DEBUGLNK,$@)
	$(Q)mkdir -p $(@D) && $(OBJCOPY) --only-keep-debug $< $@.debug && \
		$(OBJCOPY) --strip-debug --add-gnu-debuglink=$@.debug $< $@

# neither CFI nor frame pointers: where the unwinder must stop instead of guessing
$(USERPROG_OUT)/nocfi/%: $(USERPROG_OUT)/nofp/%
	$(call msg,NOCFI,$@)
	$(Q)mkdir -p $(@D) && $(OBJCOPY) --remove-section=.eh_frame --remove-section=.eh_frame_hdr $< $@

userprog: $(USERPROG_BINS)
.PHONY: userprog
