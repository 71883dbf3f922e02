# VM scenarios: tests/vm/scenarios/*.sh on real Debian kernels (see tests/vm/README.md).
KERNELS ?= 5.10 6.1 6.12

test-vm:
	$(Q)tests/vm/run-scenarios $(KERNELS)

# The full stress load (make test runs 15 s of it), and arm64 guests too: cross-built
# retsnoop on qemu-system-aarch64 (tools/deps.sh arm64 sets up what they need, as root;
# else it prints the command and stops here).
ARM64_KERNELS ?= 6.12 latest

test-kernels:
	$(Q)tools/deps.sh arm64
	$(Q)STRESS_SECONDS=60 tests/vm/run-scenarios 5.10 6.1 6.12 latest $(addprefix arm64:,$(ARM64_KERNELS))

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
