# Sourced by the benchmarks that run the guest under qemu -icount (the guest's clock counts
# its instructions: every 'ns' is one guest instruction, whatever the host's load).
#   icount_qemu      RETSNOOP_QEMU becomes a wrapper adding -icount, removed at exit
#   base_name SCRIPT the file name of BASE_RETSNOOP, refused when it is 'retsnoop' (the
#                    guest's /usr/bin holds ours under that name)
#   icount_ab SCRIPT the start of an A/B benchmark of ours against BASE_RETSNOOP: $base set
#                    (base_name), the guest's bench programs built ($B), icount_qemu

icount_qemu() {
	icount_wrapper=$(mktemp "${TMPDIR:-/tmp}/retsnoop-icount-qemu.XXXXXX")
	trap 'rm -f "$icount_wrapper"' EXIT
	printf '#!/bin/sh\nexec %s -icount shift=0,sleep=off "$@"\n' \
		"${RETSNOOP_QEMU:-qemu-system-x86_64}" >"$icount_wrapper"
	chmod +x "$icount_wrapper"
	export RETSNOOP_QEMU=$icount_wrapper
}

base_name() {
	local b
	b=$(basename "$BASE_RETSNOOP")
	[ "$b" != retsnoop ] || { echo "$1: name the base binary something else than 'retsnoop'" >&2; exit 2; }
	echo "$b"
}

icount_ab() {
	: "${BASE_RETSNOOP:?set BASE_RETSNOOP to a static retsnoop build to compare with}"
	base=$(base_name "$1") || exit 2
	B=src/.output/bench
	make -s "$B/floor" "$B/stamp" "$B/syscall_loop" >&2
	icount_qemu
}
