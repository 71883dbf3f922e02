# The uprobe test program (tests/uprobe/uprog.c and its libuprog.so), built at test time
# into $(UPROG_OUT) in every shape the ELF reader and the host tests need:
#   uprog           PIE, -O2 -g, libuprog.so found through RUNPATH $ORIGIN
#   uprog-nopie     the same, not PIE (ET_EXEC at its link address)
#   uprog-norunpath the same without RUNPATH: its loader needs LD_LIBRARY_PATH
#   uprog-rpath     the same with DT_RPATH $ORIGIN (searched before LD_LIBRARY_PATH)
#   uprog-g1        the same with gcc -g1 DWARF: line tables and function names, no types
#   uprog-stripped  PIE stripped of .symtab and DWARF (its own functions exported, -rdynamic,
#                   so .dynsym still names them)
#   libuprog.so, libuprog-stripped.so (only .dynsym)
#   uprog-dbglink   stripped of DWARF, with a .gnu_debuglink to uprog.debug
#   uprog-dbgsym    stripped as distributions ship binaries (no .symtab, no DWARF, .dynsym
#                   exports none of its functions), with a .gnu_debuglink to uprog.debug
#   uprog-fakego    uprog with an empty .go.buildinfo section: what marks a Go binary
#   uasm            a function written in assembly (-g: the assembler's typeless DWARF)
#   ujmp            traced functions left by longjmp()
#   uctx            traced functions on another stack (ucontext coroutines, sigaltstack())
#   uexc            the same by a C++ exception (g++, tools/deps.sh)
#   ucpp            C++ names: namespaces, a class, a template, overloads (g++)
#   udae            a parameter LLVM dropped from a static function's calling convention (clang)
#   utail           traced functions that tail-call traced functions (a jmp, at -O2)
#   uexit           traced functions that call exit() or pthread_exit(): never return
#   ucrowd          many threads in traced functions at once (session table spills)
UPROG_OUT := $(OUTPUT)/uprobe
UPROG_CFLAGS := -O2 -g -Wall -Itests/uprobe
UPROG_BINS := $(addprefix $(UPROG_OUT)/,uprog uprog-nopie uprog-norunpath uprog-rpath uprog-g1 \
	uprog-stripped libuprog.so \
	libuprog-stripped.so uprog-dbglink uprog-dbgsym uprog.debug uprog-fakego uasm ujmp uctx uexc ucpp udae utail uexit ucrowd)

$(UPROG_OUT):
	$(Q)mkdir -p $@

$(UPROG_OUT)/libuprog.so: tests/uprobe/libuprog.c tests/uprobe/uprog.h | $(UPROG_OUT)
	$(call msg,UPROG,$@)
	$(Q)cc $(UPROG_CFLAGS) -fPIC -shared -Wl,-soname,libuprog.so $< -o $@

$(UPROG_OUT)/uprog: tests/uprobe/uprog.c $(UPROG_OUT)/libuprog.so
	$(call msg,UPROG,$@)
	$(Q)cc $(UPROG_CFLAGS) -fPIE -pie $< -L$(UPROG_OUT) -luprog -Wl,-rpath,'$$ORIGIN' -o $@

$(UPROG_OUT)/uprog-g1: tests/uprobe/uprog.c $(UPROG_OUT)/libuprog.so
	$(call msg,UPROG,$@)
	$(Q)cc $(UPROG_CFLAGS) -g1 -fPIE -pie $< -L$(UPROG_OUT) -luprog -Wl,-rpath,'$$ORIGIN' -o $@

$(UPROG_OUT)/uprog-nopie: tests/uprobe/uprog.c $(UPROG_OUT)/libuprog.so
	$(call msg,UPROG,$@)
	$(Q)cc $(UPROG_CFLAGS) -fno-pie -no-pie $< -L$(UPROG_OUT) -luprog \
		-Wl,-rpath,'$$ORIGIN' -o $@

$(UPROG_OUT)/uprog-norunpath: tests/uprobe/uprog.c $(UPROG_OUT)/libuprog.so
	$(call msg,UPROG,$@)
	$(Q)cc $(UPROG_CFLAGS) -fPIE -pie $< -L$(UPROG_OUT) -luprog -o $@

$(UPROG_OUT)/uprog-rpath: tests/uprobe/uprog.c $(UPROG_OUT)/libuprog.so
	$(call msg,UPROG,$@)
	$(Q)cc $(UPROG_CFLAGS) -fPIE -pie $< -L$(UPROG_OUT) -luprog \
		-Wl,--disable-new-dtags,-rpath,'$$ORIGIN' -o $@

$(UPROG_OUT)/uprog-stripped: tests/uprobe/uprog.c $(UPROG_OUT)/libuprog.so
	$(call msg,UPROG,$@)
	$(Q)cc $(UPROG_CFLAGS) -fPIE -pie -rdynamic $< -L$(UPROG_OUT) -luprog \
		-Wl,-rpath,'$$ORIGIN' -o $@ && strip --strip-all $@

$(UPROG_OUT)/libuprog-stripped.so: $(UPROG_OUT)/libuprog.so
	$(call msg,UPROG,$@)
	$(Q)strip --strip-all -o $@ $<

$(UPROG_OUT)/uprog.debug: $(UPROG_OUT)/uprog
	$(Q)objcopy --only-keep-debug $< $@

$(UPROG_OUT)/uprog-dbglink: $(UPROG_OUT)/uprog $(UPROG_OUT)/uprog.debug
	$(call msg,UPROG,$@)
	$(Q)cd $(UPROG_OUT) && objcopy --strip-debug --add-gnu-debuglink=uprog.debug uprog \
		uprog-dbglink

$(UPROG_OUT)/uprog-dbgsym: $(UPROG_OUT)/uprog $(UPROG_OUT)/uprog.debug
	$(call msg,UPROG,$@)
	$(Q)cd $(UPROG_OUT) && objcopy --strip-all --add-gnu-debuglink=uprog.debug uprog \
		uprog-dbgsym

$(UPROG_OUT)/uprog-fakego: $(UPROG_OUT)/uprog
	$(call msg,UPROG,$@)
	$(Q)printf '\377 Go buildinf:' >$@.sec && \
		objcopy --add-section .go.buildinfo=$@.sec $< $@ && rm -f $@.sec

$(UPROG_OUT)/uasm: tests/uprobe/uasm.S tests/uprobe/uasm_main.c | $(UPROG_OUT)
	$(call msg,UPROG,$@)
	$(Q)cc $(UPROG_CFLAGS) $^ -o $@

$(UPROG_OUT)/ujmp: tests/uprobe/ujmp.c | $(UPROG_OUT)
	$(call msg,UPROG,$@)
	$(Q)cc $(UPROG_CFLAGS) $< -o $@

$(UPROG_OUT)/uctx: tests/uprobe/uctx.c | $(UPROG_OUT)
	$(call msg,UPROG,$@)
	$(Q)cc $(UPROG_CFLAGS) $< -o $@

$(UPROG_OUT)/utail: tests/uprobe/utail.c | $(UPROG_OUT)
	$(call msg,UPROG,$@)
	$(Q)cc $(UPROG_CFLAGS) $< -o $@

$(UPROG_OUT)/uexit: tests/uprobe/uexit.c | $(UPROG_OUT)
	$(call msg,UPROG,$@)
	$(Q)cc $(UPROG_CFLAGS) -pthread $< -o $@

$(UPROG_OUT)/ucrowd: tests/uprobe/ucrowd.c | $(UPROG_OUT)
	$(call msg,UPROG,$@)
	$(Q)cc $(UPROG_CFLAGS) -pthread $< -o $@

$(UPROG_OUT)/uexc: tests/uprobe/uexc.cc | $(UPROG_OUT)
	$(call msg,UPROG,$@)
	$(Q)g++ $(UPROG_CFLAGS) $< -o $@

$(UPROG_OUT)/ucpp: tests/uprobe/ucpp.cc | $(UPROG_OUT)
	$(call msg,UPROG,$@)
	$(Q)g++ $(UPROG_CFLAGS) $< -o $@

$(UPROG_OUT)/udae: tests/uprobe/udae.c | $(UPROG_OUT)
	$(call msg,UPROG,$@)
	$(Q)$(CLANG) $(UPROG_CFLAGS) $< -o $@

uprog: $(UPROG_BINS)
.PHONY: uprog

# The VM scenario uprobe-session's programs: the guest has no shared libraries, so uprog
# (its library linked in), ujmp and utail are static-pie there. Built once here, not per run;
# `make ARCH=arm64 uprog-static` for the arm64 guests (the cross gcc).
UPROG_STATIC := $(addprefix $(UPROG_OUT)/,uprog-static ujmp-static utail-static uasm-static)

$(UPROG_OUT)/uprog-static: tests/uprobe/uprog.c tests/uprobe/libuprog.c tests/uprobe/uprog.h | $(UPROG_OUT)
	$(call msg,UPROG,$@)
	$(Q)$(CC) $(UPROG_CFLAGS) -static-pie tests/uprobe/uprog.c tests/uprobe/libuprog.c -o $@

$(UPROG_OUT)/ujmp-static: tests/uprobe/ujmp.c | $(UPROG_OUT)
	$(call msg,UPROG,$@)
	$(Q)$(CC) $(UPROG_CFLAGS) -static-pie $< -o $@

$(UPROG_OUT)/utail-static: tests/uprobe/utail.c | $(UPROG_OUT)
	$(call msg,UPROG,$@)
	$(Q)$(CC) $(UPROG_CFLAGS) -static-pie $< -o $@

$(UPROG_OUT)/uasm-static: tests/uprobe/uasm.S tests/uprobe/uasm_main.c | $(UPROG_OUT)
	$(call msg,UPROG,$@)
	$(Q)$(CC) $(UPROG_CFLAGS) -static-pie $^ -o $@

uprog-static: $(UPROG_STATIC)
.PHONY: uprog-static

# user-space tracing on the host, natively (SKIP where the kernel has no uprobes)
test-uprobe: all $(UPROG_BINS) $(UPROG_STATIC) $(BIN_DIR)/ttyintr $(USERPROG_OUT)/nofp/userprog
	$(Q)tests/uprobe/run.sh $(BIN_DIR)/retsnoop $(UPROG_OUT) $(USERPROG_OUT)
.PHONY: test-uprobe
