# VM scenarios: tests/vm/scenarios/*.sh on real Debian kernels (see tests/vm/README.md).
KERNELS ?= 5.10 6.1 6.12

test-vm:
	$(Q)tests/vm/run-scenarios $(KERNELS)

test-kernels:
	$(Q)tests/vm/run-scenarios 5.10 6.1 6.12 latest
