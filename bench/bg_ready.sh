# Sourced by the host benches (uprobe.sh, ustart.sh, usyscall.sh).
# bg_ready INTERVAL READY-ERE OUT CMD...: start CMD in the background, its output in OUT,
# and wait until OUT matches READY-ERE, looking every INTERVAL seconds (at most 4,000
# times); sets $bg_pid. Returns 1, with CMD's output on stderr, when CMD exits first.
bg_ready() {
	local interval=$1 ready=$2 out=$3 i
	shift 3
	"$@" >"$out" 2>&1 &
	bg_pid=$!
	for i in $(seq 4000); do
		grep -qE "$ready" "$out" 2>/dev/null && return 0
		kill -0 $bg_pid 2>/dev/null || { echo "failed: $*" >&2; cat "$out" >&2; return 1; }
		sleep "$interval"
	done
}
