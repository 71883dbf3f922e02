# VM scenarios: tests/vm/scenarios/*.sh on real Debian kernels (see tests/vm/README.md).
KERNELS ?= 5.10 6.1 6.12

test-vm:
	$(Q)tests/vm/run-scenarios $(KERNELS)

# the full stress load (make test runs 15 s of it)
test-kernels:
	$(Q)STRESS_SECONDS=60 tests/vm/run-scenarios 5.10 6.1 6.12 latest

# errtrig: real kernel errors outside BPF for the guests' error hunts (a test helper,
# built next to retsnoop and simfail; the guests get the static build).
$(BIN_DIR)/errtrig: tests/vm/errtrig.c
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@
CLEAN_EXTRA += src/errtrig

# capexec: run a command as an unprivileged user with exactly some capabilities (guests'
# privilege checks).
$(BIN_DIR)/capexec: tests/vm/capexec.c
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@
CLEAN_EXTRA += src/capexec
