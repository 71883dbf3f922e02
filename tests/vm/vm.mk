test-vm:
	@echo "vm: not wired yet"
