# Host-side helpers for VM scenarios (sourced). A scenario runs its guest commands in one
# boot through vm_run, then checks the output with expect*; finish() sets the exit status.
# VM_ARCH: the guest's arch, x86_64 (default) or arm64; VM_KERNEL: the kernel series.
VM_ARCH=${VM_ARCH:-x86_64}
_failed=0
# VM_LOG_DIR=DIR: each guest run's whole output also goes to DIR/SCENARIO-KERNEL-N.log
# (with guest-lib's "time NAME: ready ..., all ..." line after each retsnoop run).
vm_run() {
	local rc log n
	if [ -z "${VM_LOG_DIR:-}" ]; then
		"$(dirname "${BASH_SOURCE[0]}")/run" --arch "$VM_ARCH" --kernel "$VM_KERNEL" ${VM_RUN_ARGS:-} -- "$1"
		return
	fi
	# (called in $(...): the runs so far are counted by their files)
	mkdir -p "$VM_LOG_DIR"
	log=$VM_LOG_DIR/${VM_SCENARIO:-scenario}-$(vm_label | tr : -)
	n=$(ls "$log"-*.log 2>/dev/null | wc -l)
	log=$log-$((n + 1)).log
	"$(dirname "${BASH_SOURCE[0]}")/run" --arch "$VM_ARCH" --kernel "$VM_KERNEL" ${VM_RUN_ARGS:-} -- "$1" >"$log"
	rc=$?
	cat "$log"
	return $rc
}

# The guest kernel as the runner names it: 6.12, arm64:6.12.
vm_label() {
	if [ "$VM_ARCH" = x86_64 ]; then echo "$VM_KERNEL"; else echo "$VM_ARCH:$VM_KERNEL"; fi
}

# An ERE for the guest's `uname -r`: a cloud kernel of the series asked for.
vm_uname_re() {
	local series a
	case $VM_KERNEL in
	latest) series='[0-9]+\.[0-9]+' ;;
	*) series=$(printf '%s' "$VM_KERNEL" | sed 's/\./\\./') ;;
	esac
	a=$(deb_arch)
	echo "^$series\\.[0-9]+.*-cloud-$a\$|^$series[.+-].*cloud-$a\$"
}

# True where a scenario runs its checks that no kernel changes the answer of (the same
# filter in the same BPF code, the same rendering): on every guest, unless VM_ONCE names
# the one guest (a vm_label) they run on. make test sets VM_ONCE=6.12, where every scenario
# runs; make test-kernels and KERNELS=... leave it unset.
vm_once() {
	[ -z "${VM_ONCE:-}" ] || [ "$(vm_label)" = "$VM_ONCE" ]
}

# sys NAME: the syscall's entry wrapper on the guest's arch (__x64_sys_bpf, __arm64_sys_bpf).
sys() {
	case $VM_ARCH in
	arm64) echo "__arm64_sys_$1" ;;
	*) echo "__x64_sys_$1" ;;
	esac
}

# bprm_koff: a kprobe offset into bprm_execve's prologue, at an instruction every call
# runs: after x86's 5-byte fentry call; after arm64's two ftrace nops and its PAC hint
# (arm64 instructions are 4 bytes, so +5 is refused there).
bprm_koff() {
	case $VM_ARCH in
	arm64) echo 12 ;;
	*) echo 5 ;;
	esac
}

# Debian's name of the guest's arch, as in its kernels' releases (6.12.x+deb12-cloud-amd64).
deb_arch() {
	case $VM_ARCH in
	arm64) echo arm64 ;;
	*) echo amd64 ;;
	esac
}

# The output a guest-lib "trace NAME ..." printed between its markers.
section() {
	printf '%s\n' "$1" | awk -v n="$2" '$0 == "=== END " n { p = 0 } p { print } $0 == "=== BEGIN " n { p = 1 }'
}

fail() {
	echo "  FAIL [$(vm_label)]: $*"
	_failed=1
}

expect() {	# expect TEXT ERE WHAT
	printf '%s\n' "$1" | grep -qE -- "$2" || { fail "$3 (no line matches /$2/)"; printf '%s\n' "$1" | sed 's/^/    | /' | tail -40; }
}

expect_not() {	# expect_not TEXT ERE WHAT
	! printf '%s\n' "$1" | grep -qaE -- "$2" || { fail "$3 (a line matches /$2/)"; printf '%s\n' "$1" | grep -aE -- "$2" | sed 's/^/    | /' | head -5; }
}

expect_count() {	# expect_count TEXT ERE N WHAT
	local n
	n=$(printf '%s\n' "$1" | grep -cE -- "$2")
	[ "$n" -eq "$3" ] || { fail "$4 (/$2/ matched $n lines, expected $3)"; printf '%s\n' "$1" | sed 's/^/    | /' | tail -40; }
}

finish() {
	exit $_failed
}

# wait_host_build: make test starts the VM part while the host's binaries build
# (tests/run-all.sh holds RETSNOOP_HOST_BUILD_LOCK meanwhile); a scenario that builds or
# runs host binaries waits for that build first, so two makes never build one file at once
wait_host_build() {
	[ -n "${RETSNOOP_HOST_BUILD_LOCK:-}" ] && [ -e "$RETSNOOP_HOST_BUILD_LOCK" ] || return 0
	flock -s "$RETSNOOP_HOST_BUILD_LOCK" true
}

# Tracing needs BPF cookies or bpf_get_func_ip() (5.15+) until kretprobe IP calibration is
# used on the BPF side: say so and skip (exit 77) on older series.
# Attach modes the guest kernel has, as retsnoop flags: fentry/fexit needs bpf_get_func_ip()
# (5.15+: not 5.10), kprobe.multi needs 5.18+ with fprobe (not 6.1). 5.10's kretprobes find
# their function through the calibrated kretprobe IP offset. arm64 (measured): fentry needs
# ftrace direct calls (6.4+: not 6.1); Debian's arm64 6.12 has no fprobe, latest has.
# Does the guest's kernel attach -F with fsession programs (7.0+), one per function?
vm_has_fsession() {
	[ "$VM_KERNEL" = latest ]
}

# And links one fsession program to many functions with a tracing multi-link (7.x; the
# x86-64 trampolines only: arm64's 7.2 refuses the link)?
vm_has_fsession_multi() {
	[ "$VM_KERNEL" = latest ] && [ "$VM_ARCH" = x86_64 ]
}

vm_modes() {
	case $VM_ARCH:$VM_KERNEL in
	x86_64:5.10) echo "-K" ;;
	x86_64:6.1) echo "-F -K" ;;
	arm64:5.10 | arm64:6.1) echo "-K" ;;
	arm64:6.12) echo "-F -K" ;;
	*) echo "-F -K -M" ;;
	esac
}
