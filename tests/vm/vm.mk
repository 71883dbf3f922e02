# VM scenarios: tests/vm/scenarios/*.sh on real Debian kernels (see tests/vm/README.md).
KERNELS ?= 5.10 6.1 6.12

test-vm:
	$(Q)tests/vm/run-scenarios $(KERNELS)

# arm64 guests too: cross-built retsnoop on qemu-system-aarch64 (tools/deps.sh arm64 sets
# up what they need, as root; else it prints the command and stops here).
ARM64_KERNELS ?= 6.12 latest

test-kernels:
	$(Q)tools/deps.sh arm64
	$(Q)tests/vm/run-scenarios 5.10 6.1 6.12 latest $(addprefix arm64:,$(ARM64_KERNELS))

# errtrig: real kernel errors outside BPF for the guests' error hunts (a test helper,
# built next to retsnoop and simfail; the guests get the static build).
$(BIN_DIR)/errtrig: tests/vm/errtrig.c
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@
CLEAN_EXTRA += src/errtrig
