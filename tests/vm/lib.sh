# Host-side helpers for VM scenarios (sourced). A scenario runs its guest commands in one
# boot through vm_run, then checks the output with expect*; finish() sets the exit status.
_failed=0
vm_run() {
	"$(dirname "${BASH_SOURCE[0]}")/run" --kernel "$VM_KERNEL" ${VM_RUN_ARGS:-} -- "$1"
}

# The output a guest-lib "trace NAME ..." printed between its markers.
section() {
	printf '%s\n' "$1" | awk -v n="$2" '$0 == "=== END " n { p = 0 } p { print } $0 == "=== BEGIN " n { p = 1 }'
}

fail() {
	echo "  FAIL [$VM_KERNEL]: $*"
	_failed=1
}

expect() {	# expect TEXT ERE WHAT
	printf '%s\n' "$1" | grep -qE -- "$2" || { fail "$3 (no line matches /$2/)"; printf '%s\n' "$1" | sed 's/^/    | /' | tail -40; }
}

expect_count() {	# expect_count TEXT ERE N WHAT
	local n
	n=$(printf '%s\n' "$1" | grep -cE -- "$2")
	[ "$n" -eq "$3" ] || { fail "$4 (/$2/ matched $n lines, expected $3)"; printf '%s\n' "$1" | sed 's/^/    | /' | tail -40; }
}

finish() {
	exit $_failed
}

# Tracing needs BPF cookies or bpf_get_func_ip() (5.15+) until kretprobe IP calibration is
# used on the BPF side: say so and skip (exit 77) on older series.
# Attach modes the guest kernel has, as retsnoop flags: fentry/fexit needs bpf_get_func_ip()
# (5.15+: not 5.10), kprobe.multi needs 5.18+ with fprobe (not 6.1). 5.10's kretprobes find
# their function through the calibrated kretprobe IP offset.
vm_modes() {
	case $VM_KERNEL in
	5.10) echo "-K" ;;
	6.1) echo "-F -K" ;;
	*) echo "-F -K -M" ;;
	esac
}
